"""Dialog widgets for choices that carry labels (`choice_labels` in
`lsm --describe`): the dialog shows "8 — edges and corners, FRAGSTATS'
default" while the parameter keeps the value itself ("8"), which is what
qgis_process, scripts and models pass. QGIS 3.22's own enum widget shows
either its options or their indices, never a label beside a stored value,
so these wrappers are attached through the parameter's 'widget_wrapper'
metadata (the mechanism of Processing's own GDAL algorithms).
"""
from qgis.core import QgsProcessingParameterDefinition
from qgis.gui import QgsGui
from qgis.PyQt.QtWidgets import QComboBox

from processing.gui.MultipleInputPanel import MultipleInputPanel
from processing.gui.wrappers import WidgetWrapper

SEPARATOR = " — "


def shown_text(value, label):
    return value + SEPARATOR + label if label else value


def in_modeler(dialog):
    return dialog.__class__.__name__ == "ModelerParametersDialog"


def modeler_widget(parameter, dialog):
    """QGIS's own widget of a model step's parameter: it binds the value to a
    model input or another step's output, which a plain drop-down cannot."""
    widget = QgsGui.processingGuiRegistry().createModelerParameterWidget(dialog.model, dialog.childId, parameter,
                                                                         dialog.context)
    widget.setDialog(dialog)
    return widget


class ModelerAware:
    """In the modeler, the wrapper is QGIS's modeler widget instead (the
    labels then show in the help), so that labelled choices can be bound to
    model inputs like any other parameter."""

    def __new__(cls, parameter, dialog, *args, **kwargs):
        if in_modeler(dialog):
            return modeler_widget(parameter, dialog)
        return super().__new__(cls)


class LabelledChoiceWrapper(ModelerAware, WidgetWrapper):
    """One choice: a drop-down of "value — label", storing the value."""

    def createWidget(self, labels=None):  # noqa: N802 (Processing's API)
        combo = QComboBox()
        parameter = self.parameterDefinition()
        if parameter.flags() & QgsProcessingParameterDefinition.FlagOptional:
            combo.addItem(self.tr("[not set]"), None)
        for value, label in zip(parameter.options(), labels or []):
            combo.addItem(shown_text(value, label), value)
        combo.currentIndexChanged.connect(lambda _: self.widgetValueHasChanged.emit(self))
        return combo

    def setValue(self, value):  # noqa: N802
        if isinstance(value, list):
            value = value[0] if value else None
        index = self.widget.findData(None if value is None else str(value))
        if index >= 0:
            self.widget.setCurrentIndex(index)

    def value(self):
        return self.widget.currentData()


class LabelledChoicesWrapper(ModelerAware, WidgetWrapper):
    """Several choices (a comma-separated subset, as --metrics): a list of
    "value — label" to tick, storing the values."""

    def createWidget(self, labels=None):  # noqa: N802
        options = [(value, shown_text(value, label))
                   for value, label in zip(self.parameterDefinition().options(), labels or [])]
        panel = MultipleInputPanel(options=options)
        panel.selectionChanged.connect(lambda: self.widgetValueHasChanged.emit(self))
        return panel

    def setValue(self, value):  # noqa: N802
        if value is None:
            value = []
        elif not isinstance(value, list):
            value = [v for v in str(value).split(",") if v]
        self.widget.setSelectedItems([str(v) for v in value])

    def value(self):
        return list(self.widget.selectedoptions)


def attach_labels(parameter, labels, several):
    """Makes Processing's dialogs show `labels` beside the choices of `parameter`."""
    if not labels:
        return
    wrapper = LabelledChoicesWrapper if several else LabelledChoiceWrapper
    metadata = parameter.metadata()
    metadata["widget_wrapper"] = {"class": wrapper, "labels": list(labels)}
    parameter.setMetadata(metadata)
