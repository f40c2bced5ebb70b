"""Many landscapes in parallel on a Dask cluster, one task per landscape
(docs/PYTHON.md, "Many landscapes with Dask"): the same tables as in turn."""
import pandas
import pytest

import lsm

distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (python3-distributed)")


def class_table(path, window):
    """One task: the class table of a window of the raster (a landscape of its own)."""
    rows, columns = window
    codes = lsm._lsm.read_raster(path)[0][rows, columns]
    return lsm.Landscape(codes, res=30).class_metrics(["CA", "NP", "ED", "AI"])


def test_landscapes_on_a_local_cluster_equal_those_run_in_turn(sample_raster):
    windows = [(slice(y, y + 100), slice(x, x + 100)) for y in (0, 100, 200) for x in (0, 150, 300)]
    expected = [class_table(sample_raster, w) for w in windows]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        futures = [client.submit(class_table, sample_raster, w, pure=False) for w in windows]
        got = client.gather(futures)
    assert len(got) == len(expected)
    for ours, theirs in zip(got, expected):
        pandas.testing.assert_frame_equal(ours, theirs, check_exact=True)
