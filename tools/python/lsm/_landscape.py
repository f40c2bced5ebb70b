"""lsm.Landscape: FRAGSTATS' patch, class and landscape metrics as DataFrames."""
import os

import numpy

from . import _arrays, _declarations, _lsm, _runs


class Landscape:
    """A categorical raster as FRAGSTATS sees it: patches of cells of one class.

    ``raster`` is a 2-D numpy array of class codes (read in place when it is
    uint8, uint16, int16 or int32 with contiguous rows), a raster's path (any
    format GDAL reads), or an open rasterio or GDAL dataset. ``res`` is an
    array's cell size in metres, (x, y) or one number (default 1); a file
    gives its own. ``nodata``: cells of this value are outside the landscape
    (a file's own nodata value by default). ``neighbours``: the patch
    neighbour rule, 8 (FRAGSTATS' default) or 4. ``background``: a class
    inside the landscape that forms no patch. ``class_names``: {code: name}
    for the tables' NAME column (a file's attribute table gives its own).

    Further keywords are those of ``lsm metrics`` (``edge_depth``,
    ``gyrate``, ``core_areas``, ``boundary_edge``, ``max_richness``,
    ``class_descriptors``, ``band``, ``backend``, ``memory_limit`` ...):
    they are listed below. ``metrics`` given here is the methods' default
    selection. ``progress``: True for a progress bar, or a callable taking
    the fraction done.

    Tables are computed on first use, every level in one run, and kept.
    Raises ValueError for a bad value (the command line's message), TypeError
    for an unknown keyword or an array of no numbers, OSError for a file that
    cannot be read.
    """

    def __init__(self, raster, res=None, nodata=None, neighbours=None, background=None, class_names=None,
                 progress=None, **options):
        declaration = _declarations.landscape()
        self._declaration = declaration
        self._progress = progress
        if neighbours is not None:
            options["neighbors"] = neighbours
        options.update(nodata=nodata, background=background)
        input_keyword = _declarations.keyword(next(p["name"] for p in declaration.command["parameters"] if p["input"]))
        self._array = None
        self._res = None
        band = options.get("band") or 1
        if isinstance(raster, (str, os.PathLike)):
            path = os.fspath(raster)
        elif _arrays.is_dataset(raster):
            path = _arrays.dataset_path(raster)
            if path is None:  # a dataset in memory: its cells
                raster, res, own_nodata = _arrays.dataset_array(raster, band)
                if nodata is None:
                    options.update(nodata=own_nodata)
        else:
            path = None
        if path is not None:
            if res is not None:
                raise ValueError("res is an array's cell size; the raster %r has its own" % path)
            options[input_keyword] = path
        else:
            self._array = _arrays.class_codes(raster)
            self._res = cell_size(res)
        self._pairs = self._pairs_of(**options)
        declaration.check(self._pairs)
        self._class_names = dict(class_names) if class_names else None
        self._results = {}

    def _pairs_of(self, **options):
        """The engine's (parameter, text) pairs of keyword values (None: not given)."""
        pairs = []
        for name, value in options.items():
            if self._declaration.parameter(name) is None:
                raise self._declaration.unknown_keyword(name, "Landscape()")
            pairs += self._declaration.texts(name, value)
        return pairs

    @property
    def shape(self):
        """(rows, columns) of an array; None for a file until its first table."""
        return self._array.shape if self._array is not None else self._results.get("shape")

    def _run(self, metrics=None, patch_ids=False):
        """The engine's tables for the metrics selected (None: all), computed once."""
        selection = None if metrics is None else (metrics if isinstance(metrics, str) else ",".join(metrics))
        key = (selection, patch_ids)
        if key not in self._results:
            pairs = list(self._pairs) + self._pairs_of(metrics=selection)
            callback = _runs.progress_callback(self._progress, "lsm")
            with _declarations.python_spelling(self._declaration):
                result = _lsm.landscape(pairs, self._array, self._res or (1.0, 1.0), patch_ids, callback)
            _runs.pass_on_notes(result.pop("notes"))
            if self._class_names is not None:
                result["class_names"] = self._class_names
            self._results[key] = result
        return self._results[key]

    def _table(self, level, metrics, tidy):
        import pandas

        result = self._run(metrics)
        table = result[level]
        frame = pandas.DataFrame(table["values"], columns=table["columns"])
        names = result["class_names"]
        if level == "patch":
            frame.insert(0, "PID", table["pid"].astype(numpy.int64))
            frame.insert(1, "TYPE", table["type"].astype(numpy.int64))
        elif level == "class":
            frame.insert(0, "TYPE", table["type"].astype(numpy.int64))
            if names:
                frame.insert(1, "NAME", [names.get(t, "") for t in table["type"]])
        if metrics is not None and not table["columns"]:
            raise ValueError("metrics %r selects no %s metric" % (metrics, "landscape" if level == "land" else level))
        if tidy:
            return tidy_frame(frame, level, table["columns"], names)
        return frame

    def patch_metrics(self, metrics=None, tidy=False):
        """The patch table: PID, TYPE (class code) and a column per patch metric
        (FRAGSTATS acronyms and units, as PREFIX.patch.csv), one row per patch.
        ``metrics``: acronyms (list or comma-separated), default all.
        ``tidy``: landscapemetrics' long layout (level, class, id, metric, value)."""
        return self._table("patch", metrics, tidy)

    def class_metrics(self, metrics=None, tidy=False):
        """The class table: TYPE, NAME (where classes have names) and a column per
        class metric, one row per class in ascending code (as PREFIX.class.csv)."""
        return self._table("class", metrics, tidy)

    def landscape_metrics(self, metrics=None, tidy=False):
        """The landscape table: one row, a column per landscape metric (as PREFIX.land.csv)."""
        return self._table("land", metrics, tidy)

    def labels(self):
        """The patch IDs of every cell (uint32, PIDs of the patch table; 0 =
        nodata and background), as ``lsm label`` writes them."""
        selection = next(m["acronym"] for m in _declarations.metric_catalogue() if "patch" in m["levels"]
                         and not m["second_pass"])  # the cheapest run: no second pass
        return self._run(selection, patch_ids=True)["patch_ids"]

    def adjacency(self):
        """FRAGSTATS' class adjacency matrix (as PREFIX.adj.csv): shared cell
        sides between each pair of classes, double counted; a DataFrame
        indexed by class code with a column per class code."""
        import pandas

        result = self._run(None)
        frame = pandas.DataFrame(result["adjacency"], index=result["adjacency_classes"],
                                 columns=result["adjacency_classes"])
        frame.index.name = "TYPE"
        return frame

    def __repr__(self):
        what = "array %s" % (self._array.shape,) if self._array is not None else "raster"
        return "<lsm.Landscape of an %s>" % what


def cell_size(res):
    """(x, y) in metres of ``res`` (None: 1 m; a number: square cells)."""
    if res is None:
        return (1.0, 1.0)
    if isinstance(res, (int, float)):
        return (float(res), float(res))
    x, y = res
    return (float(x), float(y))


def tidy_frame(frame, level, columns, names):
    """landscapemetrics' long layout of a table, as PREFIX.tidy.csv writes it:
    level, class, [name], id, metric, value; row by row, a line per column."""
    import pandas

    rows, width = len(frame), len(columns)
    absent = pandas.array([pandas.NA] * rows * width, dtype="Int64")
    long = {"level": numpy.repeat({"patch": "patch", "class": "class", "land": "landscape"}[level], rows * width)}
    long["class"] = numpy.repeat(frame["TYPE"].to_numpy(), width) if "TYPE" in frame else absent
    if names:
        long["name"] = ([names.get(t, "") for t in numpy.repeat(frame["TYPE"].to_numpy(), width)]
                        if "TYPE" in frame else numpy.repeat("", rows * width))
    long["id"] = numpy.repeat(frame["PID"].to_numpy(), width) if "PID" in frame else absent
    long["metric"] = numpy.tile(numpy.asarray(columns, dtype=object), rows)
    long["value"] = frame[list(columns)].to_numpy(dtype=float).ravel() if width else numpy.zeros(0)
    return pandas.DataFrame(long)


# The keywords' list, from the declaration, as the operations' docstrings have it.
Landscape.__doc__ += "\n    Keywords\n    --------\n" + "\n".join(
    "    " + line for p in _declarations.landscape().command["parameters"] if not p["input"]
    for line in _declarations.described(p).split("\n"))
