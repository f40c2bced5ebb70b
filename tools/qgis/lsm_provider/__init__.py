"""QGIS plugin entry point of the lsm Processing provider."""


def classFactory(iface):  # noqa: N802 (QGIS's name)
    from .plugin import LsmPlugin
    return LsmPlugin(iface)
