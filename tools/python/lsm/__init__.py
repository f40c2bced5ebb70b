"""lsm: FRAGSTATS' landscape metrics at the speed of the hardware, from Python.

    import lsm
    land = lsm.Landscape("landcover.tif")          # or a numpy array, res=(30, 30)
    land.class_metrics(["CA", "PLAND", "ED"])      # a pandas DataFrame
    land.landscape_metrics()                       # every landscape metric
    land.labels()                                  # patch IDs, a numpy array

Every operation of the command line is a function with the same parameters
(keywords with '_' for '-'): ``help(lsm.window)``, ``lsm.operation_names()``.
The guide is docs/PYTHON.md.
"""
from . import _declarations, _lsm, _operations
from ._landscape import Landscape
from ._runs import LsmWarning

__version__ = _lsm.__version__

globals().update(_operations.functions())


def operation_names():
    """The operations, each a function of this module."""
    return list(_declarations.operations())


def metric_catalogue():
    """Every metric lsm computes: a list of dicts (acronym, name, family, levels, unit)."""
    return [dict(m) for m in _declarations.metric_catalogue()]


__all__ = ["Landscape", "LsmWarning", "metric_catalogue", "operation_names"] + operation_names()
