"""The build step of the Python package (pyproject.toml holds its metadata): puts
libtilejit_c.so into tilejit/_lib, with the shared libraries it needs that a bare machine
lacks (Debian's Abseil) beside it, where the library's RPATH $ORIGIN finds them.

The library is $TILEJIT_PREBUILT_LIB, else build/bin/libtilejit_c.so of this checkout, else
built there by CMake (the tilejit_c target only)."""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))
LIBRARY = "libtilejit_c.so"
# Libraries every Linux with a C++ runtime has; anything else the library links is bundled.
SYSTEM = re.compile(r"^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s)\.so")


def built_library():
    given = os.environ.get("TILEJIT_PREBUILT_LIB")
    if given:
        if not os.path.isfile(given):
            sys.exit(f"TILEJIT_PREBUILT_LIB={given} is not a file")
        return given
    build = os.path.join(ROOT, "build")
    path = os.path.join(build, "bin", LIBRARY)
    if not os.path.isfile(path):
        if not os.path.isfile(os.path.join(build, "build.ninja")):
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja",
                                   "-DCMAKE_BUILD_TYPE=Release"])
        jobs = os.environ.get("TILEJIT_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", build, "-j", jobs, "--target", "tilejit_c"])
    return path


def needed_libraries(path):
    """The resolved paths of the shared libraries `path` loads that are not the system's."""
    out = subprocess.run(["ldd", path], check=True, capture_output=True, text=True).stdout
    found = []
    for line in out.splitlines():
        match = re.match(r"\s*(\S+) => (/\S+)", line)
        if match and not SYSTEM.match(match.group(1)):
            found.append(match.group(2))
        elif "not found" in line:
            sys.exit(f"{path} needs {line.split()[0]}, which is not found")
    return found


class BuildWithLibrary(build_py):
    def run(self):
        # A fresh copy: a library or module left by an earlier build must not ship.
        shutil.rmtree(os.path.join(self.build_lib, "tilejit"), ignore_errors=True)
        super().run()
        source = built_library()
        target = os.path.join(self.build_lib, "tilejit", "_lib")
        os.makedirs(target, exist_ok=True)
        for path in [source] + needed_libraries(source):
            copy = os.path.join(target, os.path.basename(path))
            shutil.copyfile(path, copy)  # follows symlinks: the soname's file itself
            if shutil.which("strip"):
                subprocess.check_call(["strip", "--strip-unneeded", copy])


class NativeDistribution(Distribution):
    """Holds a native library: installed to platlib, its wheel tagged with the platform."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """A wheel for this platform, for any Python 3 (the library is called through ctypes)."""

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


setup(distclass=NativeDistribution, cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel},
      options={"build": {"build_base": os.path.join("build", "python")},
               "egg_info": {"egg_base": os.path.join("build", "python")}})
