"""How lsm's results are drawn and loaded in QGIS.

Raster outputs carry a drawing hint in `lsm --describe` ("style"):
identifiers (patch IDs) get random colours, classes (K-means classes, masks,
neutral landscapes) one colour per value, continuous outputs (patch metrics,
gradients, connectivity) the viridis ramp over their range. The style is also
saved as OUTPUT.qml beside the raster, which any QGIS applies when it opens
the file. Tables load through the delimited-text provider so that their
header gives the field names and numeric columns are numbers. Vector outputs
with a TYPE field (patch polygons) are drawn one colour per class: the input
raster's colour table where it has one, labelled with the class names; zones
with their metrics (a ZONE field) in five quantile classes of one landscape
metric (SHDI where computed) on the viridis ramp.
"""
import os

from qgis.core import (
    QgsCategorizedSymbolRenderer,
    QgsClassificationQuantile,
    QgsGraduatedSymbolRenderer,
    QgsColorRampShader,
    QgsFeatureRequest,
    QgsLimitedRandomColorRamp,
    QgsPalettedRasterRenderer,
    QgsProcessingLayerPostProcessorInterface,
    QgsRandomColorRamp,
    QgsRasterBandStats,
    QgsRasterLayer,
    QgsRasterShader,
    QgsRendererCategory,
    QgsSingleBandPseudoColorRenderer,
    QgsStyle,
    QgsSymbol,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QUrl
from qgis.PyQt.QtGui import QColor

# Above this many distinct values a paletted renderer is too slow to build
# and to draw; patch IDs then get a random ramp over their range instead.
MAX_PALETTE_VALUES = 65536
# Colours of the random ramp drawn over a range of more patch IDs.
RANDOM_RAMP_COLOURS = 256


def categorical_renderer(layer, random_colours):
    provider = layer.dataProvider()
    ramp = QgsRandomColorRamp() if random_colours else QgsStyle.defaultStyle().colorRamp("Spectral")
    stats = provider.bandStatistics(1, QgsRasterBandStats.Min | QgsRasterBandStats.Max)
    if stats.maximumValue - stats.minimumValue + 1 <= MAX_PALETTE_VALUES:
        classes = QgsPalettedRasterRenderer.classDataFromRaster(provider, 1, ramp)
        if classes:
            return QgsPalettedRasterRenderer(provider, 1, classes)
    # A ramp of a fixed number of random colours: QgsRandomColorRamp has no
    # count, and classifying it gives no class at all (every cell drawn
    # transparent, as patch IDs past 65 536 were).
    return ramp_renderer(layer, QgsLimitedRandomColorRamp(RANDOM_RAMP_COLOURS), discrete=True)


def ramp_renderer(layer, ramp, discrete=False):
    provider = layer.dataProvider()
    stats = provider.bandStatistics(1, QgsRasterBandStats.Min | QgsRasterBandStats.Max)
    shader_function = QgsColorRampShader(stats.minimumValue, stats.maximumValue, ramp)
    if discrete:
        shader_function.setColorRampType(QgsColorRampShader.Discrete)
    shader_function.classifyColorRamp(255 if not discrete else RANDOM_RAMP_COLOURS, 1, layer.extent(), provider)
    shader = QgsRasterShader()
    shader.setRasterShaderFunction(shader_function)
    renderer = QgsSingleBandPseudoColorRenderer(provider, 1, shader)
    renderer.setClassificationMin(stats.minimumValue)
    renderer.setClassificationMax(stats.maximumValue)
    return renderer


class OutputStyle(QgsProcessingLayerPostProcessorInterface):
    """Applies one drawing hint to a loaded output and saves it as its .qml."""

    def __init__(self, style):
        super().__init__()
        self.style = style

    def postProcessLayer(self, layer, context, feedback):  # noqa: N802
        if not layer or not layer.isValid() or layer.type() != layer.RasterLayer:
            return
        if self.style == "identifiers":
            renderer = categorical_renderer(layer, random_colours=True)
        elif self.style == "classes":
            renderer = categorical_renderer(layer, random_colours=False)
        else:
            renderer = ramp_renderer(layer, QgsStyle.defaultStyle().colorRamp("Viridis"))
        layer.setRenderer(renderer)
        layer.triggerRepaint()
        layer.saveDefaultStyle()  # OUTPUT.qml beside the raster


def class_colours(raster_path):
    """The colour table of the raster's first band as {class code: QColor};
    empty when it has none."""
    layer = QgsRasterLayer(raster_path, "classes", "gdal")
    if not layer.isValid():
        return {}
    return {int(item.value): QColor(item.color) for item in layer.dataProvider().colorTable(1)}


def class_renderer(layer, colours):
    """One symbol per TYPE of `layer`, coloured from `colours` (else from the
    Spectral ramp) and labelled "code — NAME"."""
    fields = layer.fields()
    names = {}
    request = QgsFeatureRequest().setFlags(QgsFeatureRequest.NoGeometry)
    request.setSubsetOfAttributes([n for n in ("TYPE", "NAME") if fields.indexOf(n) >= 0], fields)
    for feature in layer.getFeatures(request):
        code = int(feature["TYPE"])
        if code not in names:
            names[code] = feature["NAME"] if fields.indexOf("NAME") >= 0 and feature["NAME"] else ""
    ramp = QgsStyle.defaultStyle().colorRamp("Spectral")
    categories = []
    for i, code in enumerate(sorted(names)):
        symbol = QgsSymbol.defaultSymbol(layer.geometryType())
        symbol.setColor(colours.get(code) or ramp.color(i / max(1, len(names) - 1)))
        symbol.symbolLayer(0).setStrokeColor(QColor(0, 0, 0, 70))  # patch outlines, faint
        label = "{} — {}".format(code, names[code]) if names[code] else str(code)
        categories.append(QgsRendererCategory(code, symbol, label))
    return QgsCategorizedSymbolRenderer("TYPE", categories)


def zone_renderer(layer):
    """Zones with their landscape metrics: five quantile classes of SHDI
    (else the first metric) on the viridis ramp; None without a metric."""
    metrics = [f.name() for f in layer.fields() if f.name() != "ZONE" and f.isNumeric()]
    if not metrics:
        return None
    field = "SHDI" if "SHDI" in metrics else metrics[0]
    renderer = QgsGraduatedSymbolRenderer(field)
    renderer.setSourceSymbol(QgsSymbol.defaultSymbol(layer.geometryType()))
    renderer.setClassificationMethod(QgsClassificationQuantile())
    renderer.updateClasses(layer, 5)
    renderer.updateColorRamp(QgsStyle.defaultStyle().colorRamp("Viridis"))
    return renderer


class ClassStyle(QgsProcessingLayerPostProcessorInterface):
    """Draws a vector output with a TYPE field one colour per class (the
    input's colour table where present) and saves that style with it."""

    def __init__(self, input_path):
        super().__init__()
        self.input_path = input_path

    def postProcessLayer(self, layer, context, feedback):  # noqa: N802
        if not layer or not layer.isValid() or layer.type() != layer.VectorLayer:
            return
        if layer.fields().indexOf("TYPE") >= 0:
            layer.setRenderer(class_renderer(layer, class_colours(self.input_path) if self.input_path else {}))
        elif layer.fields().indexOf("ZONE") >= 0 and zone_renderer(layer):
            layer.setRenderer(zone_renderer(layer))
        else:
            return
        layer.triggerRepaint()
        # OUTPUT.qml beside the output (not inside a GeoPackage: QGIS 3.22
        # writes that while the layer holds the file open, and SQLite refuses).
        path = layer.source().split("|")[0]
        layer.saveNamedStyle(os.path.splitext(path)[0] + ".qml")


# Processing keeps only a pointer to a post-processor: keep them alive here.
_kept = []


def style_for_output(style):
    """The post-processor of a raster output's drawing hint, or None."""
    if style not in ("identifiers", "classes", "continuous"):
        return None
    processor = OutputStyle(style)
    _kept.append(processor)
    del _kept[:-64]
    return processor


def class_style_for(input_path):
    """The post-processor that draws a vector output by class (TYPE)."""
    processor = ClassStyle(input_path)
    _kept.append(processor)
    del _kept[:-64]
    return processor


def table_layer(path, name):
    """A CSV table of lsm as a layer without geometry: the header names the
    fields, numeric columns are numbers."""
    uri = QUrl.fromLocalFile(path).toString() + "?type=csv&delimiter=,&detectTypes=yes&geomType=none&useHeader=yes"
    return QgsVectorLayer(uri, name, "delimitedtext")
