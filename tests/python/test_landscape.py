"""lsm.Landscape: its DataFrames against the command line's tables, hand
grids with known answers, arrays against files, labels, adjacency."""
import numpy
import pandas
import pandas.testing
import pytest

import lsm


def cli_tables(run_cli, raster, prefix, *options):
    run_cli("metrics", raster, "--output", prefix, *options)
    return {level: pandas.read_csv("%s.%s.csv" % (prefix, level), float_precision="round_trip") for level in ("patch", "class", "land")}


def assert_same(frame, csv):
    pandas.testing.assert_frame_equal(frame.reset_index(drop=True), csv, check_dtype=False, check_exact=True)


@pytest.mark.parametrize("options", [(), ("--neighbors", "4", "--edge-depth", "2", "--background", "3")])
def test_tables_equal_the_command_lines_on_the_sample(run_cli, sample_raster, tmp_path, options):
    csv = cli_tables(run_cli, sample_raster, tmp_path / "run", *options)
    keywords = {}
    for name, value in zip(options[::2], options[1::2]):
        keywords[name[2:].replace("-", "_")] = int(value)
    land = lsm.Landscape(sample_raster, **keywords)
    assert_same(land.patch_metrics(), csv["patch"])
    assert_same(land.class_metrics(), csv["class"])
    assert_same(land.landscape_metrics(), csv["land"])


def test_tables_equal_the_command_lines_on_augusta(run_cli, landcover, tmp_path):
    raster = "%s/lsm_augusta_nlcd.tif" % landcover
    csv = cli_tables(run_cli, raster, tmp_path / "augusta")
    land = lsm.Landscape(raster)
    assert_same(land.patch_metrics(), csv["patch"])
    assert_same(land.class_metrics(), csv["class"])
    assert_same(land.landscape_metrics(), csv["land"])
    adjacency = pandas.read_csv("%s.adj.csv" % (tmp_path / "augusta"), index_col=0, float_precision="round_trip")
    adjacency.columns = adjacency.columns.astype(int)
    pandas.testing.assert_frame_equal(land.adjacency(), adjacency, check_dtype=False)


def test_tidy_layout_equals_the_command_lines(run_cli, sample_raster, tmp_path):
    run_cli("metrics", sample_raster, "--output", tmp_path / "t", "--format", "tidy", "--metrics", "AREA,CA,NP,SHDI")
    csv = pandas.read_csv(tmp_path / "t.tidy.csv", float_precision="round_trip")
    land = lsm.Landscape(sample_raster)
    frames = [land.patch_metrics("AREA,CA,NP,SHDI", tidy=True), land.class_metrics("AREA,CA,NP,SHDI", tidy=True),
              land.landscape_metrics("AREA,CA,NP,SHDI", tidy=True)]
    ours = pandas.concat(frames, ignore_index=True)
    pandas.testing.assert_frame_equal(ours, csv, check_dtype=False)


def test_hand_grid_has_its_known_values():
    # Two classes on 30 m cells: class 1 an L of 3 cells and a lone cell
    # touching it by a corner (one patch under the 8-cell rule, two under 4).
    grid = numpy.array([[1, 1, 2, 2],
                        [1, 2, 1, 2],
                        [2, 2, 2, 2]], dtype=numpy.uint8)
    eight = lsm.Landscape(grid, res=30).class_metrics(["CA", "NP", "PLAND", "TE"])
    four = lsm.Landscape(grid, res=30, neighbours=4).class_metrics(["NP"])
    assert list(eight["TYPE"]) == [1, 2]
    assert list(eight["NP"]) == [1, 1]
    assert list(four["NP"]) == [2, 1]
    assert eight["CA"].tolist() == pytest.approx([4 * 900 / 1e4, 8 * 900 / 1e4])
    assert eight["PLAND"].tolist() == pytest.approx([100 * 4 / 12, 100 * 8 / 12])
    # Edge between classes 1 and 2 inside the landscape (the boundary does not count):
    # cell sides shared by a 1 and a 2, each 30 m.
    shared = sum(1 for y in range(3) for x in range(3) if grid[y, x] != grid[y, x + 1]) + \
        sum(1 for y in range(2) for x in range(4) if grid[y, x] != grid[y + 1, x])
    assert eight["TE"].tolist() == pytest.approx([shared * 30.0, shared * 30.0])
    patches = lsm.Landscape(grid, res=30).patch_metrics(["AREA"])
    assert patches["AREA"].tolist() == pytest.approx([0.36, 0.72])


def test_nodata_and_class_names_of_an_array():
    grid = numpy.array([[1, 1, 9], [9, 2, 2]], dtype=numpy.int16)
    land = lsm.Landscape(grid, res=(10, 20), nodata=9, class_names={1: "forest", 2: "water"})
    table = land.class_metrics(["CA", "NP"])
    assert table["NAME"].tolist() == ["forest", "water"]
    assert table["CA"].tolist() == pytest.approx([2 * 200 / 1e4, 2 * 200 / 1e4])
    assert land.landscape_metrics(["TA"])["TA"][0] == pytest.approx(4 * 200 / 1e4)


def test_every_in_place_dtype_and_converted_ones_give_one_answer(sample_raster):
    codes = lsm._lsm.read_raster(sample_raster)[0]
    expected = lsm.Landscape(codes.astype(numpy.int32), res=30).class_metrics()
    for dtype in (numpy.uint8, numpy.uint16, numpy.int16, numpy.int64, numpy.uint32, numpy.float32, numpy.float64):
        got = lsm.Landscape(codes.astype(dtype), res=30).class_metrics()
        pandas.testing.assert_frame_equal(got, expected, check_exact=True)
    strided = numpy.zeros((codes.shape[0], codes.shape[1] * 2), dtype=numpy.int32)
    strided[:, ::2] = codes  # columns apart in memory: copied once, same answer
    pandas.testing.assert_frame_equal(lsm.Landscape(strided[:, ::2], res=30).class_metrics(), expected)
    rows = numpy.zeros((codes.shape[0] * 2, codes.shape[1]), dtype=numpy.int32)
    rows[::2] = codes  # rows apart, each contiguous: read in place
    pandas.testing.assert_frame_equal(lsm.Landscape(rows[::2], res=30).class_metrics(), expected)


def test_an_array_equals_its_file_and_a_dataset_equals_its_path(sample_raster):
    codes, _ = lsm._lsm.read_raster(sample_raster)
    from_file = lsm.Landscape(sample_raster)
    from_array = lsm.Landscape(codes, res=30)  # the sample's cells are 30 m (its geotransform)
    pandas.testing.assert_frame_equal(from_array.class_metrics(), from_file.class_metrics(), check_exact=True)
    pandas.testing.assert_frame_equal(from_array.patch_metrics(), from_file.patch_metrics(), check_exact=True)
    rasterio = pytest.importorskip("rasterio")
    with rasterio.open(sample_raster) as dataset:
        pandas.testing.assert_frame_equal(lsm.Landscape(dataset).class_metrics(), from_file.class_metrics())
    gdal = pytest.importorskip("osgeo.gdal")
    dataset = gdal.Open(sample_raster)
    pandas.testing.assert_frame_equal(lsm.Landscape(dataset).class_metrics(), from_file.class_metrics())
    in_memory = gdal.Translate("", dataset, format="MEM")  # no file behind it: its cells are read
    pandas.testing.assert_frame_equal(lsm.Landscape(in_memory).class_metrics(), from_file.class_metrics())


def test_labels_equal_the_command_lines_raster(run_cli, sample_raster, tmp_path):
    run_cli("label", sample_raster, tmp_path / "ids.tif")
    expected = lsm._lsm.read_raster(str(tmp_path / "ids.tif"))[0]
    labels = lsm.Landscape(sample_raster).labels()
    assert labels.dtype == numpy.uint32
    numpy.testing.assert_array_equal(labels, expected)
    assert labels.max() == len(lsm.Landscape(sample_raster).patch_metrics(["AREA"]))


def test_tables_are_identical_for_every_tile_size(sample_raster):
    codes = lsm._lsm.read_raster(sample_raster)[0]
    whole = lsm.Landscape(codes, res=30).class_metrics()
    tiled = lsm.Landscape(codes, res=30, tile_size="64x48").class_metrics()
    pandas.testing.assert_frame_equal(tiled, whole, check_exact=True)


def test_progress_reaches_the_end_in_order(sample_raster):
    seen = []
    lsm.Landscape(sample_raster, progress=seen.append).class_metrics()
    assert seen and seen[-1] == pytest.approx(1.0)
    assert seen == sorted(seen)


def test_edge_distance_is_fragstats_edge_depth_in_metres(sample_raster):
    by_cells = lsm.Landscape(sample_raster, edge_depth=3).class_metrics(["TCA", "NDCA", "CORE_MN"])
    by_metres = lsm.Landscape(sample_raster, edge_distance=90).class_metrics(["TCA", "NDCA", "CORE_MN"])
    pandas.testing.assert_frame_equal(by_metres, by_cells, check_exact=True)
    with pytest.raises(ValueError, match="edge_depth and edge_distance exclude each other"):
        lsm.Landscape(sample_raster, edge_depth=3, edge_distance=90).class_metrics()
    with pytest.raises(ValueError, match="not a whole number of the raster's 30 m cells"):
        lsm.Landscape(sample_raster, edge_distance=100).class_metrics()
