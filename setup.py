"""Builds the raydb extension with the project's CMake (RAYDB_PYTHON=ON) and installs the CMake
`python` component into the wheel. Environment: RAYDB_CMAKE_ARGS adds CMake arguments (e.g.
-DRAYDB_CUDA=OFF); CMAKE_BUILD_PARALLEL_LEVEL sets the build's jobs; RAYDB_CMAKE_BUILD_DIR the
CMake build folder (default: under setuptools' build_temp). A build folder one level below the
source, as a CMake build/ is, lets ccache (CCACHE_BASEDIR at the source) reuse that build's
objects: it keys on paths relative to the build folder."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    """The extension CMake builds: no sources of setuptools' own."""

    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configure, build and install (component python) into the wheel's root."""

    def build_extension(self, ext):
        out = Path(self.get_ext_fullpath(ext.name)).resolve().parent.parent  # the package's parent
        build = Path(os.environ.get("RAYDB_CMAKE_BUILD_DIR") or
                     Path(self.build_temp).resolve() / "cmake").resolve()
        args = [
            "cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
            "-DRAYDB_PYTHON=ON", "-DRAYDB_BUILD_TESTS=OFF", "-DRAYDB_BUILD_CLI=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
            f"-DRAYDB_PYTHON_INSTALL_DIR={out}",
        ] + shlex.split(os.environ.get("RAYDB_CMAKE_ARGS", ""))
        subprocess.check_call(args)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "_raydb"])
        subprocess.check_call(["cmake", "--install", str(build), "--component", "python"])


setup(
    packages=["raydb"],
    package_dir={"": "python"},
    ext_modules=[CMakeExtension("raydb._raydb")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
