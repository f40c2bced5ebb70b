"""Where the lsm binary is: $LSM_BINARY, else the one installed with this
plugin (written by `cmake --install` into installed_binary.txt), else the
lsm on PATH."""
import os
import shutil


def lsm_binary():
    path = os.environ.get("LSM_BINARY")
    if path:
        return path
    recorded = os.path.join(os.path.dirname(__file__), "installed_binary.txt")
    if os.path.exists(recorded):
        with open(recorded, encoding="utf-8") as f:
            path = f.read().strip()
        if path and os.path.exists(path):
            return path
    return shutil.which("lsm") or "lsm"
