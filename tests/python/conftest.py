"""Fixtures of the Python module's tests (run by ctest: tests/CMakeLists.txt).

LSM_BINARY names the lsm command whose tables the module's must equal,
LSM_SHARED the folder beside the repository with the real rasters; the build
puts the package on PYTHONPATH.
"""
import os
import subprocess

import pytest

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def lsm_binary():
    path = os.environ.get("LSM_BINARY", os.path.join(REPOSITORY, "build", "lsm"))
    if not os.path.exists(path):
        pytest.skip("no lsm binary at %s (set LSM_BINARY)" % path)
    return path


@pytest.fixture(scope="session")
def landcover():
    folder = os.path.join(os.environ.get("LSM_SHARED", os.path.join(REPOSITORY, "..", "shared")), "data", "landcover")
    if not os.path.isdir(folder):
        pytest.skip("../shared/data/landcover is absent: the tests on real rasters are skipped")
    return folder


@pytest.fixture(scope="session")
def sample_raster():
    return os.path.join(REPOSITORY, "sample_rasters", "nlm_fbm_400x300.tif")


@pytest.fixture
def run_cli(lsm_binary):
    def run(*args):
        done = subprocess.run([lsm_binary, *map(str, args), "-q"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done

    return run
