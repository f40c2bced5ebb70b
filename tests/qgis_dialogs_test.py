#!/usr/bin/python3
"""The lsm provider as a QGIS user meets it (issue "lsm in QGIS as a landscape
ecologist expects it"), in a QGIS application under Xvfb:

- every algorithm: short field titles (no "--", no "default"), the spec's
  defaults in the widgets, required parameters not optional, technical ones
  under "Advanced parameters", three toolbox groups with readable names;
- Patch IDs and K-means classes run through Processing load as categorical
  (paletted) layers named after the input, with a .qml beside the output;
  Landscape metrics loads its tables with the CSV headers as field names and
  numbers as numbers;
- choices show "value — label" and store the value; patch polygons are drawn
  by class in the input's colour table;
- screenshots of the metrics dialog, of the styled patch map and of the patch
  polygons, written to
  the folder given (docs/images/ keeps the ones shown in docs/QGIS.md).

  qgis_dialogs_test.py SOURCE_DIR LSM_BINARY SCREENSHOT_DIR
Exits 77 (skipped) without QGIS's Python bindings.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

source_dir, lsm, shots = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    from qgis.core import QgsApplication
except ImportError:
    print("SKIP: no QGIS Python bindings (bash tools/setup.sh --with-qgis)")
    sys.exit(77)

os.environ["LSM_BINARY"] = lsm
# lsm's GDAL driver, for LSM: layers (GDAL loads plugins when QGIS starts it).
os.environ["GDAL_DRIVER_PATH"] = os.path.join(os.path.dirname(lsm), "gdalplugins")
sys.path.insert(0, "/usr/share/qgis/python/plugins")
sys.path.insert(0, os.path.join(source_dir, "tools", "qgis"))
app = QgsApplication([], True)
app.initQgis()
from processing.core.Processing import Processing  # noqa: E402

Processing.initialize()
import processing  # noqa: E402
from qgis.core import (  # noqa: E402
    QgsMapRendererParallelJob,
    QgsMapSettings,
    QgsProcessingContext,
    QgsProcessingFeedback,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterEnum,
    QgsProcessingParameterNumber,
    QgsProject,
)
from qgis.PyQt.QtCore import QSize  # noqa: E402
from qgis.PyQt.QtGui import QColor  # noqa: E402

from lsm_provider.algorithm import parameter_name  # noqa: E402
from lsm_provider.provider import LsmProvider  # noqa: E402

failures = []


def check(what, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else " — " + str(detail)))
    if not ok:
        failures.append(what)


provider = LsmProvider()
QgsApplication.processingRegistry().addProvider(provider)
describe = json.loads(subprocess.run([lsm, "--describe"], capture_output=True, text=True, check=True).stdout)

# 1. Dialogs from the spec.
groups = set()
for command in describe["commands"]:
    alg = QgsApplication.processingRegistry().algorithmById("lsm:" + command["name"])
    check("lsm:%s is in the toolbox" % command["name"], alg is not None)
    if alg is None:
        continue
    groups.add(alg.group())
    check("%s is named '%s', not after the command" % (command["name"], command["title"]),
          alg.displayName() == command["title"], alg.displayName())
    for option in command["parameters"]:
        if option["name"] in ("quiet", "help"):
            continue
        param = alg.parameterDefinition(parameter_name(option))
        if param is None:
            check("%s --%s has a field" % (command["name"], option["name"]), False)
            continue
        title = param.description()
        where = "%s %s" % (command["name"], option["name"])
        if "--" in title or "default" in title.lower() or len(title) > 40:
            check(where + ": a short title", False, title)
        optional = bool(param.flags() & QgsProcessingParameterDefinition.FlagOptional)
        if option["required"] and optional:
            check(where + ": required, not optional", False)
        advanced = bool(param.flags() & QgsProcessingParameterDefinition.FlagAdvanced)
        if advanced != bool(option["advanced"]):
            check(where + ": advanced as the spec says", False, advanced)
        if option["type"] == "integer" and isinstance(param, QgsProcessingParameterNumber) and not (
                -2147483647 <= param.minimum() and param.maximum() <= 2147483647):
            check(where + ": an integer range a spin box holds", False, (param.minimum(), param.maximum()))
        default = option["default"]
        if default is not None and not option["output"] and option["type"] != "flag":
            shown = param.defaultValue()
            if isinstance(param, QgsProcessingParameterNumber):
                same = shown is not None and float(shown) == float(default)
            elif option.get("list"):  # a subset: the default's values ticked
                same = isinstance(shown, list) and ",".join(shown) == str(default)
            else:
                same = str(shown) == str(default)
            if not same:
                check(where + ": the widget shows the spec's default %r" % default, False, shown)
check("every field: short title, required honoured, advanced as declared, spec defaults (see FAIL lines)",
      not any("title" in f or "optional" in f or "advanced" in f or "default" in f or "spin box" in f for f in failures))
check("three toolbox groups", groups == {"Landscape metrics", "Image analysis", "Segmentation"}, groups)
# The help button opens each operation's manual page as HTML, not Markdown source.
pages = {}
for command in describe["commands"]:
    url = QgsApplication.processingRegistry().algorithmById("lsm:" + command["name"]).helpUrl()
    page = url[len("file://"):] if url.startswith("file://") else ""
    pages[command["name"]] = page
    html = ""
    if page.endswith(".html") and os.path.exists(page):
        with open(page, encoding="utf-8") as f:
            html = f.read()
    if not ("<html" in html.lower() and "<h1" in html.lower() and "](" not in html):
        check("%s: its help page is rendered HTML" % command["name"], False, url)
check("every help button opens a rendered HTML page", all(p.endswith(".html") for p in pages.values()), pages)
metrics_alg = QgsApplication.processingRegistry().algorithmById("lsm:metrics")
metric_field = metrics_alg.parameterDefinition("METRICS")
check("--metrics is a multiple choice of the catalogue's acronyms",
      isinstance(metric_field, QgsProcessingParameterEnum) and metric_field.allowMultiple()
      and "SHDI" in metric_field.options(), metric_field)
tags = " ".join(metrics_alg.tags())
check("the toolbox search finds Landscape metrics by 'shannon', 'fragmentation', 'edge density', 'SHDI'",
      all(word in tags for word in ("shannon", "fragmentation", "edge density", "shdi")), tags[:200])
from qgis.core import QgsProcessingParameterBand, QgsProcessingParameterFile  # noqa: E402

check("class descriptors and the scratch folder are file and folder fields with a picker",
      isinstance(metrics_alg.parameterDefinition("CLASS_DESCRIPTORS"), QgsProcessingParameterFile)
      and metrics_alg.parameterDefinition("CLASS_DESCRIPTORS").behavior() == QgsProcessingParameterFile.File
      and metrics_alg.parameterDefinition("TEMP_DIR").behavior() == QgsProcessingParameterFile.Folder)
# Every parameter declared as a band of the input (band_of), and only those.
band_fields = {}
for command in describe["commands"]:
    alg = QgsApplication.processingRegistry().algorithmById("lsm:" + command["name"])
    for option in command["parameters"]:
        field = alg.parameterDefinition(parameter_name(option)) if alg else None
        if isinstance(field, QgsProcessingParameterBand) or option.get("band_of"):
            band_fields["%s %s" % (command["name"], option["name"])] = (
                isinstance(field, QgsProcessingParameterBand) and option.get("band_of") == "input"
                and field.parentLayerParameterName() == "INPUT")
check("the band fields list the input's bands (metrics, label, gradient, hog, fuzzy ...)",
      band_fields and all(band_fields.values()) and "metrics band" in band_fields and "hog band" in band_fields,
      band_fields)
check("the metrics help lists the metrics with their units",
      "SHDI" in metrics_alg.shortHelpString() and "ha" in metrics_alg.shortHelpString())
window_help = QgsApplication.processingRegistry().algorithmById("lsm:window").shortHelpString()
check("the moving-window help lists the metrics a window computes (every class and landscape one), and only those",
      "<b>SHDI</b>" in window_help and "<b>NP</b>" in window_help and "<b>AREA</b>_MN _AM _MD _RA _SD _CV" in window_help
      and "<b>GYRATE</b>_MN" in window_help and "<b>CORE</b>_MN" in window_help and "<b>ENN</b>_MN" in window_help
      and "<b>PERIM</b>" not in window_help and "<b>NCORE</b>" not in window_help,
      window_help[:300])

# The provider's page of the Processing options says where lsm is; a path set
# there is the lsm that runs.
from processing.core.ProcessingConfig import ProcessingConfig  # noqa: E402
from lsm_provider.lsm_binary import BINARY_SETTING, lsm_binary  # noqa: E402

lsm_settings = [setting.name for setting in ProcessingConfig.getSettings().get("lsm", [])]
check("Processing's options have an 'lsm executable' setting under lsm", BINARY_SETTING in lsm_settings,
      list(ProcessingConfig.getSettings()))
saved_binary = os.environ.pop("LSM_BINARY")
elsewhere = os.path.join(tempfile.mkdtemp(), "lsm")  # a path of its own: not the installed or PATH's lsm
os.symlink(saved_binary, elsewhere)
ProcessingConfig.setSettingValue(BINARY_SETTING, elsewhere)
check("the path set there is the lsm that runs", lsm_binary() == elsewhere, lsm_binary())
shutil.rmtree(os.path.dirname(elsewhere))
ProcessingConfig.setSettingValue(BINARY_SETTING, "")
os.environ["LSM_BINARY"] = saved_binary

# 2. Results that look right.
work = tempfile.mkdtemp()
sample = os.path.join(work, "nlm_fbm_400x300.tif")
shutil.copy(os.path.join(source_dir, "sample_rasters", "nlm_fbm_400x300.tif"), sample)
project = QgsProject.instance()


def run_and_load(alg_id, parameters):
    context = QgsProcessingContext()
    context.setProject(project)
    before = set(project.mapLayers())
    processing.runAndLoadResults(alg_id, parameters, feedback=QgsProcessingFeedback(), context=context)
    return [project.mapLayer(i) for i in set(project.mapLayers()) - before]


label = os.path.join(work, "patches.tif")
layers = run_and_load("lsm:label", {"INPUT": sample, "OUTPUT": label, "NEIGHBORS": "8"})
check("Patch IDs loads one layer", len(layers) == 1, layers)
patch_layer = layers[0] if layers else None
if patch_layer:
    check("the patch layer is named after the input", patch_layer.name() == "nlm_fbm_400x300 — Patch IDs",
          patch_layer.name())
    check("the patch layer is drawn in random colours (paletted), not a grey stretch",
          patch_layer.renderer().type() in ("paletted", "singlebandpseudocolor"), patch_layer.renderer().type())
    check("its style is saved beside it (patches.qml)", os.path.exists(os.path.join(work, "patches.qml")))
# More patches than a palette holds (a 400 x 400 checkerboard under the
# 4-cell rule: 160 000 one-cell patches): drawn by a random ramp, every
# colour opaque, not left transparent.
from osgeo import gdal  # noqa: E402

checker = os.path.join(work, "checker.tif")
checker_ds = gdal.GetDriverByName("GTiff").Create(checker, 400, 400, 1, gdal.GDT_Byte)
checker_ds.SetGeoTransform((0, 30, 0, 0, 0, -30))
checker_ds.GetRasterBand(1).WriteRaster(0, 0, 400, 400, bytes(1 + (x + y) % 2 for y in range(400) for x in range(400)))
checker_ds = None
layers = run_and_load("lsm:label", {"INPUT": checker, "OUTPUT": os.path.join(work, "many.tif"), "NEIGHBORS": "4"})
ramp_items = []
if len(layers) == 1 and layers[0].renderer().type() == "singlebandpseudocolor":
    ramp_items = layers[0].renderer().shader().rasterShaderFunction().colorRampItemList()
check("160 000 patch IDs are drawn in opaque random colours, not transparent",
      len(ramp_items) >= 64 and all(i.color.isValid() and i.color.alpha() == 255 for i in ramp_items),
      (len(ramp_items), [l.renderer().type() for l in layers]))
layers = run_and_load("lsm:kmeans", {"INPUT": sample, "OUTPUT": os.path.join(work, "classes.tif"), "K": 3})
check("K-means classes load paletted", len(layers) == 1 and layers[0].renderer().type() == "paletted",
      [l.renderer().type() for l in layers])
# The input with a colour table (a land-cover palette): the patch polygons
# are drawn one colour per class, in the table's colours.
# Multi-choices left at their default, as the dialog passes them (an empty
# list): every level and metric, not `--level ''`.
out = os.path.join(work, "default")
result = processing.run("lsm:metrics", {"INPUT": sample, "OUTPUT": out + ".csv", "LEVEL": [], "METRICS": []})
check("lsm:metrics with LEVEL and METRICS left empty writes every table",
      all(os.path.exists(out + "." + t + ".csv") for t in ("patch", "class", "land", "adj")), result)
from osgeo import gdal  # noqa: E402

polygon_layer = None
coloured = os.path.join(work, "coloured.tif")
copy = gdal.Translate(coloured, sample)
table = gdal.ColorTable()
palette = {1: (28, 99, 48, 255), 2: (104, 171, 95, 255), 3: (220, 202, 143, 255), 4: (70, 107, 159, 255),
           5: (179, 172, 159, 255)}
for code, rgba in palette.items():
    table.SetColorEntry(code, rgba)
copy.GetRasterBand(1).SetRasterColorTable(table)
copy = None
layers = run_and_load("lsm:patches", {"INPUT": coloured, "OUTPUT": os.path.join(work, "polygons.gpkg")})
check("Patch polygons loads a polygon layer of the 472 patches with their metrics",
      len(layers) == 1 and layers[0].featureCount() == 472 and "AREA" in layers[0].fields().names(),
      [(l.name(), l.featureCount()) for l in layers])
if layers:
    renderer = layers[0].renderer()
    colours = {c.value(): c.symbol().color().getRgb()[:3] for c in getattr(renderer, "categories", lambda: [])()}
    check("the patch polygons are drawn by class (TYPE), in the input's colour table",
          renderer.type() == "categorizedSymbol" and renderer.classAttribute() == "TYPE"
          and sorted(colours) == [1, 2, 3, 4, 5] and all(colours[c] == palette[c][:3] for c in palette),
          (renderer.type(), colours))
    check("that style is saved beside it (polygons.qml)", os.path.exists(os.path.join(work, "polygons.qml")))
    polygon_layer = layers[0]
# The tables load where the user asked (the dialog's "Open output file after
# running algorithm": a definition with the project); a bare path loads none.
from qgis.core import QgsProcessingOutputLayerDefinition  # noqa: E402

layers = run_and_load("lsm:metrics", {"INPUT": sample, "OUTPUT": os.path.join(work, "bare.csv"), "LOAD_TABLES": False})
check("LOAD_TABLES unticked (a batch's column) loads no table", layers == [], [l.name() for l in layers])
layers = run_and_load("lsm:metrics", {"INPUT": sample,
                                      "OUTPUT": QgsProcessingOutputLayerDefinition(os.path.join(work, "n.csv"), None)})
check("an output definition without a project loads no table", layers == [], [l.name() for l in layers])
layers = run_and_load("lsm:metrics", {"INPUT": sample, "OUTPUT": os.path.join(work, "m.csv")})
tables = {l.name().split(" — ")[-1]: l for l in layers}
check("Landscape metrics loads its tables named after the input",
      {"class metrics", "landscape metrics", "patch metrics", "class adjacencies"} <= set(tables), list(tables))
for title, suffix in (("class metrics", "class"), ("class adjacencies", "adj"), ("landscape metrics", "land")):
    layer = tables.get(title)
    if not layer:
        continue
    with open(os.path.join(work, "m.%s.csv" % suffix)) as f:
        rows = list(csv.reader(f))
    header = rows[0]
    names = [field.name() for field in layer.fields()]
    check("the %s table's fields are its CSV header" % suffix, names == header, names[:6])
    # QGIS types a field by its values: a column left empty (RPR without
    # --max-richness, CWED without --contrast-table) has none to go by.
    filled = [any(row[i] for row in rows[1:]) for i in range(len(header))]
    not_numeric = [f.name() for i, f in enumerate(layer.fields()) if i > 0 and filled[i] and not f.isNumeric()]
    check("the %s table's values are numbers" % suffix, any(filled[1:]) and not not_numeric, not_numeric[:6])

# 2b. The real dialogs, as a user meets them: open each algorithm, change
# nothing but the input (and what has no default), click Run. Every output is
# left at QGIS's "[Save to temporary file]": the files must exist, be loaded
# with their names and styles.
from processing.gui.AlgorithmDialog import AlgorithmDialog  # noqa: E402
from qgis.PyQt.QtWidgets import QMessageBox, QTextEdit  # noqa: E402
import time  # noqa: E402

popups = []
QMessageBox.warning = QMessageBox.question = QMessageBox.critical = \
    lambda *args, **kwargs: popups.append(args[2] if len(args) > 2 else args) or QMessageBox.No
from qgis.core import QgsMapLayer, QgsRasterLayer as _RasterLayer  # noqa: E402

sample_layer = _RasterLayer(sample, "nlm_fbm_400x300")
project.addMapLayer(sample_layer)
from qgis.core import QgsVectorLayer as _VectorLayer  # noqa: E402

# The same area at a later date, for lsm change (a copy on the sample's grid).
later_path = os.path.join(work, "nlm_fbm_400x300_later.tif")
shutil.copy(os.path.join(source_dir, "sample_rasters", "nlm_fbm_400x300.tif"), later_path)
later_layer = _RasterLayer(later_path, "nlm_fbm_400x300_later")
project.addMapLayer(later_layer)
zones_layer = _VectorLayer(os.path.join(source_dir, "tests", "data", "sample_zones.geojson"), "sample_zones", "ogr")
project.addMapLayer(zones_layer)
# What a user must set beyond the input: a choice without a default, a seed
# cell. K is left as the dialog shows it: 2, its least meaningful value.
must_set = {"patchmetric": {"METRIC": "AREA"}, "fuzzy": {"SEED_CELL": "200,150"},
            "window": {"METRICS": ["PLAND", "SHDI"], "WINDOW_CELLS": 5},
            "zonal": {"ZONES": zones_layer, "ZONE_FIELD": "name"}, "change": {"LATER": later_layer}}
expected_renderer = {"label": "paletted", "kmeans": "paletted", "synth": "paletted",
                     "patchmetric": "singlebandpseudocolor", "patches": "categorizedSymbol"}


def map_picture(layer, file_name):
    os.makedirs(shots, exist_ok=True)
    settings = QgsMapSettings()
    settings.setLayers([layer])
    settings.setExtent(layer.extent())
    settings.setOutputSize(QSize(800, 600))
    settings.setBackgroundColor(QColor("white"))
    job = QgsMapRendererParallelJob(settings)
    job.start()
    job.waitForFinished()
    return job.renderedImage().save(os.path.join(shots, file_name))


def set_widget(wrapper, value):
    if hasattr(wrapper, "setParameterValue"):  # QGIS's C++ wrappers
        wrapper.setParameterValue(value, QgsProcessingContext())
    else:
        wrapper.setValue(value)


def run_dialog(alg_id, values):
    """Runs the algorithm's dialog as a click on Run does; returns (ok,
    results, new layers, the dialog's log)."""
    # A copy, as QGIS's toolbox passes: the dialog owns (and deletes) its algorithm.
    dialog = AlgorithmDialog(QgsApplication.processingRegistry().createAlgorithmById(alg_id))
    wrappers = dialog.mainWidget().wrappers
    for name, value in values.items():
        set_widget(wrappers[name], value)
    finished = {}
    dialog.algorithmFinished.connect(lambda ok, results: finished.update(ok=ok, results=results))
    before = set(project.mapLayers())
    del popups[:]
    dialog.runAlgorithm()
    deadline = time.time() + 120  # a run whose results fail to load never reports finished
    while "ok" not in finished and time.time() < deadline and not popups:
        app.processEvents()
        time.sleep(0.02)
    app.processEvents()
    try:  # a failed run keeps the dialog open with its log; a finished one is gone
        log = dialog.findChild(QTextEdit, "txtLog").toPlainText() if dialog.findChild(QTextEdit, "txtLog") else ""
        dialog.close()
    except RuntimeError:
        log = ""
    new = [project.mapLayer(i) for i in set(project.mapLayers()) - before]
    return finished.get("ok", False), finished.get("results", {}), new, log + " ".join(map(str, popups))


for command in describe["commands"]:
    name = command["name"]
    values = dict(must_set.get(name, {}))
    if any(o["name"] == "input" for o in command["parameters"]):
        values["INPUT"] = sample_layer
    ok, results, new, log = run_dialog("lsm:" + name, values)
    check("the %s dialog runs with its defaults and temporary outputs" % name, ok, log[-600:])
    if not ok:
        continue
    outputs = [o for o in command["parameters"] if o["output"] and parameter_name(o) in results]
    missing = [results[parameter_name(o)] for o in outputs if results[parameter_name(o)]
               and not os.path.exists(results[parameter_name(o)] + (".class.csv" if o["output"] == "table-prefix" else ""))]
    check("%s: every output it returns exists" % name, outputs and not missing, (results, missing))
    layer_outputs = [o for o in outputs if o["output"] in ("raster", "vector") and results[parameter_name(o)]]
    for o in layer_outputs:
        path = results[parameter_name(o)]
        loaded = [l for l in new if l.source().split("|")[0] == path]
        title = (o.get("title") or o["name"]) + (" AREA" if name == "patchmetric" else "")
        check("%s: %s is loaded, named '… — %s'" % (name, os.path.basename(path), title),
              len(loaded) == 1 and loaded[0].name().endswith(title), [(l.name(), l.source()) for l in new])
        if loaded and name in expected_renderer:
            check("%s: drawn %s" % (name, expected_renderer[name]),
                  loaded[0].renderer().type() == expected_renderer[name], loaded[0].renderer().type())
    if name == "kmeans":
        classes = [l for l in new if l.type() == QgsMapLayer.RasterLayer]
        shown = classes[0].renderer().classes() if classes and hasattr(classes[0].renderer(), "classes") else []
        check("kmeans: K as the dialog shows it, 2, gives two classes", [c.value for c in shown] == [1, 2],
              [c.value for c in shown])
    if name == "change":
        titles = sorted(l.name().split(" — ")[-1] for l in new)
        check("change: both dates' tables and the change tables are loaded", titles == [
            "class change", "class metrics", "landscape change", "landscape metrics"], titles)
    if name == "zonal":
        tables = {l.name().split(" — ")[-1]: l for l in new}
        land = tables.get("landscape metrics")
        zones = sorted(f["ZONE"] for f in land.getFeatures()) if land else []
        check("zonal: its tables and the zones with their metrics are loaded, a row per zone named by the field",
              sorted(tables) == ["Zones with their metrics", "class metrics", "landscape metrics"]
              and zones == ["across west", "east with a hole", "south, two parts", "west"], (sorted(tables), zones))
        zones_map = tables.get("Zones with their metrics")
        check("zonal: the zones are drawn by SHDI in five classes",
              zones_map is not None and zones_map.renderer().type() == "graduatedSymbol"
              and zones_map.renderer().classAttribute() == "SHDI" and len(zones_map.renderer().ranges()) == 5,
              zones_map.renderer().type() if zones_map else None)
        if zones_map:
            check("screenshot of the zones by SHDI", map_picture(zones_map, "qgis_zones_shdi.png"))
    if name == "metrics":
        titles = sorted(l.name().split(" — ")[-1] for l in new)
        check("metrics: its four tables are loaded",
              titles == ["class adjacencies", "class metrics", "landscape metrics", "patch metrics"], titles)

# A batch of three rows, as the batch dialog runs them: "Load layers on
# completion" unticked loads nothing, ticked loads the three rasters.
from processing.gui.BatchAlgorithmDialog import BatchAlgorithmDialog  # noqa: E402

for load in (False, True):
    batch = BatchAlgorithmDialog(QgsApplication.processingRegistry().createAlgorithmById("lsm:label"))
    panel = batch.mainWidget()
    while panel.batchRowCount() < 3:
        panel.addRow()
    input_column = panel.parameter_to_column["INPUT"]
    output_column = panel.parameter_to_column["OUTPUT"]
    for row in range(3):
        set_widget(panel.wrappers[row][input_column], sample)
        panel.tblParameters.cellWidget(row + 1, output_column).setValue(
            os.path.join(work, "batch_%s_%d.tif" % (load, row)))
    panel.checkLoadLayersOnCompletion.setChecked(load)
    before = set(project.mapLayers())
    batch.runAlgorithm()
    app.processEvents()
    new = [project.mapLayer(i) for i in set(project.mapLayers()) - before]
    written = all(os.path.exists(os.path.join(work, "batch_%s_%d.tif" % (load, row))) for row in range(3))
    check("a batch of three rows writes three patch rasters (load on completion %s)" % load, written)
    check("… and loads %d layers" % (3 if load else 0), len(new) == (3 if load else 0), [l.name() for l in new])
    batch.close()

# A two-step model: a neutral landscape, then its metrics.
from qgis.core import (QgsProcessingModelAlgorithm, QgsProcessingModelChildAlgorithm,  # noqa: E402
                       QgsProcessingModelChildParameterSource, QgsProcessingModelOutput)

model = QgsProcessingModelAlgorithm("synth then metrics", "lsm")
synth_step = QgsProcessingModelChildAlgorithm("lsm:synth")
synth_step.setChildId("synth")
synth_step.addParameterSources("WIDTH", [QgsProcessingModelChildParameterSource.fromStaticValue(120)])
synth_step.addParameterSources("HEIGHT", [QgsProcessingModelChildParameterSource.fromStaticValue(80)])
model.addChildAlgorithm(synth_step)
metrics_step = QgsProcessingModelChildAlgorithm("lsm:metrics")
metrics_step.setChildId("metrics")
metrics_step.addParameterSources("INPUT", [QgsProcessingModelChildParameterSource.fromChildOutput("synth", "OUTPUT")])
metrics_step.addParameterSources("LEVEL", [QgsProcessingModelChildParameterSource.fromStaticValue(["land"])])
model_output = QgsProcessingModelOutput("tables")
model_output.setChildOutputName("OUTPUT")
metrics_step.setModelOutputs({"tables": model_output})
model.addChildAlgorithm(metrics_step)
model.initAlgorithm()
model_tables = os.path.join(work, "model.csv")
try:
    processing.run(model, {"metrics:tables": model_tables})
    model_error = ""
except Exception as e:  # noqa: BLE001 - the check says what failed
    model_error = str(e)
check("a two-step model (synth, then metrics of its output) writes the landscape table",
      os.path.exists(os.path.join(work, "model.land.csv")), model_error)

# In the modeler every field, labelled choices included, is QGIS's modeler
# widget, which binds a value to a model input or another step's output.
from processing.modeler.ModelerParametersDialog import ModelerParametersDialog  # noqa: E402
from qgis.core import QgsProcessingModelChildParameterSource as Source  # noqa: E402
from qgis.gui import QgsProcessingModelerParameterWidget  # noqa: E402

from qgis.core import QgsProcessingModelParameter, QgsProcessingParameterString  # noqa: E402

model.addModelParameter(QgsProcessingParameterString("rule", "Neighbour rule", "8"), QgsProcessingModelParameter("rule"))
step = ModelerParametersDialog(QgsApplication.processingRegistry().createAlgorithmById("lsm:metrics"), model)
fields = step.widget.widget.wrappers
check("in the modeler, NEIGHBORS, LEVEL and METRICS take model inputs like any field",
      all(isinstance(fields.get(name), QgsProcessingModelerParameterWidget) for name in ("NEIGHBORS", "LEVEL", "METRICS")),
      {name: type(fields.get(name)).__name__ for name in ("NEIGHBORS", "LEVEL", "METRICS")})
if isinstance(fields.get("NEIGHBORS"), QgsProcessingModelerParameterWidget):
    fields["NEIGHBORS"].setWidgetValue(Source.fromModelParameter("rule"))
    bound = fields["NEIGHBORS"].value()
    bound = bound[0] if isinstance(bound, list) else bound
    check("NEIGHBORS bound to a model input 'rule'", bound.source() == Source.ModelParameter
          and bound.parameterName() == "rule", (bound.source(), bound.parameterName(), bound.staticValue()))
step.close()

# 3. Errors a QGIS user can read: an lsm error reaches the user once, as the
# algorithm's error; a failed LSM: layer carries the driver's reason.
from qgis.core import QgsProcessingException, QgsRasterLayer  # noqa: E402


class RecordingFeedback(QgsProcessingFeedback):
    def __init__(self):
        super().__init__()
        self.messages = []

    def reportError(self, error, fatalError=False):  # noqa: N802
        self.messages.append(error)

    def pushWarning(self, warning):  # noqa: N802
        self.messages.append(warning)

    def pushInfo(self, info):  # noqa: N802
        self.messages.append(info)


feedback = RecordingFeedback()
try:
    processing.run("lsm:metrics", {"INPUT": sample, "OUTPUT": os.path.join(work, "e.csv"), "MAX_CELLS": 10},
                   feedback=feedback)
    raised = ""
except QgsProcessingException as e:
    raised = str(e)
said = [m for m in feedback.messages + [raised] if "cells, more than" in m]
check("an lsm error is shown once, as the algorithm's error, in the dialog's words (no --max-cells)",
      len(said) == 1 and "--max-cells" not in said[0] and '" 10' in said[0], said)
try:  # a rule between two fields, named by their titles
    processing.run("lsm:zonal", {"INPUT": sample, "BUFFER": 100, "OUTPUT": os.path.join(work, "zerr.csv")},
                   feedback=RecordingFeedback())
    raised = ""
except QgsProcessingException as e:
    raised = str(e)
check("a rule's error names the dialog's fields", raised.startswith('give "Zones" or "Grid tile size') and "--" not in raised,
      raised)
from osgeo import gdal  # noqa: E402

gdal.AllRegister()
gdal.PushErrorHandler("CPLQuietErrorHandler")
check("GDAL's last error after a failed LSM: open is the driver's reason",
      gdal.OpenEx("LSM:patchmetric:" + sample) is None and "needs the option metric=METRIC" in gdal.GetLastErrorMsg(),
      gdal.GetLastErrorMsg())
gdal.PopErrorHandler()
bad_layer = QgsRasterLayer("LSM:patchmetric:" + sample, "bad", "gdal")
check("QGIS's error for the failed LSM: layer names the driver's reason",
      not bad_layer.isValid() and "needs the option metric=METRIC" in bad_layer.error().message(),
      bad_layer.error().message()[:300])

# 4. Pictures: the metrics dialog and the styled patch map.
os.makedirs(shots, exist_ok=True)
from processing.gui.AlgorithmDialog import AlgorithmDialog  # noqa: E402

dialog = AlgorithmDialog(metrics_alg.create())
dialog.resize(900, 760)
dialog.show()
app.processEvents()
check("screenshot of the metrics dialog", dialog.grab().save(os.path.join(shots, "qgis_metrics_dialog.png")))
window_dialog = AlgorithmDialog(QgsApplication.processingRegistry().createAlgorithmById("lsm:window"))
window_dialog.resize(900, 760)
window_dialog.show()
app.processEvents()
check("screenshot of the moving-window dialog",
      window_dialog.grab().save(os.path.join(shots, "qgis_window_dialog.png")))
window_dialog.close()
zonal_dialog = AlgorithmDialog(QgsApplication.processingRegistry().createAlgorithmById("lsm:zonal"))
zonal_dialog.resize(900, 760)
zonal_dialog.show()
set_widget(zonal_dialog.mainWidget().wrappers["INPUT"], sample_layer)
set_widget(zonal_dialog.mainWidget().wrappers["ZONES"], zones_layer)
set_widget(zonal_dialog.mainWidget().wrappers["ZONE_FIELD"], "name")
app.processEvents()
check("screenshot of the zonal dialog", zonal_dialog.grab().save(os.path.join(shots, "qgis_zonal_dialog.png")))
zonal_dialog.close()
# Choices show their labels and store their values (what qgis_process takes).
wrappers = dialog.mainWidget().wrappers
neighbours = wrappers["NEIGHBORS"].widget
check("the neighbour rule shows '8 — edges and corners, FRAGSTATS' default' and stores 8",
      neighbours.currentText() == "8 — edges and corners, FRAGSTATS' default"
      and wrappers["NEIGHBORS"].value() == "8", (neighbours.currentText(), wrappers["NEIGHBORS"].value()))
wrappers["GYRATE"].setValue("centroid")
check("GYRATE's rule stores 'centroid' behind its label",
      wrappers["GYRATE"].value() == "centroid" and "documented definition" in wrappers["GYRATE"].widget.currentText(),
      wrappers["GYRATE"].widget.currentText())
wrappers["METRICS"].setValue("AREA,SHDI")
values = dialog.mainWidget().createProcessingParameters() if hasattr(dialog.mainWidget(), "createProcessingParameters") \
    else dialog.createProcessingParameters()
check("the dialog's parameters carry the values: NEIGHBORS 8, GYRATE centroid, METRICS AREA and SHDI",
      str(values.get("NEIGHBORS")) == "8" and values.get("GYRATE") == "centroid"
      and sorted(values.get("METRICS") or []) == ["AREA", "SHDI"], values)
dialog.close()


if patch_layer:
    check("screenshot of the patch map", map_picture(patch_layer, "qgis_patch_map.png"))
if polygon_layer:
    check("screenshot of the patch polygons by class", map_picture(polygon_layer, "qgis_patch_polygons.png"))
project.clear()
shutil.rmtree(work, ignore_errors=True)
app.exitQgis()
print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
