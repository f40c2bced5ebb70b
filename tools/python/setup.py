"""The wheel's build: lsm's CMake build makes the extension and the package.

setuptools' PEP 517 backend calls this (pyproject.toml). It configures the
repository two folders up with the interpreter that builds the wheel
(LSM_PYTHON), builds the `_lsm` target, and packages <build>/python/lsm.
LSM_BUILD_DIR names a build folder to use (it is configured again for this
interpreter, nothing else changes); default: one under setuptools' build_temp.
LSM_PACKAGE_DIR names a package built already (<build>/python/lsm), which is
packaged as it is, without running CMake (the tests do so).
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(os.path.dirname(HERE))


def version():
    with open(os.path.join(REPOSITORY, "CMakeLists.txt")) as f:
        return re.search(r"project\(lsm VERSION ([0-9.]+)", f.read()).group(1)


class BuildWithCMake(build_ext):
    """Builds _lsm with CMake and copies the package it makes into the wheel."""

    def run(self):
        package = os.environ.get("LSM_PACKAGE_DIR")
        if not package:
            build = os.environ.get("LSM_BUILD_DIR") or os.path.join(os.path.abspath(self.build_temp), "cmake")
            os.makedirs(build, exist_ok=True)
            subprocess.check_call(["cmake", "-S", REPOSITORY, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                                   "-DLSM_WITH_PYTHON=ON", "-DLSM_PYTHON=" + sys.executable], stdout=subprocess.DEVNULL)
            subprocess.check_call(["cmake", "--build", build, "--target", "_lsm", "-j", str(os.cpu_count() or 1)])
            package = os.path.join(build, "python", "lsm")
        target = os.path.join(self.build_lib, "lsm")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__"))


class BinaryDistribution(Distribution):
    """A wheel for this platform and Python: it holds a compiled extension."""

    def has_ext_modules(self):
        return True


setup(version=version(), cmdclass={"build_ext": BuildWithCMake}, distclass=BinaryDistribution)
