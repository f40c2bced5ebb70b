"""Bad input gets a clear Python error with the command line's message; a
run releases the GIL and stops on Ctrl-C."""
import os
import signal
import threading
import time

import numpy
import pytest

import lsm


def test_float_array_with_fractions_is_refused():
    with pytest.raises(ValueError, match=r"holds 1.5 at row 0, column 1: class codes are whole numbers"):
        lsm.Landscape(numpy.array([[1.0, 1.5], [2.0, 2.0]]))


def test_negative_codes_are_the_landscape_border():
    grid = numpy.array([[-12, 1], [2, 2]], dtype=numpy.int16)
    # Outside the landscape (3 cells of 1 m2), but class 12 beyond the
    # boundary beside the class 1 and 2 cells: 2 m of true edge.
    table = lsm.Landscape(grid).landscape_metrics(["TA", "NP", "TE"])
    assert table["TA"][0] == pytest.approx(3 / 1e4) and table["NP"][0] == 2
    assert table["TE"][0] == pytest.approx(1 + 2)
    assert lsm.Landscape(grid, nodata=-12).landscape_metrics(["TE"])["TE"][0] == pytest.approx(1)


def test_whole_floats_are_class_codes_and_nan_is_nodata():
    grid = numpy.array([[1.0, 1.0], [numpy.nan, 2.0]])
    table = lsm.Landscape(grid).landscape_metrics(["TA", "NP"])
    assert table["TA"][0] == pytest.approx(3 / 1e4) and table["NP"][0] == 2


def test_shapes_and_dtypes_that_are_no_landscape():
    with pytest.raises(ValueError, match="2-D array of class codes .* not 3-D"):
        lsm.Landscape(numpy.zeros((2, 3, 4), dtype=numpy.uint8))
    with pytest.raises(ValueError, match="at least one row and one column"):
        lsm.Landscape(numpy.zeros((0, 3), dtype=numpy.uint8))
    with pytest.raises(TypeError, match="integer class codes, not of complex128"):
        lsm.Landscape(numpy.zeros((2, 2), dtype=complex))
    with pytest.raises(TypeError, match="not of <U1"):
        lsm.Landscape(numpy.array([["a", "b"]]))
    with pytest.raises(ValueError, match="outside the int32 range"):
        lsm.Landscape(numpy.array([[1, 2**40]], dtype=numpy.int64))


def test_bad_values_get_the_command_lines_messages(sample_raster):
    land = lsm.Landscape(sample_raster)
    with pytest.raises(ValueError, match="unknown metric 'FOO'"):
        land.class_metrics(["CA", "FOO"])
    with pytest.raises(ValueError, match=r"^edge_depth must be in 1..1000 \(got 0\)$"):
        lsm.Landscape(sample_raster, edge_depth=0)
    with pytest.raises(ValueError, match="^neighbors"):
        lsm.Landscape(sample_raster, neighbours=6)
    with pytest.raises(ValueError, match="^memory_limit"):
        lsm.Landscape(sample_raster, memory_limit="lots")
    with pytest.raises(ValueError, match="selects no patch metric"):
        land.patch_metrics(["CA"])
    with pytest.raises(ValueError, match="res is an array's cell size"):
        lsm.Landscape(sample_raster, res=30)
    with pytest.raises(ValueError, match="no such file"):
        lsm.Landscape("/no/such.tif").class_metrics()


def test_unknown_keywords_are_type_errors_with_the_one_meant(sample_raster):
    with pytest.raises(TypeError, match="unexpected keyword argument 'edge_dept'; did you mean edge_depth"):
        lsm.Landscape(sample_raster, edge_dept=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'$"):
        lsm.Landscape(sample_raster, colour="red")
    with pytest.raises(TypeError, match="progress takes"):
        lsm.Landscape(sample_raster, progress="yes").class_metrics()


def big_landscape():
    # 6000 x 6000 cells of 20 classes in blobs: seconds of work for every metric.
    rng = numpy.random.default_rng(7)
    coarse = rng.integers(0, 20, size=(600, 600), dtype=numpy.uint8)
    return numpy.kron(coarse, numpy.ones((10, 10), dtype=numpy.uint8)) ^ (rng.random((6000, 6000)) < 0.05)


def test_ctrl_c_cancels_within_a_second():
    land = lsm.Landscape(big_landscape())
    sent = []

    def interrupt():
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.5, interrupt)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        land.class_metrics()
    stopped = time.monotonic()
    timer.join()
    assert sent and stopped - sent[0] < 1.0


def test_an_exception_in_the_progress_callback_cancels_the_run():
    def refuse(fraction):
        if fraction > 0.01:
            raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        lsm.Landscape(big_landscape(), progress=refuse).class_metrics()


def test_the_gil_is_released_while_the_engine_works():
    land = lsm.Landscape(big_landscape())
    running = threading.Event()
    done = threading.Event()
    ticks = []

    def count():
        while not done.is_set():
            if running.is_set():
                ticks.append(1)
            time.sleep(0.005)

    counter = threading.Thread(target=count)
    counter.start()
    running.set()
    started = time.monotonic()
    land.landscape_metrics(["SHDI", "CONTAG", "AI"])
    took = time.monotonic() - started
    running.clear()
    done.set()
    counter.join()
    # With the GIL held through the run the counter could not tick during it;
    # released, it ticks every 5 ms it gets a core (fewer on a loaded machine).
    assert took > 0.2 and len(ticks) >= 10, (took, len(ticks))
