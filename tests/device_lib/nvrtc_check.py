#!/usr/bin/env python3
"""Compiles decode-like kernels with nvrtc exactly as the compiler will: the CUDA device-library
headers handed over in memory by include name (no include path), sm_90 CUBIN. Reports compile
time and the ptxas resource line; exits non-zero if any compile fails.
Usage: nvrtc_check.py [path/to/libnvrtc.so.13]"""
import ctypes, glob, os, sys, time

root = os.path.dirname(os.path.abspath(__file__))
repo = os.path.normpath(os.path.join(root, "..", ".."))
lib = ctypes.CDLL(sys.argv[1] if len(sys.argv) > 1 else "libnvrtc.so.13")
headers = {}
for path in sorted(glob.glob(os.path.join(repo, "templates/device/cuda/tj/*.h")) +
                   glob.glob(os.path.join(repo, "templates/device/common/tj/*.h"))):
    headers["tj/" + os.path.basename(path)] = open(path).read()
kernel = open(os.path.join(root, "decode_kernel.inc")).read()


def compile_tu(src, opts):
    prog = ctypes.c_void_p()
    names = [k.encode() for k in headers]
    bodies = [v.encode() for v in headers.values()]
    n = len(names)
    t0 = time.perf_counter()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"tj_kernel.cu", n,
                                (ctypes.c_char_p * n)(*bodies), (ctypes.c_char_p * n)(*names))
    assert rc == 0, rc
    o = [x.encode() for x in opts]
    rc = lib.nvrtcCompileProgram(prog, len(o), (ctypes.c_char_p * len(o))(*o))
    cubin = ctypes.c_size_t()
    if rc == 0:
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(cubin))
    dt = time.perf_counter() - t0
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return rc, dt, log.value.decode(), cubin.value


def tu(threads, d, bn, layout):
    k, v, rank = (("Standard", "Standard", 4) if layout == "standard" else ("ShuffledK", "ShuffledV", 5))
    return (f"#define TJ_THREADS {threads}\n#include \"tj/device.h\"\n"
            f"#define TJ_DECODE_D {d}\n#define TJ_DECODE_BN {bn}\n#define TJ_DECODE_KRANK {rank}\n"
            f"#define TJ_DECODE_KLAYOUT tj::CacheLayout::{k}\n#define TJ_DECODE_VLAYOUT tj::CacheLayout::{v}\n"
            f"#define TJ_DECODE_NAME tj_decode\n" + kernel)


opts = ["--gpu-architecture=sm_90", "-std=c++17", "-default-device", "--ptxas-options=-v"]
failures = 0
compile_tu(tu(128, 128, 64, "standard"), opts)  # warm-up: first call loads nvrtc's builtins
for threads, d, bn, layout in [(128, 128, 64, "standard"), (128, 64, 64, "standard"), (128, 80, 64, "standard"),
                               (128, 96, 32, "standard"), (128, 112, 64, "standard"), (128, 256, 64, "standard"),
                               (128, 128, 64, "shuffled"), (256, 128, 128, "standard"), (64, 128, 32, "standard")]:
    rc, dt, log, size = compile_tu(tu(threads, d, bn, layout), opts)
    res = [l.strip() for l in log.splitlines() if "Used" in l or "spill" in l]
    status = "ok" if rc == 0 else "FAILED"
    failures += rc != 0
    print(f"{status:6} threads={threads:3} D={d:3} BN={bn:3} {layout:8} {dt * 1000:6.0f} ms  cubin {size} B  | {' | '.join(res)}")
    if rc != 0:
        print(log)
sys.exit(1 if failures else 0)
