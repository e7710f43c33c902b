"""What tilejit.ops shares: one Jit per torch device (CUDA devices through their primary
context, CPU tensors on the CPU backend), each op compiled once per (op, config, device) and
kept, workspaces allocated once, and launches on the current torch stream."""
import ctypes
import threading

from .. import Jit, Op, TilejitError, _make_args

_LOCK = threading.Lock()
_JITS = {}
_OPS = {}


def jit_for(device):
    """The Jit of a torch device: "cpu" on the CPU backend, "cuda:N" on GPU N."""
    key = str(device)
    with _LOCK:
        jit = _JITS.get(key)
        if jit is None:
            if device.type == "cpu":
                jit = Jit(cpu=True)
            else:
                import torch
                with torch.cuda.device(device):
                    jit = Jit()
                if jit.device_target == "host":
                    raise TilejitError(f"{device}: tilejit found no CUDA device (its best device is "
                                       "the CPU); is the CUDA driver visible to this process?")
            _JITS[key] = jit
        return jit


def compiled_op(name, config, device):
    """The op `name` with `config` (parameter -> value) for `device`, compiled on first use
    and kept for the life of the process."""
    global _CREATED
    key = (name, tuple(sorted(config.items())), str(device))
    with _LOCK:
        op = _OPS.get(key)
    if op is None:
        op = Op(jit_for(device), name, **config)  # compiles outside the lock
        with _LOCK:
            _CREATED += 1
            op = _OPS.setdefault(key, op)
    return op


_CREATED = 0


def compiled_count():
    """How many ops this process has created (compiled or found in the kernel cache)."""
    with _LOCK:
        return _CREATED


def allocate_workspaces(op, sizes, device):
    """The op's workspaces for these problem sizes, zeroed where the op needs them zeroed once."""
    import torch
    out = {}
    for name, w in op.workspaces(**sizes).items():
        dtype = getattr(torch, w["dtype"])
        make = torch.zeros if w["zero_once"] else torch.empty
        out[name] = make(w["shape"], dtype=dtype, device=device)
    return out


def capturing(device):
    import torch
    return device.type == "cuda" and torch.cuda.is_current_stream_capturing()


class View:
    """A tensor's memory seen with another dtype, shape or strides (an fp8 cache held as
    uint8 by torch 1.x, fp32 logits as int32 words): what the C ABI's tensor struct takes."""

    def __init__(self, tensor, dtype, shape, strides):
        self.tensor, self.dtype = tensor, dtype
        self.shape, self._strides = tuple(shape), tuple(strides)

    def data_ptr(self):
        return self.tensor.data_ptr()

    def dim(self):
        return len(self.shape)

    def stride(self, d):
        return self._strides[d]


def launch(op, named, device):
    """Runs `op` with its arguments by name (tensors, Views, Python numbers) on the current
    torch stream of `device`; no device memory is allocated."""
    try:
        args = [named[n] for n in op.arguments]
    except KeyError as missing:
        raise TilejitError(f"op {op.name}: no value for its argument {missing}") from None
    arr = _make_args(args)
    if device.type == "cpu":
        op.run_args(arr, None)
        return
    import torch
    stream = torch.cuda.current_stream(device).cuda_stream
    if device.index is not None and device.index != torch.cuda.current_device():
        with torch.cuda.device(device):
            op.run_args(arr, ctypes.c_void_p(stream))
    else:
        op.run_args(arr, ctypes.c_void_p(stream))
