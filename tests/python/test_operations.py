"""Every operation is a function of lsm, rendered from its declaration:
signatures, outputs as objects or paths, values equal to the command line's."""
import inspect
import os
import shutil

import numpy
import pandas
import pytest

import lsm

# One run of each operation on the sample raster: its arguments past the
# input, and the type of what it returns when no output is given. A new
# operation fails test_every_operation_is_covered until it is added here.
CALLS = {
    "metrics": ({"metrics": "CA,NP,SHDI"}, dict),
    "label": ({}, numpy.ndarray),
    "patches": ({}, "vector"),
    "patchmetric": ({"metric": "AREA"}, numpy.ndarray),
    "window": ({"metrics": "SHDI", "window_size": 5}, numpy.ndarray),
    "zonal": ({"grid": 100, "metrics": "CA"}, dict),
    "change": ({"later": "COPY", "metrics": "CA,SHDI"}, dict),
    "synth": ({"width": 40, "height": 30}, numpy.ndarray),
    "kmeans": ({"k": 3}, numpy.ndarray),
    "gradient": ({}, numpy.ndarray),
    "pyramid": ({}, dict),
    "hog": ({}, numpy.ndarray),
    "fuzzy": ({"seed_cell": "10,10"}, numpy.ndarray),
}


def test_every_operation_is_covered():
    assert sorted(CALLS) == sorted(lsm.operation_names())


@pytest.mark.parametrize("name", sorted(CALLS))
def test_signature_is_the_declaration(name):
    function = getattr(lsm, name)
    declared = lsm._declarations.operations()[name].command["parameters"]
    keywords = [p for p in inspect.signature(function).parameters if p != "progress"]
    assert sorted(keywords) == sorted(lsm._declarations.keyword(p["name"]) for p in declared)
    for p in declared:  # defaults as declared, help in the docstring
        parameter = inspect.signature(function).parameters[lsm._declarations.keyword(p["name"])]
        if p["default"] not in (None,) and not p["positional"]:
            assert parameter.default == p["default"]
        assert lsm._declarations.keyword(p["name"]) + " : " in function.__doc__


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_operation_runs_and_returns_objects(name, sample_raster, tmp_path):
    keywords, kind = CALLS[name]
    if keywords.get("later") == "COPY":  # a later date that is another file with the same cells
        shutil.copy(sample_raster, tmp_path / "later.tif")
        keywords = dict(keywords, later=tmp_path / "later.tif")
    if kind == "vector":
        pytest.importorskip("geopandas")
    args = () if name == "synth" else (sample_raster,)
    result = getattr(lsm, name)(*args, **keywords)
    if kind == "vector":
        assert len(result) > 0 and "AREA" in result.columns
        return
    assert isinstance(result, kind)
    if kind is numpy.ndarray:
        assert result.size > 0
    else:
        assert result and all(isinstance(v, (pandas.DataFrame, numpy.ndarray, str)) for v in result.values())


def test_an_output_given_a_path_returns_the_path_and_equals_the_command_line(run_cli, sample_raster, tmp_path):
    path = lsm.window(sample_raster, tmp_path / "py.tif", metrics="SHDI,PR", window_size=7)
    assert path == str(tmp_path / "py.tif") and os.path.exists(path)
    run_cli("window", sample_raster, tmp_path / "cli.tif", "--metrics", "SHDI,PR", "--window-size", "7")
    numpy.testing.assert_array_equal(lsm._lsm.read_raster(path)[0], lsm._lsm.read_raster(str(tmp_path / "cli.tif"))[0])
    tables = lsm.zonal(sample_raster, output=tmp_path / "z", grid=50, metrics="AREA,CA,SHDI")
    assert {"class", "land"} <= set(tables) and all(os.path.exists(p) for p in tables.values())


def test_objects_returned_equal_the_command_lines_files(run_cli, sample_raster, tmp_path):
    tables = lsm.metrics(sample_raster, metrics="CA,NP,SHDI,CONTAG")
    run_cli("metrics", sample_raster, "--output", tmp_path / "t", "--metrics", "CA,NP,SHDI,CONTAG")
    for level in ("class", "land", "adj"):
        pandas.testing.assert_frame_equal(tables[level], pandas.read_csv(tmp_path / ("t.%s.csv" % level),
                                                                        float_precision="round_trip"))


def test_an_array_is_an_input(sample_raster):
    codes = lsm._lsm.read_raster(sample_raster)[0]
    from_array = lsm.label(codes)
    from_file = lsm.label(sample_raster)
    numpy.testing.assert_array_equal(from_array, from_file)
    assert lsm.Landscape(codes).labels().max() == from_array.max()


def test_bad_values_get_the_command_lines_message_with_keywords(sample_raster):
    with pytest.raises(ValueError, match=r"^window_size"):
        lsm.window(sample_raster, metrics="SHDI", window_size=-3)
    with pytest.raises(ValueError, match="give window_size or window_cells"):
        lsm.window(sample_raster, metrics="SHDI")
    with pytest.raises(TypeError, match="did you mean window_size"):
        lsm.window(sample_raster, metrics="SHDI", windowsize=5)
    with pytest.raises(TypeError, match="positional"):
        lsm.label(sample_raster, "a.tif", "b.tif")
    with pytest.raises(ValueError, match="cannot open '/no/such/folder/no_such.tif'"):
        lsm.label("/no/such/folder/no_such.tif")
