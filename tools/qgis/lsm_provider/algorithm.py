"""One lsm command as a Processing algorithm, its parameters generated from
the command's entry in `lsm --describe` (no hand-written parameter lists).

Parameter names are the option names in upper case with '-' as '_'
(--seed-radius is SEED_RADIUS); the input raster is INPUT and the main output
OUTPUT (for `metrics`, OUTPUT is the prefix of the tables, as --output).
The lsm binary runs as a separate process: its GDAL-style progress on
stderr (0...10...20...) drives the progress bar, its messages go to the log, and
cancelling ends the process.
"""
import os
import re

from qgis.core import (
    QgsBlockingProcess,
    QgsProcessingParameterDefinition,
    QgsProcessing,
    QgsProcessingAlgorithm,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingOutputFile,
    QgsProcessingOutputLayerDefinition,
    QgsProcessingParameterBand,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFeatureSource,
    QgsProcessingParameterField,
    QgsProcessingParameterFile,
    QgsProcessingParameterFileDestination,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterDestination,
    QgsProcessingParameterRasterLayer,
    QgsProcessingParameterString,
    QgsProcessingParameterVectorDestination,
)

from .choice_widgets import attach_labels
from .layer_styles import class_style_for, style_for_output, table_layer
from .lsm_binary import lsm_binary

# The range of a Qt spin box (a C int), the widget of integer fields; the
# lowest int is left out (QGIS reads it as "not set").
INT_MIN, INT_MAX = -2147483647, 2147483647
# Options the provider sets itself.
HIDDEN = {"quiet", "help"}
# Layer names of the declared table outputs, by output ID (the files of a
# table-prefix option in `lsm --describe`).
TABLE_TITLES = {"patch": "patch metrics", "class": "class metrics", "land": "landscape metrics",
                "tidy": "metrics (tidy)", "adj": "class adjacencies", "class_change": "class change",
                "land_change": "landscape change"}


def parameter_name(option):
    if option["name"] == "input":
        return "INPUT"
    if option["output"] and option["positional"] or option["name"] == "output":
        return "OUTPUT"
    return option["name"].upper().replace("-", "_")


def make_parameter(option):
    """The QgsProcessingParameter* for one option of the description: its
    title (with its unit) labels the dialog's field, its help is the field's
    tooltip, technical options go under "Advanced parameters"."""
    parameter = make_bare_parameter(option)
    # A text field takes several values separated by ';'; a layer picker
    # (the input of lsm metrics, which takes a batch on the command line) one.
    several = option["multiple"] and isinstance(parameter, QgsProcessingParameterString)
    parameter.setHelp(option["help"] + ("; several separated by ';'" if several else ""))
    if option.get("advanced"):
        parameter.setFlags(parameter.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
    if option["choices"] and not option["output"]:
        attach_labels(parameter, option.get("choice_labels"), bool(option.get("list")))
    return parameter


def field_title(option):
    text = option.get("title") or option["name"]
    unit = option.get("unit")
    return "{} ({})".format(text, unit) if unit and unit not in text else text


def make_bare_parameter(option):
    name, text = parameter_name(option), field_title(option)
    optional = not option["required"]
    default = option["default"]
    kind = option["output"]
    if name == "INPUT" or option.get("input") == "raster":
        return QgsProcessingParameterRasterLayer(name, text, optional=optional)
    if option.get("path"):  # a file read or a folder written: a field with a picker
        behavior = QgsProcessingParameterFile.Folder if option["path"] == "folder" else QgsProcessingParameterFile.File
        return QgsProcessingParameterFile(name, text, behavior=behavior, optional=optional)
    if option.get("input") == "vector":
        # Any layer QGIS shows; lsm reads it from its file (exported first
        # where it has none, a selection or a filter: input_vector_path()).
        return QgsProcessingParameterFeatureSource(name, text, [QgsProcessing.TypeVectorAnyGeometry], optional=optional)
    if option.get("field_of"):
        # The layer's fields to pick from.
        return QgsProcessingParameterField(name, text, parentLayerParameterName=option["field_of"].replace("-", "_").upper(),
                                           optional=optional)
    if option.get("band_of"):
        # The input's bands to pick from, by number and description.
        return QgsProcessingParameterBand(name, text, defaultValue=default,
                                          parentLayerParameterName=option["band_of"].replace("-", "_").upper(),
                                          optional=optional)
    if kind == "table-prefix":
        return QgsProcessingParameterFileDestination(name, text, "CSV tables (*.csv)", optional=optional)
    if kind == "folder":
        return QgsProcessingParameterFolderDestination(name, text, optional=optional)
    if kind == "raster":
        return QgsProcessingParameterRasterDestination(name, text, optional=optional, createByDefault=not optional)
    if kind == "vector":
        return QgsProcessingParameterVectorDestination(name, text, QgsProcessing.TypeVectorPolygon, optional=optional)
    if kind == "file":
        return QgsProcessingParameterFileDestination(name, text, "All files (*)", optional=optional,
                                                     createByDefault=not optional)
    if option["choices"]:
        # The values themselves (static strings): qgis_process takes NEIGHBORS=8,
        # scripts and models store "8", not an index into the list.
        values = [str(v) for v in option["choices"]]
        if option.get("list"):  # a comma-separated subset: several ticks, the default's ticked
            ticked = [v for v in str(default).split(",") if v in values] if default is not None else None
            return QgsProcessingParameterEnum(name, text, values, allowMultiple=True, defaultValue=ticked or None,
                                              optional=optional, usesStaticStrings=True)
        value = str(default) if default is not None and str(default) in values else None
        # A required choice without a default (patchmetric's metric) must be picked.
        return QgsProcessingParameterEnum(name, text, values, defaultValue=value, optional=optional,
                                          usesStaticStrings=True)
    if option["type"] == "flag":
        return QgsProcessingParameterBoolean(name, text, defaultValue=False, optional=True)
    if option["type"] in ("integer", "number"):
        kind = QgsProcessingParameterNumber.Integer if option["type"] == "integer" else QgsProcessingParameterNumber.Double
        parameter = QgsProcessingParameterNumber(name, text, kind, defaultValue=default,
                                                 optional=optional)
        # The declaration's range: the dialog refuses what lsm would. An
        # integer field is a Qt spin box (a C int): a range beyond it (seeds
        # up to 2^53, background codes down to -2^31) would overflow it and
        # the field would pass nothing, so it is cut to the int range.
        low, high = option.get("minimum"), option.get("maximum")
        if option["type"] == "integer":
            low = INT_MIN if low is None else max(low, INT_MIN)
            high = INT_MAX if high is None else min(high, INT_MAX)
        if low is not None:
            parameter.setMinimum(low)
        if high is not None:
            parameter.setMaximum(high)
        return parameter
    return QgsProcessingParameterString(name, text, defaultValue=default, optional=optional)


def table_prefix_option(command):
    """The option naming the prefix of a command's tables (its declared files), or None."""
    return next((o for o in command["parameters"] if o["output"] == "table-prefix"), None)


def help_text(command, catalogue):
    """The help panel: what the command computes, its outputs and, for the
    metric commands, the metrics it offers with their units (from the metric
    catalogue of `lsm --describe`), and the command line it runs."""
    parts = ["<p>{}.</p>".format(command["summary"][0].upper() + command["summary"][1:])]
    outputs = [o for o in command["parameters"] if o["output"]]
    if outputs:
        parts.append("<p><b>Outputs</b></p><ul>{}</ul>".format(
            "".join("<li><i>{}</i>: {}</li>".format(field_title(o), o["help"]) for o in outputs)))
    # The option whose choices are the catalogue's acronyms, or distribution
    # statistics of its distributed metrics (AREA_MN): a list of them (every
    # level), or one patch metric.
    acronyms = {m["acronym"] for m in catalogue or []}
    statistics = ("MN", "AM", "MD", "RA", "SD", "CV")
    distributions = {m["acronym"] + "_" + s for m in catalogue or [] if m.get("distribution") for s in statistics}
    metric_option = next((o for o in command["parameters"]
                          if o["choices"] and set(o["choices"]) <= acronyms | distributions), None)
    if metric_option and catalogue:
        offered = set(metric_option["choices"])  # the command's own choices (a window offers fewer)
        rows = []
        for m in catalogue:
            stats = [s for s in statistics if m["acronym"] + "_" + s in offered]
            if m["acronym"] in offered:
                levels = ", ".join(m["levels"]) or "its distributions only"  # DCORE: no column of its own
                rows.append("<li><b>{}</b> {} ({}; {})</li>".format(m["acronym"], m["name"], m["unit"] or "no unit",
                                                                   levels))
            if stats:  # a distribution at class and landscape level, where only those are offered
                rows.append("<li><b>{}</b>{} {} ({}; class, landscape)</li>".format(
                    m["acronym"], " ".join("_" + s for s in stats), m["name"], m["unit"] or "no unit"))
        parts.append("<p><b>Metrics</b> (FRAGSTATS 4.2 acronyms and units)</p><ul>{}</ul>".format("".join(rows)))
    parts.append("<p><b>Command line</b>: <code>{}</code></p>".format(command["usage"].replace("usage: ", "")))
    return "".join(parts)


def help_url(command):
    """The help button's page: the operation's manual page (`manual` in `lsm
    --describe`), installed with the plugin (lsm_provider/docs) or in the
    source tree beside it, rendered from Markdown to HTML (Qt's Markdown
    reader) so that the browser shows a page, not its source."""
    here = os.path.dirname(os.path.abspath(__file__))
    page = command.get("manual") or "QGIS.md"
    for docs in (os.path.join(here, "docs"), os.path.join(here, "..", "..", "..", "docs")):
        path = os.path.normpath(os.path.join(docs, page))
        if os.path.exists(path):
            return "file://" + rendered_page(path)
    return ""


def rendered_page(markdown_path):
    """An HTML rendering of a Markdown page, in QGIS's temporary folder (the
    images it links stay beside the Markdown: their paths are made absolute)."""
    from qgis.core import QgsProcessingUtils
    from qgis.PyQt.QtGui import QTextDocument

    with open(markdown_path, encoding="utf-8") as f:
        text = f.read()
    folder = os.path.dirname(markdown_path)
    text = re.sub(r"\]\((images/[^)]+)\)", lambda m: "](" + os.path.join(folder, m.group(1)) + ")", text)
    document = QTextDocument()
    document.setMarkdown(text)
    html_path = os.path.join(QgsProcessingUtils.tempFolder(),
                             "lsm_help_" + os.path.splitext(os.path.basename(markdown_path))[0] + ".html")
    with open(html_path, "w", encoding="utf-8") as f:
        f.write(document.toHtml())
    return html_path


# The provider's own field of the table commands: whether the tables are
# added to the project. QGIS 3.22 hands an algorithm its file outputs as bare
# paths, in the dialog and in a batch row alike, whatever "Open output file
# after running algorithm" or "Load layers on completion" say: this field is
# what a batch unticks.
LOAD_TABLES = "LOAD_TABLES"


def loads_tables(algorithm, parameters, context, output_value):
    """Whether the run adds its tables to the project: LOAD_TABLES ticked, and
    not an output definition that names no project (the API's "do not load")."""
    if isinstance(output_value, QgsProcessingOutputLayerDefinition) and output_value.destinationProject is None:
        return False
    return algorithm.parameterAsBoolean(parameters, LOAD_TABLES, context)


class LsmAlgorithm(QgsProcessingAlgorithm):
    def __init__(self, command, catalogue=None):
        super().__init__()
        self.command = command
        self.catalogue = catalogue or []
        self.options = [o for o in command["parameters"] if o["name"] not in HIDDEN]

    def createInstance(self):  # noqa: N802
        return LsmAlgorithm(self.command, self.catalogue)

    def name(self):
        return self.command["name"]

    def displayName(self):  # noqa: N802
        return self.command.get("title") or self.command["name"]

    def group(self):
        return self.command.get("category") or "lsm"

    def groupId(self):  # noqa: N802
        return (self.command.get("category") or "lsm").lower().replace(" ", "_")

    def tags(self):
        """Words the toolbox search finds the algorithm by: its command, and
        for the metric commands every metric's acronym and name ("shannon",
        "edge density") and the field's words."""
        words = [self.command["name"], "lsm"] + self.command["summary"].lower().replace(",", " ").split()
        if self.command.get("category") == "Landscape metrics":
            words += ["fragstats", "landscape ecology", "landscape metrics", "fragmentation", "patch", "class"]
            words += [m["acronym"].lower() for m in self.catalogue] + [m["name"].lower() for m in self.catalogue]
        return sorted(set(words))

    def shortHelpString(self):  # noqa: N802
        return help_text(self.command, self.catalogue)

    def helpUrl(self):  # noqa: N802
        return help_url(self.command)

    def initAlgorithm(self, config=None):  # noqa: N802
        for option in self.options:
            self.addParameter(make_parameter(option))
        tables = table_prefix_option(self.command)
        if tables:
            self.addParameter(QgsProcessingParameterBoolean(LOAD_TABLES, "Load the tables into the project",
                                                            defaultValue=True, optional=True))
        for table in tables["files"] if tables else []:  # the declared tables, one output each
            self.addOutput(QgsProcessingOutputFile(table["id"].upper() + "_TABLE", table["id"] + " table (CSV)"))

    def destinations(self, parameters, context):
        """The path of each output the run writes, by parameter name, asked
        of QGIS once: a temporary output ("[Save to temporary file]") gets a
        new file name each time it is asked for, so the command line and the
        results must share these."""
        paths = {}
        for option in self.options:
            name = parameter_name(option)
            param = self.parameterDefinition(name)
            if not (parameters.get(name) is not None or option["required"]):
                continue
            if isinstance(param, (QgsProcessingParameterRasterDestination, QgsProcessingParameterVectorDestination)):
                path = self.parameterAsOutputLayer(parameters, name, context)
            elif isinstance(param, (QgsProcessingParameterFileDestination, QgsProcessingParameterFolderDestination)):
                path = self.parameterAsFileOutput(parameters, name, context)
            else:
                continue
            if path:
                paths[name] = path
        return paths

    def arguments(self, parameters, context, destinations):
        """The lsm command line (without the binary) for these parameter
        values and output paths (`destinations`)."""
        positional, named = [], []
        for option in self.options:
            name = parameter_name(option)
            param = self.parameterDefinition(name)
            given = parameters.get(name) is not None
            if isinstance(param, QgsProcessingParameterRasterLayer):
                if not given and not option["required"]:
                    continue
                layer = self.parameterAsRasterLayer(parameters, name, context)
                if layer is None:
                    raise QgsProcessingException("no raster for " + name)
                values = [layer.source()]
            elif isinstance(param, QgsProcessingParameterFeatureSource):
                if not given:
                    continue
                path, layer_name = self.parameterAsCompatibleSourceLayerPathAndLayerName(
                    parameters, name, context, ["gpkg", "shp", "geojson", "fgb"], "gpkg")
                if not path:
                    raise QgsProcessingException("no vector layer for " + name)
                values = [path]
                layer_option = option["name"] + "-layer"  # zones-layer: which layer of a GeoPackage with several
                if layer_name and any(o["name"] == layer_option for o in self.options):
                    named += ["--" + layer_option, layer_name]
            elif isinstance(param, QgsProcessingParameterField):
                fields = self.parameterAsFields(parameters, name, context)
                if not fields:
                    continue
                values = [fields[0]]
            elif option["output"]:
                if name not in destinations:
                    continue
                path = destinations[name]
                values = [re.sub(r"\.csv$", "", path) if option["output"] == "table-prefix" else path]
            elif not given:
                continue
            elif isinstance(param, QgsProcessingParameterEnum):
                # QGIS 3.22 records a multi-choice left at its default as ''
                # (dialog, History, batches): no choice, so lsm's default (all).
                chosen = [c for c in self.parameterAsEnumStrings(parameters, name, context) if c]
                if not chosen:
                    continue
                values = [",".join(chosen)] if option.get("list") else [chosen[0]]
            elif isinstance(param, QgsProcessingParameterBoolean):
                if self.parameterAsBoolean(parameters, name, context):
                    named.append("--" + option["name"])
                continue
            elif isinstance(param, QgsProcessingParameterBand):
                values = [str(self.parameterAsInt(parameters, name, context))]
            elif isinstance(param, QgsProcessingParameterNumber):
                number = self.parameterAsDouble(parameters, name, context)
                values = [str(int(number)) if option["type"] == "integer" else repr(number)]
            else:
                text = self.parameterAsString(parameters, name, context)
                if not text:
                    continue
                values = [v.strip() for v in text.split(";")] if option["multiple"] else [text]
            if option["positional"]:
                positional.append((option["positional"], values[0]))
            else:
                for v in values:
                    named += ["--" + option["name"], v]
        return [self.command["name"]] + [v for _, v in sorted(positional)] + named

    def processAlgorithm(self, parameters, context, feedback):  # noqa: N802
        destinations = self.destinations(parameters, context)
        args = self.arguments(parameters, context, destinations)
        feedback.pushCommandInfo(" ".join([lsm_binary()] + args))
        progress = {"text": ""}
        errors = []

        # The pipes hand over chunks, not lines: a line cut between two
        # chunks is held until its end comes (else "lsm: error: " and its
        # message arrive as two lines, and the error shown is empty).
        unfinished = {"stdout": "", "stderr": ""}

        def whole_lines(stream, text):
            lines = (unfinished[stream] + text).split("\n")
            unfinished[stream] = lines.pop()
            return lines

        def on_stdout_line(line):
            if line:
                feedback.pushInfo(line)

        def on_stderr_line(line):
            # A message may follow the progress on its line.
            line = re.sub(r"^[\d.]+(\s*-\s*done\.)?(?=lsm: |$)", "", line.rstrip("\r"))
            if line.startswith("lsm: error: "):
                errors.append(line[len("lsm: error: "):])
            elif line:
                feedback.pushWarning(line)

        def on_stdout(data):
            for line in whole_lines("stdout", bytes(data).decode("utf-8", "replace")):
                on_stdout_line(line)

        def on_stderr(data):
            # GDAL-style progress (0...10...20 ... 100 - done.) drives the
            # bar; lsm's error line becomes the algorithm's one error message
            # (the exception below); notes and warnings go to the log.
            text = bytes(data).decode("utf-8", "replace")
            progress["text"] = (progress["text"] + text)[-4096:]
            steps = re.findall(r"(\d+)(?=\.\.\.|\s*-\s*done)", progress["text"])
            if steps:
                feedback.setProgress(int(steps[-1]))
            for line in whole_lines("stderr", text):
                on_stderr_line(line)

        process = QgsBlockingProcess(lsm_binary(), args)
        process.setStdOutHandler(on_stdout)
        process.setStdErrHandler(on_stderr)
        code = process.run(feedback)
        on_stdout_line(unfinished["stdout"])  # a last line without its end
        on_stderr_line(unfinished["stderr"])
        if feedback.isCanceled():
            raise QgsProcessingException("cancelled: the lsm process was ended")
        if code != 0:
            raise QgsProcessingException(self.in_dialog_words(errors[-1]) if errors else
                                         "lsm {} failed (exit code {})".format(self.name(), code))
        return self.results(parameters, context, args, destinations)

    def in_dialog_words(self, message):
        """lsm's error line with its option spellings ("--buffer needs
        --zones") as the dialog's field titles ("Buffer radius (m)" needs
        "Zones"): the user of the dialog never saw the options. Longest
        names first, so that --zones-out is not read as --zones."""
        for option in sorted(self.options, key=lambda o: -len(o["name"])):
            message = re.sub(r"--{}(?![\w-])".format(re.escape(option["name"])),
                             '"{}"'.format(field_title(option)), message)
        return message

    def layer_title(self, option, parameters, context):
        """The output's title and the required choices that say what it
        holds: "Patch metric AREA"."""
        chosen = [self.parameterAsEnumString(parameters, parameter_name(o), context) for o in self.options
                  if o["required"] and o["choices"] and not o["output"] and not o.get("list")]
        return " ".join([field_title(option)] + [c for c in chosen if c])

    def input_path(self, parameters, context):
        layer = self.parameterAsRasterLayer(parameters, "INPUT", context) if "INPUT" in parameters else None
        return layer.source() if layer else ""

    def input_name(self, parameters, context):
        return os.path.splitext(os.path.basename(self.input_path(parameters, context)))[0]

    def results(self, parameters, context, args, destinations):
        results = {}
        source = self.input_name(parameters, context)
        for option in self.options:
            name = parameter_name(option)
            if option["output"] in ("raster", "vector", "file", "folder"):
                param = self.parameterDefinition(name)
                path = destinations.get(name, "")
                results[name] = path
                if isinstance(param, (QgsProcessingParameterRasterDestination, QgsProcessingParameterVectorDestination)):
                    # "augusta_nlcd — Patch IDs", drawn as the declaration says.
                    if path and context.willLoadLayerOnCompletion(path):
                        details = context.layerToLoadOnCompletionDetails(path)
                        details.name = " — ".join(t for t in (source, self.layer_title(option, parameters, context)) if t)
                        processor = (class_style_for(self.input_path(parameters, context)) if option["output"] == "vector"
                                     else style_for_output(option.get("style")))
                        if processor:
                            details.setPostProcessor(processor)
        tables = table_prefix_option(self.command)
        if tables:
            prefix = args[args.index("--" + tables["name"]) + 1]
            results["OUTPUT"] = prefix
            for table in tables["files"]:
                path = prefix + table["suffix"]
                if os.path.exists(path):
                    results[table["id"].upper() + "_TABLE"] = path
                    title = TABLE_TITLES.get(table["id"], table["description"])
                    layer = table_layer(path, " — ".join(t for t in (source or os.path.basename(prefix), title) if t))
                    if layer.isValid() and loads_tables(self, parameters, context,
                                                        parameters.get(parameter_name(tables))):
                        context.temporaryLayerStore().addMapLayer(layer)
                        context.addLayerToLoadOnCompletion(
                            layer.id(), QgsProcessingContext.LayerDetails(layer.name(), context.project(),
                                                                          parameter_name(tables)))
        return results
