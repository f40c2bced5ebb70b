"""How lsm's results are drawn and loaded in QGIS.

Raster outputs carry a drawing hint in `lsm --describe` ("style"):
identifiers (patch IDs) get random colours, classes (K-means classes, masks,
neutral landscapes) one colour per value, continuous outputs (patch metrics,
gradients, connectivity) the viridis ramp over their range. The style is also
saved as OUTPUT.qml beside the raster, which any QGIS applies when it opens
the file. Tables load through the delimited-text provider so that their
header gives the field names and numeric columns are numbers.
"""
from qgis.core import (
    QgsColorRampShader,
    QgsPalettedRasterRenderer,
    QgsProcessingLayerPostProcessorInterface,
    QgsRandomColorRamp,
    QgsRasterBandStats,
    QgsRasterShader,
    QgsSingleBandPseudoColorRenderer,
    QgsStyle,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QUrl

# Above this many distinct values a paletted renderer is too slow to build
# and to draw; patch IDs then get a random ramp over their range instead.
MAX_PALETTE_VALUES = 65536


def categorical_renderer(layer, random_colours):
    provider = layer.dataProvider()
    ramp = QgsRandomColorRamp() if random_colours else QgsStyle.defaultStyle().colorRamp("Spectral")
    stats = provider.bandStatistics(1, QgsRasterBandStats.Min | QgsRasterBandStats.Max)
    if stats.maximumValue - stats.minimumValue + 1 <= MAX_PALETTE_VALUES:
        classes = QgsPalettedRasterRenderer.classDataFromRaster(provider, 1, ramp)
        if classes:
            return QgsPalettedRasterRenderer(provider, 1, classes)
    return ramp_renderer(layer, QgsRandomColorRamp(), discrete=True)


def ramp_renderer(layer, ramp, discrete=False):
    provider = layer.dataProvider()
    stats = provider.bandStatistics(1, QgsRasterBandStats.Min | QgsRasterBandStats.Max)
    shader_function = QgsColorRampShader(stats.minimumValue, stats.maximumValue, ramp)
    if discrete:
        shader_function.setColorRampType(QgsColorRampShader.Discrete)
    shader_function.classifyColorRamp(255 if not discrete else 64, 1, layer.extent(), provider)
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


def table_layer(path, name):
    """A CSV table of lsm as a layer without geometry: the header names the
    fields, numeric columns are numbers."""
    uri = QUrl.fromLocalFile(path).toString() + "?type=csv&delimiter=,&detectTypes=yes&geomType=none&useHeader=yes"
    return QgsVectorLayer(uri, name, "delimitedtext")
