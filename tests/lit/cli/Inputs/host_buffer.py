"""Host buffers that pass for torch tensors in tilejit's Python binding (the lit tests run
without torch)."""
import ctypes
import math
import struct


class Buffer:
    """Enough of a torch tensor for tilejit: data_ptr, dtype, dim, shape, stride."""

    _CTYPES = {"bfloat16": ctypes.c_uint16, "float32": ctypes.c_float, "int32": ctypes.c_int32}

    def __init__(self, dtype, shape, values=None):
        self.dtype, self.shape = dtype, tuple(shape)
        count = math.prod(shape)
        self.storage = (self._CTYPES[dtype] * count)()
        if values is not None:
            for i, v in enumerate(values):
                self.storage[i] = to_bf16(v) if dtype == "bfloat16" else v
        self._strides = [math.prod(shape[d + 1:]) for d in range(len(shape))]

    def data_ptr(self):
        return ctypes.addressof(self.storage)

    def dim(self):
        return len(self.shape)

    def stride(self, d):
        return self._strides[d]

    def value(self, index):
        flat = sum(i * s for i, s in zip(index, self._strides))
        raw = self.storage[flat]
        return from_bf16(raw) if self.dtype == "bfloat16" else raw

    def values(self):
        return [from_bf16(raw) if self.dtype == "bfloat16" else raw for raw in self.storage]


def to_bf16(x):
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    if x != x:
        return 0x7FC0
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF  # round to nearest even


def from_bf16(h):
    return struct.unpack("<f", struct.pack("<I", h << 16))[0]
