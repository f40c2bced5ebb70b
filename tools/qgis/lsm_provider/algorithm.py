"""One lsm command as a Processing algorithm, its parameters generated from
the command's entry in `lsm --describe` (no hand-written parameter lists).

Parameter names are the option names in upper case with '-' as '_'
(--seed-radius is SEED_RADIUS); the input raster is INPUT and the main output
OUTPUT (for `metrics`, OUTPUT is the prefix of the tables, as --out).
The lsm binary runs as a separate process: its GDAL-style progress
(0...10...20...) drives the progress bar, its stderr goes to the log, and
cancelling ends the process.
"""
import os
import re

from qgis.core import (
    QgsBlockingProcess,
    QgsProcessing,
    QgsProcessingAlgorithm,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingOutputFile,
    QgsProcessingParameterBoolean,
    QgsProcessingParameterEnum,
    QgsProcessingParameterFileDestination,
    QgsProcessingParameterFolderDestination,
    QgsProcessingParameterNumber,
    QgsProcessingParameterRasterDestination,
    QgsProcessingParameterRasterLayer,
    QgsProcessingParameterString,
    QgsVectorLayer,
)

from .lsm_binary import lsm_binary

# Options the provider sets itself.
HIDDEN = {"quiet", "help"}
TABLE_SUFFIXES = ("patch", "class", "land", "tidy", "adj")


def parameter_name(option):
    if option["name"] == "input":
        return "INPUT"
    if option["output"] and option["positional"] or option["name"] in ("out", "outdir"):
        return "OUTPUT"
    return option["name"].upper().replace("-", "_")


def make_parameter(option):
    """The QgsProcessingParameter* for one option of the description: its
    title labels the dialog's field, its help is the field's tooltip."""
    parameter = make_bare_parameter(option)
    parameter.setHelp(option["help"])
    return parameter


def make_bare_parameter(option):
    name, text = parameter_name(option), option.get("title") or option["help"]
    optional = not option["required"]
    default = option["default"]
    kind = option["output"]
    if name == "INPUT":
        return QgsProcessingParameterRasterLayer(name, text, optional=optional)
    if kind == "table-prefix":
        return QgsProcessingParameterFileDestination(name, text, "CSV tables (*.csv)", optional=optional)
    if kind == "folder":
        return QgsProcessingParameterFolderDestination(name, text, optional=optional)
    if kind == "raster":
        return QgsProcessingParameterRasterDestination(name, text, optional=optional, createByDefault=not optional)
    if kind == "file":
        return QgsProcessingParameterFileDestination(name, text, "All files (*)", optional=optional,
                                                     createByDefault=not optional)
    if option["choices"]:
        values = [str(v) for v in option["choices"]]
        index = values.index(str(default)) if default is not None and str(default) in values else None
        # A required choice without a default (patchmetric's metric) must be picked.
        return QgsProcessingParameterEnum(name, text, values, defaultValue=index, optional=optional)
    if option["type"] == "flag":
        return QgsProcessingParameterBoolean(name, text, defaultValue=False, optional=True)
    if option["type"] in ("integer", "number"):
        kind = QgsProcessingParameterNumber.Integer if option["type"] == "integer" else QgsProcessingParameterNumber.Double
        parameter = QgsProcessingParameterNumber(name, text, kind, defaultValue=default,
                                                 optional=optional or default is None)
        # The declaration's range: the dialog refuses what lsm would.
        if option.get("minimum") is not None:
            parameter.setMinimum(option["minimum"])
        if option.get("maximum") is not None:
            parameter.setMaximum(option["maximum"])
        return parameter
    if option["multiple"]:
        text += " (several: separate them with ';')"
    return QgsProcessingParameterString(name, text, defaultValue=default, optional=optional or default is None)


class LsmAlgorithm(QgsProcessingAlgorithm):
    def __init__(self, command):
        super().__init__()
        self.command = command
        self.options = [o for o in command["parameters"] if o["name"] not in HIDDEN]

    def createInstance(self):  # noqa: N802
        return LsmAlgorithm(self.command)

    def name(self):
        return self.command["name"]

    def displayName(self):  # noqa: N802
        return "{} — {}".format(self.command["name"], self.command["summary"])

    def group(self):
        return "lsm"

    def groupId(self):  # noqa: N802
        return "lsm"

    def shortHelpString(self):  # noqa: N802
        return "{}\n\n{}".format(self.command["summary"], self.command["usage"])

    def initAlgorithm(self, config=None):  # noqa: N802
        for option in self.options:
            self.addParameter(make_parameter(option))
        if self.command["name"] == "metrics":
            for suffix in TABLE_SUFFIXES:
                self.addOutput(QgsProcessingOutputFile(suffix.upper() + "_TABLE", suffix + " table (CSV)"))

    def arguments(self, parameters, context):
        """The lsm command line (without the binary) for these parameter values."""
        positional, named = [], []
        for option in self.options:
            name = parameter_name(option)
            param = self.parameterDefinition(name)
            given = parameters.get(name) is not None
            if isinstance(param, QgsProcessingParameterRasterLayer):
                layer = self.parameterAsRasterLayer(parameters, name, context)
                if layer is None:
                    raise QgsProcessingException("no raster for " + name)
                values = [layer.source()]
            elif isinstance(param, QgsProcessingParameterRasterDestination):
                path = self.parameterAsOutputLayer(parameters, name, context) if given or option["required"] else ""
                if not path:
                    continue
                values = [path]
            elif isinstance(param, (QgsProcessingParameterFileDestination, QgsProcessingParameterFolderDestination)):
                path = self.parameterAsFileOutput(parameters, name, context) if given or option["required"] else ""
                if not path:
                    continue
                values = [re.sub(r"\.csv$", "", path) if option["output"] == "table-prefix" else path]
            elif not given:
                continue
            elif isinstance(param, QgsProcessingParameterEnum):
                values = [param.options()[self.parameterAsEnum(parameters, name, context)]]
            elif isinstance(param, QgsProcessingParameterBoolean):
                if self.parameterAsBoolean(parameters, name, context):
                    named.append("--" + option["name"])
                continue
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
        args = self.arguments(parameters, context)
        feedback.pushCommandInfo(" ".join([lsm_binary()] + args))
        progress = {"text": ""}

        def on_stdout(data):
            text = bytes(data).decode("utf-8", "replace")
            progress["text"] += text
            steps = re.findall(r"(\d+)(?=\.\.\.|\s*-\s*done)", progress["text"])
            if steps:
                feedback.setProgress(int(steps[-1]))
            for line in text.splitlines():
                if line and not re.match(r"^[\d.]+( - done\.)?$", line):
                    feedback.pushInfo(line)

        def on_stderr(data):
            for line in bytes(data).decode("utf-8", "replace").splitlines():
                if line:
                    feedback.reportError(line)

        process = QgsBlockingProcess(lsm_binary(), args)
        process.setStdOutHandler(on_stdout)
        process.setStdErrHandler(on_stderr)
        code = process.run(feedback)
        if feedback.isCanceled():
            raise QgsProcessingException("cancelled: the lsm process was ended")
        if code != 0:
            raise QgsProcessingException("lsm {} failed (exit code {}); see the log".format(self.name(), code))
        return self.results(parameters, context, args)

    def results(self, parameters, context, args):
        results = {}
        for option in self.options:
            name = parameter_name(option)
            if option["output"] in ("raster", "file", "folder"):
                param = self.parameterDefinition(name)
                if isinstance(param, QgsProcessingParameterRasterDestination):
                    results[name] = self.parameterAsOutputLayer(parameters, name, context)
                else:
                    results[name] = self.parameterAsFileOutput(parameters, name, context)
        if self.command["name"] == "metrics":
            prefix = args[args.index("--out") + 1]
            results["OUTPUT"] = prefix
            for suffix in TABLE_SUFFIXES:
                path = "{}.{}.csv".format(prefix, suffix)
                if os.path.exists(path):
                    results[suffix.upper() + "_TABLE"] = path
                    layer = QgsVectorLayer(path, "{} {}".format(os.path.basename(prefix), suffix), "ogr")
                    if layer.isValid():  # a CSV table in the project
                        context.temporaryLayerStore().addMapLayer(layer)
                        context.addLayerToLoadOnCompletion(
                            layer.id(), QgsProcessingContext.LayerDetails(layer.name(), context.project(), name))
        return results
