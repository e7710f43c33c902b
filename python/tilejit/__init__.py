"""tilejit for Python: JIT-compile tj templates and launch them on torch tensors.

    import tilejit
    jit = tilejit.Jit()
    merge = jit.load("merge_attn_states", head_size=128, dtype="bf16")
    merge(out, out_lse, prefix, prefix_lse, suffix, suffix_lse)   # on torch's current stream

Thin ctypes layer over the C ABI (tools/capi/tilejit_c.h) in libtilejit_c.so, found through
$TILEJIT_LIB or next to build/bin of this checkout.
"""
import ctypes
import os

_DTYPES = {"float16": 0, "bfloat16": 1, "float32": 2, "float64": 3, "int8": 4, "int32": 5,
           "int64": 6, "uint8": 7, "bool": 8}


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 6), ("strides", ctypes.c_int64 * 6)]


class _Arg(ctypes.Structure):
    _fields_ = [("is_scalar", ctypes.c_int32), ("scalar_dtype", ctypes.c_int32),
                ("float_value", ctypes.c_double), ("int_value", ctypes.c_int64),
                ("tensor", _Tensor)]


class CompileInfo(ctypes.Structure):
    _fields_ = [("cache_hit", ctypes.c_int32), ("specialize_seconds", ctypes.c_double),
                ("toolchain_seconds", ctypes.c_double), ("total_seconds", ctypes.c_double),
                ("registers", ctypes.c_int32), ("threads_per_program", ctypes.c_int32)]


def _library():
    path = os.environ.get("TILEJIT_LIB")
    if not path:
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.join(here, "..", "..", "build", "bin", "libtilejit_c.so")
    lib = ctypes.CDLL(os.path.abspath(path))
    lib.tj_last_error.restype = ctypes.c_char_p
    lib.tj_jit_create.restype = ctypes.c_void_p
    lib.tj_jit_create.argtypes = [ctypes.c_int]
    lib.tj_device_create_best.restype = ctypes.c_void_p
    lib.tj_device_create_cpu.restype = ctypes.c_void_p
    lib.tj_device_target.restype = ctypes.c_char_p
    lib.tj_device_target.argtypes = [ctypes.c_void_p]
    lib.tj_kernel_load.restype = ctypes.c_void_p
    lib.tj_kernel_load.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
                                   ctypes.POINTER(CompileInfo)]
    lib.tj_launch.restype = ctypes.c_int
    lib.tj_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_int,
                              ctypes.c_void_p]
    return lib


_LIB = None


def _lib():
    global _LIB
    if _LIB is None:
        _LIB = _library()
    return _LIB


class TilejitError(RuntimeError):
    pass


def _check(ok):
    if not ok:
        raise TilejitError(_lib().tj_last_error().decode())


class Kernel:
    """A loaded specialization; call it with torch tensors and Python numbers."""

    def __init__(self, jit, handle, info):
        self._jit, self._handle, self.info = jit, handle, info

    def make_args(self, *args):
        arr = (_Arg * len(args))()
        for i, a in enumerate(args):
            if isinstance(a, float):
                arr[i].is_scalar, arr[i].scalar_dtype, arr[i].float_value = 1, 2, a
            elif isinstance(a, int):
                arr[i].is_scalar, arr[i].scalar_dtype, arr[i].int_value = 1, 6, a
            else:
                t = arr[i].tensor
                t.data = a.data_ptr()
                t.dtype = _DTYPES[str(a.dtype).replace("torch.", "")]
                t.rank = a.dim()
                for d in range(a.dim()):
                    t.shape[d] = a.shape[d]
                    t.strides[d] = a.stride(d)
        return arr

    def launch_args(self, arr, stream=None):
        """Launch with arguments prepared by make_args (no per-call conversion)."""
        if stream is None and self._jit.device_target != "host":
            import torch
            stream = torch.cuda.current_stream().cuda_stream
        _check(_lib().tj_launch(self._jit._device, self._handle, arr, len(arr), stream) == 0)

    def __call__(self, *args, stream=None):
        self.launch_args(self.make_args(*args), stream)


class Jit:
    def __init__(self, use_disk_cache=True, cpu=False):
        lib = _lib()
        self._jit = lib.tj_jit_create(1 if use_disk_cache else 0)
        _check(self._jit)
        self._device = lib.tj_device_create_cpu() if cpu else lib.tj_device_create_best()
        self.device_target = lib.tj_device_target(self._device).decode()

    def load(self, template, **params):
        encoded = [f"{k}={v}".encode() for k, v in params.items()]
        arr = (ctypes.c_char_p * max(1, len(encoded)))(*encoded)
        info = CompileInfo()
        handle = _lib().tj_kernel_load(self._jit, self._device, template.encode(), arr,
                                       len(encoded), ctypes.byref(info))
        _check(handle)
        return Kernel(self, handle, info)
