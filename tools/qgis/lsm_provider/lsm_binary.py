"""Where the lsm binary is: $LSM_BINARY, else the path set in QGIS's
Processing options (Settings > Options > Processing > Providers > lsm >
"lsm executable"), else the one installed with this plugin (written by
`cmake --install` into installed_binary.txt), else the lsm on PATH."""
import os
import shutil

# The name of the Processing setting that holds the path of lsm.
BINARY_SETTING = "LSM_EXECUTABLE"


def configured_binary():
    """The path set in the Processing options, or ''."""
    try:
        from processing.core.ProcessingConfig import ProcessingConfig
    except ImportError:  # outside QGIS's Processing (a plain Python)
        return ""
    return ProcessingConfig.getSetting(BINARY_SETTING) or ""


def lsm_binary():
    path = os.environ.get("LSM_BINARY") or configured_binary()
    if path:
        return path
    recorded = os.path.join(os.path.dirname(__file__), "installed_binary.txt")
    if os.path.exists(recorded):
        with open(recorded, encoding="utf-8") as f:
            path = f.read().strip()
        if path and os.path.exists(path):
            return path
    return shutil.which("lsm") or "lsm"
