"""What one cold compile of an emitted kernel costs nvrtc, apart from tilejit: the C++ that
`tilejit compile TEMPLATE --target sm_90 -p ... --emit cpp` prints, compiled by libnvrtc with
tilejit's options (compiler/toolchains/nvrtc_toolchain.cpp) and a device library folder of
your choice, so two libraries or two emitted sources compare on one machine:

    python3 bench/nvrtc_compile_cost.py KERNEL.cpp [--include DIR] [--ptx-only] [--label L]
        [--option=NVRTC_OPTION ...]

prints one JSON line: wall time, nvrtc's own phase times (--time: front end, NVVM, ptxas),
PTX lines and registers. --include defaults to this tree's templates/device/cuda;
--ptx-only compiles for compute_90 (no ptxas). Each process compiles once: nvrtc's start-up
(~0.1e9 instructions) is in every figure alike. --option adds an nvrtc option, e.g.
--option=--fdevice-time-trace=FILE (a Chrome trace of the phases; NVVM's per-function
optimizations are its OptFunction events).

Wall times of one compile swing +-25 % on shared hosts (the H200 machines included: session
15, bench/results/2026-12-02). For a figure that does not move, count the instructions the
compile executes (valgrind is on the build machine, not on the H200 hosts):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        /usr/bin/python3 bench/nvrtc_compile_cost.py KERNEL.cpp 2>&1 | grep Collected

(the interpreter itself, not a pyenv shim, which valgrind would measure instead)

(~4 minutes per compile with ptxas, ~3 with --ptx-only.)
"""
import argparse
import ctypes
import json
import os
import re
import tempfile
import time

# As NvrtcToolchain builds them (the include path of the CUDA toolkit aside: the device
# library needs none of its headers).
TILEJIT_OPTIONS = ["-std=c++17", "-default-device", "--minimal", "-Xptxas=-v"]
LIBNVRTC = ("libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib/libnvrtc.so.13")


def load_nvrtc():
    for name in LIBNVRTC:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise SystemExit(f"nvrtc_compile_cost.py: libnvrtc not found (tried {', '.join(LIBNVRTC)})")


def text(lib, size_fn, get_fn, program):
    size = ctypes.c_size_t()
    size_fn(program, ctypes.byref(size))
    buffer = ctypes.create_string_buffer(size.value)
    get_fn(program, buffer)
    return buffer.value.decode(errors="replace")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source")
    parser.add_argument("--include", default=os.path.join(here, "..", "templates", "device", "cuda"))
    parser.add_argument("--ptx-only", action="store_true")
    parser.add_argument("--label", default="")
    parser.add_argument("--option", action="append", default=[])
    args = parser.parse_args()

    lib = load_nvrtc()
    with open(args.source, "rb") as f:
        source = f.read()
    arch = "compute_90" if args.ptx_only else "sm_90"
    with tempfile.TemporaryDirectory() as scratch:
        times = os.path.join(scratch, "time.csv")
        options = [f"--gpu-architecture={arch}", *TILEJIT_OPTIONS,
                   f"--include-path={os.path.abspath(args.include)}", f"--time={times}", *args.option]
        program = ctypes.c_void_p()
        if lib.nvrtcCreateProgram(ctypes.byref(program), source, b"kernel.cu", 0, None, None) != 0:
            raise SystemExit("nvrtc_compile_cost.py: nvrtcCreateProgram failed")
        encoded = [o.encode() for o in options]
        start = time.perf_counter()
        status = lib.nvrtcCompileProgram(program, len(encoded), (ctypes.c_char_p * len(encoded))(*encoded))
        wall = time.perf_counter() - start
        log = text(lib, lib.nvrtcGetProgramLogSize, lib.nvrtcGetProgramLog, program)
        if status != 0:
            raise SystemExit(f"nvrtc_compile_cost.py: {args.source} did not compile:\n{log[:4000]}")
        ptx = text(lib, lib.nvrtcGetPTXSize, lib.nvrtcGetPTX, program)
        lib.nvrtcDestroyProgram(ctypes.byref(program))
        phases = {}
        if os.path.exists(times):
            for line in open(times).read().splitlines()[1:]:
                fields = [x.strip() for x in line.split(",")]
                if len(fields) >= 3:
                    phases[fields[1]] = float(fields[2])
    registers = re.findall(r"Used (\d+) registers", log)
    print(json.dumps({
        "label": args.label or os.path.basename(args.source), "arch": arch,
        "wall_ms": round(wall * 1e3, 1), "front_end_ms": phases.get("CUDA C++ Frontend"),
        "nvvm_ms": phases.get("NVVM Optimizer"), "ptxas_ms": phases.get("PTX Translation"),
        "ptx_lines": ptx.count("\n"), "registers": int(registers[0]) if registers else None}))


if __name__ == "__main__":
    main()
