"""Argument checks of tilejit.ops, run before anything launches: dtype, rank and extents
(shape symbols bound across arguments), device and strides, each error naming the op and
the argument. The C ABI checks the kernels' own views again; only here is a tensor's device
known."""
from .. import TilejitError


class ArgumentError(TilejitError, ValueError):
    """A tensor or value an op cannot take; the message names the op and the argument."""


def activations():
    """The dtypes of attention activations the kernels take."""
    import torch
    return (torch.bfloat16, torch.float16)


def _dtype_names(dtypes):
    return ", ".join(str(d).replace("torch.", "") for d in dtypes)


class Checker:
    """One call's checks: shape symbols ("num_seqs", ...) bind at their first use and must
    agree after; every tensor must be on `device` (that of the first tensor checked)."""

    def __init__(self, op):
        self.op = op
        self.sizes = {}
        self.device = None
        self._first = None

    def fail(self, message):
        raise ArgumentError(f"tilejit.ops.{self.op}: {message}")

    def tensor(self, name, t, dtypes, shape, dense="all"):
        """`dtypes`: those accepted (None: any). `shape`: ints and symbol names, one per
        dimension. dense: "all" (contiguous), "rows" (any strides: a strided column view),
        "inner" (the last dimension dense, any other strides: vLLM's q/k/v slices of a fused
        projection)."""
        import torch
        if not isinstance(t, torch.Tensor):
            self.fail(f"argument '{name}' must be a torch.Tensor, not {type(t).__name__}")
        if self.device is None:
            self.device, self._first = t.device, name
        elif t.device != self.device:
            self.fail(f"argument '{name}' is on {t.device} but '{self._first}' is on "
                      f"{self.device}: every tensor of one call must be on one device")
        if t.device.type not in ("cpu", "cuda"):
            self.fail(f"argument '{name}' is on {t.device}; tilejit runs CPU and CUDA tensors")
        if dtypes is not None and t.dtype not in dtypes:
            self.fail(f"argument '{name}' has dtype {str(t.dtype).replace('torch.', '')}; "
                      f"accepted: {_dtype_names(dtypes)}")
        if t.dim() != len(shape):
            self.fail(f"argument '{name}' has shape {list(t.shape)} (rank {t.dim()}); expected "
                      f"rank {len(shape)}: [{', '.join(str(s) for s in shape)}]")
        for d, (extent, want) in enumerate(zip(t.shape, shape)):
            if isinstance(want, int):
                if extent != want:
                    self.fail(f"argument '{name}' dim {d} is {extent} but must be {want} "
                              f"(shape [{', '.join(str(s) for s in shape)}])")
            elif want in self.sizes and self.sizes[want][0] != extent:
                bound, where = self.sizes[want]
                self.fail(f"argument '{name}' dim {d} ({want}) is {extent} but {where} makes "
                          f"{want} {bound}")
            else:
                self.sizes.setdefault(want, (extent, f"'{name}' dim {d}"))
        if dense != "rows" and t.dim() and t.shape[-1] > 1 and t.stride(-1) != 1:
            self.fail(f"argument '{name}' has innermost stride {t.stride(-1)}; its last dimension "
                      f"must be dense (stride 1)")
        if dense == "all" and not t.is_contiguous():
            self.fail(f"argument '{name}' is not contiguous (strides {list(t.stride())} for shape "
                      f"{list(t.shape)}): pass a contiguous tensor (.contiguous())")
        return t

    def size(self, symbol):
        return self.sizes[symbol][0]

    def require(self, condition, message):
        if not condition:
            self.fail(message)

    def one_of(self, name, value, legal):
        if value not in legal:
            self.fail(f"{name}={value!r} is not one of {', '.join(repr(v) for v in legal)}")
        return value
