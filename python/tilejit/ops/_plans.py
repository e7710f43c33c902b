"""Plans: an op compiled for one config and device, owning the workspaces it needs for the
problem sizes it was planned for (FlashInfer's plan/run). The module-level functions of
tilejit.ops keep a plan per (config, sizes, device) and make one only outside graph capture."""
import collections
import threading

from ._checks import ArgumentError
from ._runtime import capturing, compiled_op, launch

_DTYPE_NAMES = {"bfloat16": "bf16", "float16": "f16"}


def op_dtype(dtype, op):
    """The op's name for a torch dtype of attention activations (bf16, f16)."""
    name = str(dtype).replace("torch.", "")
    if name not in _DTYPE_NAMES:
        raise ArgumentError(f"tilejit.ops.{op}: dtype {name} is not supported; accepted: "
                            "bfloat16, float16")
    return _DTYPE_NAMES[name]


def torch_device(device):
    import torch
    device = torch.device(device)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", torch.cuda.current_device())
    return device


class Plan:
    """Base of the plans: `run(...)` checks every argument, then launches on the current
    stream of the plan's device without allocating (given out=), so it can be captured."""

    op_name = ""

    def _compile(self, config, device):
        self.device = torch_device(device)
        self.config = dict(config)
        self._op = compiled_op(self.op_name, self.config, self.device)

    def _launch(self, named):
        launch(self._op, named, self.device)


_CACHE_SIZE = 64
_PLANS = collections.OrderedDict()
_PLANS_LOCK = threading.Lock()


def cached_plan(key, make, device):
    """The plan for `key`, made by make() on first use (never under graph capture: a new
    plan allocates its workspaces, which must outlive the graph)."""
    with _PLANS_LOCK:
        plan = _PLANS.get(key)
        if plan is not None:
            _PLANS.move_to_end(key)
            return plan
    if capturing(device):
        raise ArgumentError(f"tilejit.ops.{key[0]}: no plan for these sizes yet and the stream is "
                            "capturing a CUDA graph; call it once before capture (or make the "
                            "plan, e.g. tilejit.ops.PagedDecodePlan, and capture plan.run)")
    plan = make()
    with _PLANS_LOCK:
        _PLANS[key] = plan
        while len(_PLANS) > _CACHE_SIZE:
            _PLANS.popitem(last=False)
    return plan
