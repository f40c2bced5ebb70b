"""The lsm Processing provider: one algorithm per command of `lsm --describe`."""
import json
import os
import subprocess

from qgis.core import QgsMessageLog, QgsProcessingProvider, Qgis
from qgis.PyQt.QtGui import QIcon

from .algorithm import LsmAlgorithm
from .lsm_binary import BINARY_SETTING, lsm_binary


def describe():
    """The parsed `lsm --describe` document, or None with a log message."""
    try:
        out = subprocess.run([lsm_binary(), "--describe"], check=True, capture_output=True, text=True,
                             timeout=60).stdout
        return json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        QgsMessageLog.logMessage("cannot run '{} --describe': {}".format(lsm_binary(), e), "lsm", Qgis.Critical)
        return None


class LsmProvider(QgsProcessingProvider):
    def __init__(self):
        super().__init__()
        self.description = None

    def load(self):
        """Adds the provider's page to QGIS's Processing options: where lsm
        is (empty: $LSM_BINARY, the installed one, or PATH)."""
        try:
            from processing.core.ProcessingConfig import ProcessingConfig, Setting
        except ImportError:  # qgis_process without the Processing plugin's Python
            return super().load()
        ProcessingConfig.settingIcons[self.name()] = self.icon()
        ProcessingConfig.addSetting(Setting(self.name(), BINARY_SETTING, "lsm executable (empty: the installed lsm)",
                                            "", valuetype=Setting.FILE))
        ProcessingConfig.readSettings()
        self.refreshAlgorithms()
        return True

    def unload(self):
        try:
            from processing.core.ProcessingConfig import ProcessingConfig
            ProcessingConfig.removeSetting(BINARY_SETTING)
        except ImportError:
            pass

    def id(self):
        return "lsm"

    def name(self):
        return "lsm"

    def icon(self):
        return QIcon(os.path.join(os.path.dirname(__file__), "icon.svg"))

    def svgIconPath(self):  # noqa: N802
        return os.path.join(os.path.dirname(__file__), "icon.svg")

    def longName(self):  # noqa: N802
        version = self.description["version"] if self.description else "?"
        return "lsm {} (landscape metrics, image features, fuzzy connectedness)".format(version)

    def loadAlgorithms(self):  # noqa: N802
        self.description = describe()
        if not self.description:
            return
        for command in self.description["commands"]:
            self.addAlgorithm(LsmAlgorithm(command, self.description.get("metric_catalogue")))
