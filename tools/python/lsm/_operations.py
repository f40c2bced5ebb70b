"""A Python function per lsm operation, rendered from its declaration.

``lsm.<operation>(positional..., keyword=value, ..., progress=None)`` takes
the operation's parameters (positional as on the command line), checks them
as the command line does and runs the operation with the GIL released.
Inputs take paths, open rasterio/GDAL datasets or numpy arrays (written to a
temporary GeoTIFF with 1 m cells). An output given a path is written there
and its path returned; a required output left out is written to a temporary
folder and returned as objects: a raster as a numpy array, a table as a
pandas DataFrame, JSON as a dict, a .npy file as an array, a vector layer as
a GeoDataFrame (geopandas). One output gives its value; several a dict by
parameter keyword.
"""
import inspect
import json
import os
import shutil
import tempfile

import numpy

from . import _arrays, _declarations, _lsm, _runs


def load(path, media_type):
    """The object a written file holds, by its media type."""
    if media_type == "text/csv":
        import pandas

        return pandas.read_csv(path, float_precision="round_trip")  # exact: the engine writes shortest round-trip numbers
    if media_type == "application/json":
        with open(path) as f:
            return json.load(f)
    if path.endswith(".npy"):
        return numpy.load(path)
    if media_type.startswith("image/tiff") or path.endswith(".tif"):
        return _lsm.read_raster(path)[0]
    if path.endswith((".gpkg", ".shp", ".geojson")):
        try:
            import geopandas
        except ImportError:
            raise ImportError("loading a vector layer needs geopandas: give the output a path instead") from None
        return geopandas.read_file(path)
    return path


def written(p, target, folder_made):
    """What output parameter ``p`` wrote at ``target``: paths, or loaded objects for a temporary one."""
    found = {}
    for f in p["files"]:
        path = target + f["suffix"] if p["output"] == "table-prefix" else target
        if p["output"] == "folder":
            for name in sorted(os.listdir(target)) if os.path.isdir(target) else []:
                found[name] = os.path.join(target, name) if not folder_made else load(os.path.join(target, name), "")
            continue
        if os.path.exists(path):
            found[f["id"]] = path if not folder_made else load(path, f["media_type"])
        if p["output"] != "table-prefix":
            break  # the argument is the file itself
    if p["output"] in ("raster", "file", "vector") and len(found) == 1:
        return next(iter(found.values()))
    return found


def make_function(declaration):
    command = declaration.command
    parameters = command["parameters"]
    positional = sorted((p for p in parameters if p["positional"]), key=lambda p: p["positional"])
    outputs = [p for p in parameters if p["output"]]

    def run(*args, progress=None, **kwargs):
        if len(args) > len(positional):
            raise TypeError("%s() takes %d positional arguments (%s), %d given" % (
                command["name"], len(positional), ", ".join(_declarations.keyword(p["name"]) for p in positional), len(args)))
        given = {}
        for p, value in zip(positional, args):
            given[_declarations.keyword(p["name"])] = value
        for name, value in kwargs.items():
            p = declaration.parameter(name)
            if p is None:
                raise declaration.unknown_keyword(name, command["name"] + "()")
            canonical = _declarations.keyword(p["name"])
            if canonical in given:
                raise TypeError("%s() got multiple values for argument '%s'" % (command["name"], canonical))
            given[canonical] = value
        scratch = tempfile.mkdtemp(prefix="lsm-python-")
        try:
            pairs, hidden, temporary = [], [scratch], {}
            for name, value in given.items():
                p = declaration.parameter(name)
                if p["input"] == "raster":
                    value = [raster_path(v, scratch) for v in value] if isinstance(value, (list, tuple)) else \
                        raster_path(value, scratch)
                pairs += declaration.texts(name, value)
            for p in outputs:  # a needed output not given goes to the scratch folder, and comes back as objects
                name = _declarations.keyword(p["name"])
                if name not in given and needed(p, command, given):
                    suffix = "" if p["output"] in ("table-prefix", "folder") else p["files"][0]["suffix"]
                    temporary[name] = os.path.join(scratch, name.replace("_", "-") + suffix)
                    pairs += declaration.texts(name, temporary[name])
            callback = _runs.progress_callback(progress, command["name"])
            with _declarations.python_spelling(declaration):
                notes = _lsm.run_operation(command["name"], pairs, callback)
            _runs.pass_on_notes(notes, hidden)
            results = {}
            for p in outputs:
                name = _declarations.keyword(p["name"])
                if name in temporary:
                    results[name] = written(p, temporary[name], True)
                elif name in given:
                    results[name] = written(p, os.fspath(given[name]), False)
            if len(results) == 1:
                return next(iter(results.values()))
            return results or None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    run.__name__ = run.__qualname__ = command["name"]
    run.__doc__ = "%s.\n\n%s\n\nParameters\n----------\n%s\nprogress : bool or callable\n    True for a progress " \
                  "bar, or a callable taking the fraction done (0 to 1).\n\nSee docs/%s." % (
                      command["summary"][:1].upper() + command["summary"][1:], __doc__.split("\n\n")[1],
                      "\n".join(_declarations.described(p) for p in parameters), command["manual"])
    signature = []
    for p in positional:
        required = p["required"] and not p["output"]  # an output left out comes back as objects
        signature.append(inspect.Parameter(_declarations.keyword(p["name"]), inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                           default=inspect.Parameter.empty if required else None))
    for p in parameters:
        if not p["positional"]:
            default = p["default"] if p["default"] is not None else None
            signature.append(inspect.Parameter(_declarations.keyword(p["name"]), inspect.Parameter.KEYWORD_ONLY,
                                               default=default))
    signature.append(inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=None))
    run.__signature__ = inspect.Signature(signature)
    return run


def needed(p, command, given):
    """Whether output ``p`` must be given: it is required, or one of two of a
    rule (pyramid's output or overviews) whose other one is not given."""
    if p["required"]:
        return True
    for rule in command["rules"]:
        if rule["kind"] == "one-of" and p["name"] in rule["parameters"]:
            other = [n for n in rule["parameters"] if n != p["name"]][0]
            if _declarations.keyword(other) not in given:
                return True
    return False


def raster_path(value, scratch):
    """The path the engine reads for an input raster: a path as is, a
    dataset's file, an array written to a GeoTIFF in ``scratch``."""
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    if _arrays.is_dataset(value):
        path = _arrays.dataset_path(value)
        if path is not None:
            return path
        value, res, nodata = _arrays.dataset_array(value, 1)
    else:
        res, nodata = (1.0, 1.0), None
    array = numpy.asarray(value)
    path = os.path.join(scratch, "array-%d.tif" % len(os.listdir(scratch)))
    _lsm.write_raster(path, array, res, nodata)
    return path


def functions():
    """Every operation's function, by name."""
    return {name: make_function(d) for name, d in _declarations.operations().items()}
