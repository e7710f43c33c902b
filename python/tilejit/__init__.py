"""tilejit for Python: JIT-compile tj templates and launch them on torch tensors.

    import tilejit
    jit = tilejit.Jit()
    merge = jit.load("merge_attn_states", head_size=128, dtype="bf16")
    merge(out, out_lse, prefix, prefix_lse, suffix, suffix_lse)   # on torch's current stream
    decode = tilejit.Op(jit, "paged_decode", head_size=128, gqa_ratio=8)   # an op by name
    bundle = tilejit.Bundle("kernels.tjb", jit)                # precompiled (tilejit aot)
    merge = bundle.load("merge_attn_states", head_size=128)    # no compile

Thin ctypes layer over the C ABI (tools/capi/tilejit_c.h) in libtilejit_c.so: $TILEJIT_LIB, else
the installed package's own copy, else build/bin of this checkout (library_path()). Torch ops
in vLLM's conventions, with plan/run for graph capture, are in tilejit.ops.
"""
import ctypes
import os

# The C ABI version this module mirrors (TJ_ABI_VERSION in tools/capi/tilejit_c.h).
_ABI_VERSION = 2

_DTYPES = {"float16": 0, "bfloat16": 1, "float32": 2, "float64": 3, "int8": 4, "int32": 5,
           "int64": 6, "uint8": 7, "bool": 8, "float8_e4m3fn": 9, "float8_e5m2": 10}


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 6), ("strides", ctypes.c_int64 * 6)]


class _Arg(ctypes.Structure):
    _fields_ = [("is_scalar", ctypes.c_int32), ("scalar_dtype", ctypes.c_int32),
                ("float_value", ctypes.c_double), ("int_value", ctypes.c_int64),
                ("tensor", _Tensor)]


class _Sized(ctypes.Structure):
    """A C ABI struct that starts with struct_size, set to this mirror's size so that the library
    can refuse a layout it does not share."""

    def __init__(self, *args, **kwargs):
        super().__init__(ctypes.sizeof(type(self)), *args, **kwargs)


class _PagedDecodeConfig(_Sized):
    _fields_ = [("struct_size", ctypes.c_uint32), ("dtype", ctypes.c_char_p), ("head_size", ctypes.c_int64),
                ("block_size", ctypes.c_int64), ("gqa_ratio", ctypes.c_int64),
                ("kv_layout", ctypes.c_char_p), ("soft_cap", ctypes.c_int32),
                ("alibi", ctypes.c_int32), ("num_seqs", ctypes.c_int64),
                ("num_kv_heads", ctypes.c_int64), ("max_model_len", ctypes.c_int64),
                ("tuning", ctypes.POINTER(ctypes.c_char_p)), ("num_tuning", ctypes.c_int32)]


_DECODE_TENSORS = ("output", "query", "key_cache", "value_cache", "block_tables", "seq_lens",
                   "alibi_slopes", "partial_out", "partial_lse", "arrivals")


class _PagedDecodeArgs(_Sized):
    _fields_ = [("struct_size", ctypes.c_uint32)] + [(name, _Tensor) for name in _DECODE_TENSORS] + [
        ("scale", ctypes.c_float), ("soft_cap_value", ctypes.c_float),
        ("sliding_window", ctypes.c_int32)]


class _Workspace(_Sized):
    _fields_ = [("struct_size", ctypes.c_uint32), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * 6), ("bytes", ctypes.c_int64),
                ("zero_once", ctypes.c_int32)]


class _ArgumentInfo(_Sized):
    _fields_ = [("struct_size", ctypes.c_uint32), ("name", ctypes.c_char_p),
                ("is_scalar", ctypes.c_int32), ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("dims", ctypes.c_int64 * 6), ("dim_symbols", ctypes.c_char_p * 6),
                ("writes", ctypes.c_int32), ("contiguous", ctypes.c_int32)]


class CompileInfo(_Sized):
    _fields_ = [("struct_size", ctypes.c_uint32), ("cache_hit", ctypes.c_int32), ("specialize_seconds", ctypes.c_double),
                ("toolchain_seconds", ctypes.c_double), ("total_seconds", ctypes.c_double),
                ("registers", ctypes.c_int32), ("threads_per_program", ctypes.c_int32)]


def library_path():
    """$TILEJIT_LIB, else the package's own copy (an installed package), else this checkout's
    build/bin/libtilejit_c.so."""
    given = os.environ.get("TILEJIT_LIB")
    if given:
        return os.path.abspath(given)
    here = os.path.dirname(os.path.abspath(__file__))
    packaged = os.path.join(here, "_lib", "libtilejit_c.so")
    if os.path.isfile(packaged):
        return packaged
    return os.path.abspath(os.path.join(here, "..", "..", "build", "bin", "libtilejit_c.so"))


def _library():
    path = library_path()
    if not os.path.isfile(path):
        raise TilejitError(f"libtilejit_c.so not found at {path}: install the package (pip install .), "
                           "build this checkout (scripts/build.sh) or set TILEJIT_LIB")
    lib = ctypes.CDLL(path)
    version = lib.tj_abi_version() if hasattr(lib, "tj_abi_version") else 1
    if version != _ABI_VERSION:
        raise TilejitError(f"{os.path.abspath(path)} has C ABI version {version}; this tilejit "
                           f"package mirrors version {_ABI_VERSION}: use the package built with it")
    lib.tj_last_error.restype = ctypes.c_char_p
    lib.tj_jit_create.restype = ctypes.c_void_p
    lib.tj_jit_create.argtypes = [ctypes.c_int]
    lib.tj_device_create_best.restype = ctypes.c_void_p
    lib.tj_device_create_cpu.restype = ctypes.c_void_p
    lib.tj_device_target.restype = ctypes.c_char_p
    lib.tj_device_target.argtypes = [ctypes.c_void_p]
    lib.tj_device_destroy.argtypes = [ctypes.c_void_p]
    lib.tj_jit_destroy.argtypes = [ctypes.c_void_p]
    lib.tj_kernel_load.restype = ctypes.c_void_p
    lib.tj_kernel_load.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
                                   ctypes.POINTER(CompileInfo)]
    lib.tj_kernel_num_arguments.restype = ctypes.c_int
    lib.tj_kernel_num_arguments.argtypes = [ctypes.c_void_p]
    lib.tj_kernel_argument.restype = ctypes.c_int
    lib.tj_kernel_argument.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(_ArgumentInfo)]
    lib.tj_launch.restype = ctypes.c_int
    lib.tj_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_int,
                              ctypes.c_void_p]
    lib.tj_paged_decode_create.restype = ctypes.c_void_p
    lib.tj_paged_decode_create.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                           ctypes.POINTER(_PagedDecodeConfig)]
    lib.tj_paged_decode_destroy.argtypes = [ctypes.c_void_p]
    lib.tj_paged_decode_partition_size.restype = ctypes.c_int64
    lib.tj_paged_decode_partition_size.argtypes = [ctypes.c_void_p]
    lib.tj_paged_decode_max_partitions.restype = ctypes.c_int64
    lib.tj_paged_decode_max_partitions.argtypes = [ctypes.c_void_p, ctypes.c_int64]
    lib.tj_paged_decode_run.restype = ctypes.c_int
    lib.tj_paged_decode_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(_PagedDecodeArgs),
                                        ctypes.c_void_p]
    lib.tj_op_create.restype = ctypes.c_void_p
    lib.tj_op_create.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                 ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
    lib.tj_op_destroy.argtypes = [ctypes.c_void_p]
    for count, name in (("tj_op_num_arguments", "tj_op_argument_name"),
                        ("tj_op_num_workspaces", "tj_op_workspace_name")):
        getattr(lib, count).restype = ctypes.c_int
        getattr(lib, count).argtypes = [ctypes.c_void_p]
        getattr(lib, name).restype = ctypes.c_char_p
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.tj_op_workspace_size.restype = ctypes.c_int64
    lib.tj_op_workspace_size.argtypes = [ctypes.c_void_p, ctypes.c_char_p,
                                         ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
                                         ctypes.POINTER(_Workspace)]
    lib.tj_op_run.restype = ctypes.c_int
    lib.tj_op_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Arg), ctypes.c_int,
                              ctypes.c_void_p]
    lib.tj_bundle_open.restype = ctypes.c_void_p
    lib.tj_bundle_open.argtypes = [ctypes.c_char_p]
    lib.tj_bundle_destroy.argtypes = [ctypes.c_void_p]
    lib.tj_bundle_num_entries.restype = ctypes.c_int
    lib.tj_bundle_num_entries.argtypes = [ctypes.c_void_p]
    for field in ("template", "target", "parameters"):
        getattr(lib, "tj_bundle_entry_" + field).restype = ctypes.c_char_p
        getattr(lib, "tj_bundle_entry_" + field).argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.tj_bundle_load.restype = ctypes.c_void_p
    lib.tj_bundle_load.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_char_p), ctypes.c_int]
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


def _assignments(values):
    """name=value strings as a ctypes array (and its length)."""
    encoded = [f"{k}={int(v) if isinstance(v, bool) else v}".encode() for k, v in values.items()]
    return (ctypes.c_char_p * max(1, len(encoded)))(*encoded), len(encoded)


def _fill_tensor(t, a):
    """A _Tensor for a torch tensor (or anything with data_ptr, dtype, dim, shape, stride)."""
    t.data = a.data_ptr()
    t.dtype = _DTYPES[str(a.dtype).replace("torch.", "")]
    t.rank = a.dim()
    for d in range(a.dim()):
        t.shape[d] = a.shape[d]
        t.strides[d] = a.stride(d)


def _default_stream(jit, stream):
    if stream is None and jit.device_target != "host":
        import torch
        return torch.cuda.current_stream().cuda_stream
    return stream


class Kernel:
    """A loaded specialization; call it with torch tensors and Python numbers, in order or by
    name (kernel(output=o, prefix_lse=p, ...)): `arguments` lists them with their dtypes and
    shapes, so two tensors of the same shape cannot be swapped silently."""

    def __init__(self, jit, handle, info):
        self._jit, self._handle, self.info = jit, handle, info
        self.arguments = []
        lib = _lib()
        for i in range(lib.tj_kernel_num_arguments(handle)):
            a = _ArgumentInfo()
            _check(lib.tj_kernel_argument(handle, i, ctypes.byref(a)) == 0)
            shape = tuple(a.dim_symbols[d].decode() if a.dims[d] < 0 else a.dims[d]
                          for d in range(a.rank))
            self.arguments.append({"name": a.name.decode(), "scalar": bool(a.is_scalar),
                                   "dtype": _DTYPE_NAMES[a.dtype], "shape": shape,
                                   "writes": bool(a.writes)})
        self.argument_names = [a["name"] for a in self.arguments]

    def _ordered(self, args, named):
        if not named:
            return args
        if args:
            raise TilejitError("pass the kernel's arguments either in order or all by name")
        missing = [n for n in self.argument_names if n not in named]
        unknown = [n for n in named if n not in self.argument_names]
        if missing or unknown:
            raise TilejitError(f"kernel arguments are {', '.join(self.argument_names)}"
                               + (f"; missing: {', '.join(missing)}" if missing else "")
                               + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
        return tuple(named[n] for n in self.argument_names)

    def make_args(self, *args, **named):
        return _make_args(self._ordered(args, named))

    def launch_args(self, arr, stream=None):
        """Launch with arguments prepared by make_args (no per-call conversion)."""
        stream = _default_stream(self._jit, stream)
        _check(_lib().tj_launch(self._jit._device, self._handle, arr, len(arr), stream) == 0)

    def __call__(self, *args, stream=None, **named):
        self.launch_args(self.make_args(*args, **named), stream)


class Jit:
    def __init__(self, use_disk_cache=True, cpu=False):
        lib = _lib()
        self._jit = lib.tj_jit_create(1 if use_disk_cache else 0)
        _check(self._jit)
        self._device = lib.tj_device_create_cpu() if cpu else lib.tj_device_create_best()
        self.device_target = lib.tj_device_target(self._device).decode()

    def __del__(self):
        # Kernels and ops keep their Jit alive, so nothing that uses these handles is left.
        lib = _lib()
        device, self._device = getattr(self, "_device", None), None
        jit, self._jit = getattr(self, "_jit", None), None
        if jit:  # the jit's kernels first: their modules live in the device's context
            lib.tj_jit_destroy(jit)
        if device:
            lib.tj_device_destroy(device)

    def load(self, template, **params):
        arr, count = _assignments(params)
        info = CompileInfo()
        handle = _lib().tj_kernel_load(self._jit, self._device, template.encode(), arr,
                                       count, ctypes.byref(info))
        _check(handle)
        return Kernel(self, handle, info)


_DTYPE_NAMES = {v: k for k, v in _DTYPES.items()}


def _make_args(args):
    """A _Arg array for tensors and Python numbers (floats as f32, ints as i64)."""
    arr = (_Arg * len(args))()
    for i, a in enumerate(args):
        if isinstance(a, float):
            arr[i].is_scalar, arr[i].scalar_dtype, arr[i].float_value = 1, 2, a
        elif isinstance(a, int):
            arr[i].is_scalar, arr[i].scalar_dtype, arr[i].int_value = 1, 6, a
        else:
            _fill_tensor(arr[i].tensor, a)
    return arr


class Op:
    """An op by name (compiler/ops/README.md), its parameters typed by the op's schema:

        op = tilejit.Op(jit, "paged_decode", head_size=128, gqa_ratio=8, max_model_len=16384)
        op.arguments        # names, in call order
        op.workspaces(num_seqs=64, num_kv_heads=8, max_model_len=16384)
        #   {"partial_out": {"dtype": "float32", "shape": (...), "bytes": ..., "zero_once": False}, ...}
        op(*args)           # tensors and numbers in op.arguments order (workspaces included)

    Allocate the workspaces once (zero those marked zero_once), outside graph capture."""

    def __init__(self, jit, name, **params):
        self._jit, self._lib = jit, _lib()
        items, count = _assignments(params)
        self._handle = self._lib.tj_op_create(jit._jit, jit._device, name.encode(), items, count)
        _check(self._handle)
        self.name = name
        self.arguments = self._names(self._lib.tj_op_num_arguments, self._lib.tj_op_argument_name)
        self.workspace_names = self._names(self._lib.tj_op_num_workspaces,
                                           self._lib.tj_op_workspace_name)

    def _names(self, count, name):
        return [name(self._handle, i).decode() for i in range(count(self._handle))]

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.tj_op_destroy(handle)

    def workspaces(self, **sizes):
        """Each workspace's dtype, shape, bytes and whether to zero it once, for these sizes."""
        items, count = _assignments(sizes)
        out = {}
        for name in self.workspace_names:
            w = _Workspace()
            _check(self._lib.tj_op_workspace_size(self._handle, name.encode(), items, count,
                                                  ctypes.byref(w)) >= 0)
            out[name] = {"dtype": _DTYPE_NAMES[w.dtype], "shape": tuple(w.shape[:w.rank]),
                         "bytes": w.bytes, "zero_once": bool(w.zero_once)}
        return out

    def make_args(self, *args):
        if len(args) != len(self.arguments):
            raise TilejitError(f"op {self.name} takes {len(self.arguments)} arguments "
                               f"({', '.join(self.arguments)}), not {len(args)}")
        arr = _make_args(args)
        arr.keep = args  # the pointers above stay valid as long as the arguments live
        return arr

    def run_args(self, arr, stream=None):
        """Run with arguments prepared by make_args (no per-call conversion)."""
        stream = _default_stream(self._jit, stream)
        _check(self._lib.tj_op_run(self._handle, arr, len(arr), stream) == 0)

    def __call__(self, *args, stream=None):
        self.run_args(self.make_args(*args), stream)


class Bundle:
    """A bundle written by `tilejit aot`, verified whole when opened; its kernels load without
    compiling onto the Jit's device and live as long as the Bundle:

        bundle = tilejit.Bundle("kernels.tjb", jit)
        bundle.entries()    # [{"template": ..., "target": ..., "parameters": {...}}, ...]
        kernel = bundle.load("reshape_and_cache", block_size=16)   # parameters that pick one entry
    """

    def __init__(self, path, jit):
        self._jit, self._lib = jit, _lib()
        self._handle = self._lib.tj_bundle_open(os.fsencode(path))
        _check(self._handle)

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.tj_bundle_destroy(handle)

    def entries(self):
        out = []
        for i in range(self._lib.tj_bundle_num_entries(self._handle)):
            text = self._lib.tj_bundle_entry_parameters(self._handle, i).decode()
            out.append({"template": self._lib.tj_bundle_entry_template(self._handle, i).decode(),
                        "target": self._lib.tj_bundle_entry_target(self._handle, i).decode(),
                        "parameters": dict(line.split("=", 1) for line in text.splitlines())})
        return out

    def load(self, template, **params):
        arr, count = _assignments(params)
        handle = self._lib.tj_bundle_load(self._handle, self._jit._device, template.encode(), arr,
                                          count)
        _check(handle)
        kernel = Kernel(self._jit, handle, None)
        kernel._bundle = self  # the kernel's code lives in the bundle
        return kernel


class PagedDecode:
    """Paged decode as one call: the split-K kernel and the merge of its partitions.

        op = tilejit.PagedDecode(jit, head_size=128, gqa_ratio=8, block_size=16,
                                 num_seqs=64, num_kv_heads=8, max_model_len=16384)
        parts = op.max_partitions(16384)   # partial_out: [num_seqs, parts, q_heads, head] f32
        op(out, q, k_cache, v_cache, block_tables, seq_lens, partial_out, partial_lse, scale)

    With num_seqs, num_kv_heads and max_model_len the tiling is the target's measured one;
    other keyword arguments are tiling parameters (partition_size=..., reduce_num_warps=...,
    merge_in_kernel=1, cluster_size=C with a max_model_len of exactly C partitions: sm_90).
    Tensors follow compiler/ops/paged_decode.h; alibi_slopes may be None without alibi;
    arrivals ([num_seqs, num_kv_heads] int32, zeroed) may be None: the op then keeps its own,
    so one op then serves one stream at a time with merge_in_kernel=1 (the cluster merge uses
    no counters)."""

    def __init__(self, jit, head_size, gqa_ratio, block_size=16, dtype="bf16",
                 kv_layout="standard", soft_cap=False, alibi=False, num_seqs=0, num_kv_heads=0,
                 max_model_len=0, **tuning):
        items, count = _assignments(tuning)
        config = _PagedDecodeConfig(dtype.encode(), head_size, block_size, gqa_ratio,
                                    kv_layout.encode(), int(bool(soft_cap)), int(bool(alibi)),
                                    num_seqs, num_kv_heads, max_model_len, items, count)
        self._jit, self._lib = jit, _lib()
        self._handle = self._lib.tj_paged_decode_create(jit._jit, jit._device, ctypes.byref(config))
        _check(self._handle)
        self.alibi = bool(alibi)
        self.gqa_ratio = gqa_ratio
        self._slopes = None
        self._arrivals = None

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.tj_paged_decode_destroy(handle)

    @property
    def partition_size(self):
        return self._lib.tj_paged_decode_partition_size(self._handle)

    def max_partitions(self, max_model_len):
        return self._lib.tj_paged_decode_max_partitions(self._handle, max_model_len)

    def _own_zeros(self, attr, shape, dtype, device):
        """A zero tensor the op keeps in `attr` for arguments the caller leaves out, made again
        only when the shape or device changes (zeroed before a launch on any stream reads it)."""
        held = getattr(self, attr)
        if held is None or tuple(held.shape) != tuple(shape) or held.device != device:
            import torch
            held = torch.zeros(shape, dtype=getattr(torch, dtype), device=device)
            if held.is_cuda:
                torch.cuda.synchronize(held.device)
            setattr(self, attr, held)
        return held

    def make_args(self, output, query, key_cache, value_cache, block_tables, seq_lens, partial_out,
                  partial_lse, scale, alibi_slopes=None, soft_cap_value=0.0, sliding_window=0,
                  arrivals=None):
        """The launch's arguments, converted once (for run_args in a hot loop)."""
        if arrivals is None:
            arrivals = self._own_zeros("_arrivals", (query.shape[0], query.shape[1] // self.gqa_ratio),
                                       "int32", query.device)
        if alibi_slopes is None:
            if self.alibi:
                raise TilejitError("PagedDecode: alibi_slopes are required with alibi=True")
            alibi_slopes = self._own_zeros("_slopes", (query.shape[1],), "float32", query.device)
        args = _PagedDecodeArgs()
        tensors = (output, query, key_cache, value_cache, block_tables, seq_lens, alibi_slopes,
                   partial_out, partial_lse, arrivals)
        for name, tensor in zip(_DECODE_TENSORS, tensors):
            _fill_tensor(getattr(args, name), tensor)
        args.scale, args.soft_cap_value, args.sliding_window = scale, soft_cap_value, sliding_window
        args.keep = tensors  # the pointers above stay valid as long as the arguments live
        return args

    def run_args(self, args, stream=None):
        stream = _default_stream(self._jit, stream)
        _check(self._lib.tj_paged_decode_run(self._handle, ctypes.byref(args), stream) == 0)

    def __call__(self, *tensors, stream=None, **options):
        self.run_args(self.make_args(*tensors, **options), stream)
