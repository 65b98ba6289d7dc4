"""Encode and decode the data-only format that crosses the sandbox boundary.

Layout: ``MAGIC`` + 4-byte little-endian header length + a JSON header + a blob region.
The header is a tree of JSON scalars (None, bool, int, float, str) and single-key tag
objects: ``{"list": [...]}``, ``{"tuple": [...]}``, ``{"dict": [[key, value], ...]}``,
``{"bytes": [offset, length]}``, ``{"tensor": {metadata..., "data": [offset, length]}}`` and
``{"unsupported": "<type name>"}``. Offsets point into the blob region. Nothing here uses
pickle, marshal or code evaluation, and ``decode`` never imports torch: it returns
``TensorData`` records that the trusted side turns into tensors only when it asks to.
"""

from __future__ import annotations

import ctypes
import json
import math
import struct
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAGIC = b"TQW1"
_HEADER_LEN = struct.Struct("<I")
_FRAME_LEN = struct.Struct(">I")
DEFAULT_MAX_DEPTH = 16
DEFAULT_MAX_ITEMS = 100_000
# A header is JSON metadata; values live in the blob. json.loads builds every object before
# any item limit applies, so the header's size and node count are bounded up front.
MAX_HEADER_BYTES = 2 * 1024 * 1024
MAX_INT_BITS = 64
MAX_DIMS = 16
# One string of a result: far above any honest value (an error message is capped at 500 chars
# in the harness), far below what would cost the trusted side memory to pass around.
MAX_STRING_CHARS = 64 * 1024

# Plain numeric and bool dtypes only: their bytes have one meaning and no hidden state.
DTYPE_ITEMSIZE: dict[str, int] = {
    "bool": 1,
    "uint8": 1,
    "int8": 1,
    "int16": 2,
    "int32": 4,
    "int64": 8,
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
    "complex64": 8,
    "complex128": 16,
}
_DEVICE_TYPES = ("cpu", "cuda")


class WireError(ValueError):
    """Reject data that is malformed, oversize, too deep or inconsistent."""


@dataclass(frozen=True)
class Unsupported:
    """Stand for a value the format does not carry (an object, function or odd subclass)."""

    type_name: str


@dataclass(frozen=True)
class TensorData:
    """Describe a tensor as metadata plus its values as contiguous little-endian bytes."""

    dtype: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    storage_offset: int
    requires_grad: bool
    has_grad_fn: bool
    is_leaf: bool
    device: str
    is_contiguous: bool
    data: bytes

    @property
    def numel(self) -> int:
        """Return the number of elements."""
        return math.prod(self.shape)

    def to_tensor(
        self, *, device: str = "cpu", restore_requires_grad: bool = False,
        keep_layout: bool = False,
    ) -> Any:
        """Build a plain tensor from the bytes (imports torch lazily).

        The tensor is contiguous unless ``keep_layout``: then it gets the original strides and
        storage offset, so a challenge can hand a transposed input to the submission.
        """
        import torch

        dtype = getattr(torch, self.dtype)
        if self.numel == 0:
            tensor = torch.empty(self.shape, dtype=dtype)
        else:
            tensor = torch.frombuffer(bytearray(self.data), dtype=dtype).reshape(self.shape)
        if keep_layout and not self.is_contiguous:
            tensor = _with_layout(tensor, self.strides, self.storage_offset)
        tensor = tensor.to(device)
        if restore_requires_grad and self.requires_grad and (
            tensor.is_floating_point() or tensor.is_complex()
        ):
            tensor.requires_grad_(True)
        return tensor


def _with_layout(values: Any, strides: tuple[int, ...], offset: int) -> Any:
    """Return ``values`` laid out with ``strides`` and ``offset`` in a fresh storage.

    Dimensions with stride 0 (an expanded tensor) share memory, so only their first slice is
    written. Any other overlapping layout cannot be written element by element: it stays
    contiguous, which changes no value.
    """
    import torch

    shape = tuple(values.shape)
    if len(strides) != len(shape) or any(s < 0 for s in strides) or offset < 0:
        return values
    span = offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
    if span > 4 * values.numel() + 4096:
        return values  # a small view of a huge base: the layout is not worth the memory
    storage = torch.empty(span, dtype=values.dtype)
    source = values
    written_shape = list(shape)
    for dim, stride in enumerate(strides):
        if stride == 0 and shape[dim] > 1:
            source = source.narrow(dim, 0, 1)
            written_shape[dim] = 1
    try:
        storage.as_strided(written_shape, strides, offset).copy_(source)
    except RuntimeError:
        return values
    return storage.as_strided(shape, strides, offset)


# ---------------------------------------------------------------- encoding


class _Encoder:
    def __init__(self, max_depth: int, max_items: int) -> None:
        self.max_depth = max_depth
        self.max_items = max_items
        self.items = 0
        self.blobs: list[bytes] = []
        self.blob_len = 0

    def blob(self, data: bytes) -> list[int]:
        ref = [self.blob_len, len(data)]
        self.blobs.append(data)
        self.blob_len += len(data)
        return ref

    def value(self, obj: Any, depth: int) -> Any:
        self.items += 1
        if self.items > self.max_items:
            raise WireError(f"more than {self.max_items} items")
        if depth > self.max_depth:
            raise WireError(f"nested deeper than {self.max_depth}")
        # Exact type checks: a subclass could override iteration, equality or __reduce__.
        kind = type(obj)
        if obj is None or kind is bool or kind is str:
            return obj
        if kind is int:
            if obj.bit_length() > MAX_INT_BITS:
                return {"unsupported": "int larger than 64 bits"}
            return obj
        if kind is float:
            return obj
        if kind is bytes:
            return {"bytes": self.blob(obj)}
        if kind is list:
            return {"list": [self.value(item, depth + 1) for item in list.copy(obj)]}
        if kind is tuple or _is_torch_tuple(kind):
            return {"tuple": [self.value(item, depth + 1) for item in tuple.__iter__(obj)]}
        if kind is dict:
            pairs = list(dict.items(obj))
            if any(type(key) is not str for key, _ in pairs):
                return {"unsupported": "dict with non-str keys"}
            return {"dict": [[key, self.value(item, depth + 1)] for key, item in pairs]}
        if _is_tensor_type(kind):
            return self.tensor(obj)
        return {"unsupported": _type_name(kind)}

    def tensor(self, obj: Any) -> Any:
        try:
            meta = _tensor_payload(obj)
        except Exception as exc:
            return {"unsupported": f"unreadable tensor ({type(exc).__name__})"}
        if isinstance(meta, str):
            return {"unsupported": meta}
        data = meta.pop("bytes")
        meta["data"] = self.blob(data)
        return {"tensor": meta}


def _type_name(kind: type) -> str:
    # type.__qualname__ read from the metaclass: a class cannot fake it with a property.
    try:
        module = type.__getattribute__(kind, "__module__")
        name = type.__getattribute__(kind, "__qualname__")
    except Exception:
        return "object"
    if not isinstance(module, str) or not isinstance(name, str):
        return "object"
    # __qualname__ is writable: a lone surrogate in it would make the whole record undecodable.
    text = f"{str.__str__(module)}.{str.__str__(name)}"[:200]
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _is_torch_tuple(kind: type) -> bool:
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    if kind is torch.Size:
        return True
    return_types = sys.modules.get("torch.return_types")
    return return_types is not None and kind in vars(return_types).values() and issubclass(
        kind, tuple
    )


def _is_tensor_type(kind: type) -> bool:
    torch = sys.modules.get("torch")  # no tensors can exist unless torch was imported
    return torch is not None and issubclass(kind, torch._C.TensorBase)


def _tensor_payload(obj: Any) -> dict[str, Any] | str:
    """Read a tensor's true metadata and values through the base class, never the subclass."""
    import torch

    base_cls: Any = torch._C.TensorBase  # its C descriptors are read via __get__ below
    with torch._C.DisableTorchFunction():
        if torch._C._dispatch_keys(obj).has(torch._C.DispatchKey.Python):
            return "tensor subclass with __torch_dispatch__"
        # C-level descriptors of the base class: a subclass's Python overrides are bypassed.
        if base_cls.layout.__get__(obj) is not torch.strided:
            return "tensor with a non-strided layout"
        base = base_cls.as_subclass(obj, torch.Tensor)
        dtype = str(base_cls.dtype.__get__(base)).removeprefix("torch.")
        if dtype not in DTYPE_ITEMSIZE:
            return f"tensor of dtype {dtype}"
        device = base_cls.device.__get__(base)
        if device.type not in _DEVICE_TYPES:
            return f"tensor on device {device.type}"
        meta: dict[str, Any] = {
            "dtype": dtype,
            "shape": list(base_cls.size(base)),
            "strides": list(base_cls.stride(base)),
            "storage_offset": int(base_cls.storage_offset(base)),
            "requires_grad": bool(base_cls.requires_grad.__get__(base)),
            "has_grad_fn": base_cls.grad_fn.__get__(base) is not None,
            "is_leaf": bool(base_cls.is_leaf.__get__(base)),
            "device": str(device),
            "is_contiguous": bool(base_cls.is_contiguous(base)),
        }
        with torch.no_grad():
            flat = base_cls.detach(base)
            flat = base_cls.resolve_neg(base_cls.resolve_conj(flat))
            flat = base_cls.contiguous(base_cls.to(flat, "cpu"))
            nbytes = base_cls.numel(flat) * base_cls.element_size(flat)
            meta["bytes"] = ctypes.string_at(base_cls.data_ptr(flat), nbytes) if nbytes else b""
    return meta


def encode(
    obj: Any, *, max_depth: int = DEFAULT_MAX_DEPTH, max_items: int = DEFAULT_MAX_ITEMS
) -> bytes:
    """Encode a data value; raise WireError when it is too deep or has too many items."""
    encoder = _Encoder(max_depth, max_items)
    try:
        tree = encoder.value(obj, 1)
    except RecursionError as exc:
        raise WireError("value nested too deeply") from exc
    header = json.dumps(tree, ensure_ascii=True, allow_nan=True, separators=(",", ":")).encode()
    return b"".join([MAGIC, _HEADER_LEN.pack(len(header)), header, *encoder.blobs])


# ---------------------------------------------------------------- decoding


def checked_text(value: Any, what: str = "string") -> str:
    """Return ``value`` if it is a str safe to pass on: valid Unicode, bounded; else raise.

    Every string decoded from the sandbox goes through here (values, dict keys, type names,
    tensor metadata), so nothing downstream meets a lone surrogate or a megabyte-long name.
    """
    if type(value) is not str:
        raise WireError(f"{what} must be a string")
    if len(value) > MAX_STRING_CHARS:
        raise WireError(f"{what} of {len(value)} characters is over {MAX_STRING_CHARS}")
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate from a "\ud800" escape
            raise WireError(f"{what} is not valid Unicode") from exc
    return value


class _Decoder:
    def __init__(self, blobs: bytes, max_depth: int, max_items: int) -> None:
        self.blobs = blobs
        self.max_depth = max_depth
        self.max_items = max_items
        self.items = 0

    def value(self, node: Any, depth: int) -> Any:
        self.items += 1
        if self.items > self.max_items:
            raise WireError(f"more than {self.max_items} items")
        if depth > self.max_depth:
            raise WireError(f"nested deeper than {self.max_depth}")
        if isinstance(node, str):
            return checked_text(node)
        if node is None or isinstance(node, bool | float):
            return node
        if isinstance(node, int):
            if node.bit_length() > MAX_INT_BITS:
                raise WireError("int larger than 64 bits")
            return node
        if not isinstance(node, dict) or len(node) != 1:
            raise WireError("malformed node")
        ((tag, body),) = node.items()
        checked_text(tag, "tag")
        if tag == "list":
            return [self.value(item, depth + 1) for item in _expect_list(body)]
        if tag == "tuple":
            return tuple(self.value(item, depth + 1) for item in _expect_list(body))
        if tag == "dict":
            out: dict[str, Any] = {}
            for pair in _expect_list(body):
                if not isinstance(pair, list) or len(pair) != 2:
                    raise WireError("dict entries need str keys")
                out[checked_text(pair[0], "dict key")] = self.value(pair[1], depth + 1)
            return out
        if tag == "bytes":
            return self.blob(body)
        if tag == "tensor":
            return self.tensor(body)
        if tag == "unsupported":
            return Unsupported(checked_text(body, "type name")[:200])
        raise WireError("unknown tag")

    def blob(self, ref: Any) -> bytes:
        if (
            not isinstance(ref, list)
            or len(ref) != 2
            or not all(type(x) is int and x >= 0 for x in ref)
            or ref[0] + ref[1] > len(self.blobs)
        ):
            raise WireError("blob reference out of range")
        return self.blobs[ref[0] : ref[0] + ref[1]]

    def tensor(self, meta: Any) -> TensorData:
        expected = {
            "dtype", "shape", "strides", "storage_offset", "requires_grad", "has_grad_fn",
            "is_leaf", "device", "is_contiguous", "data",
        }  # fmt: skip
        if not isinstance(meta, dict) or set(meta) != expected:
            raise WireError("malformed tensor metadata")
        dtype = checked_text(meta["dtype"], "dtype")
        if dtype not in DTYPE_ITEMSIZE:
            raise WireError("dtype not allowed")
        shape = _int_list(meta["shape"], "shape")
        strides = _int_list(meta["strides"], "strides", allow_negative=True)
        if len(strides) != len(shape):
            raise WireError("strides do not match shape")
        offset = meta["storage_offset"]
        if type(offset) is not int or offset < 0:
            raise WireError("bad storage_offset")
        flags = [meta[k] for k in ("requires_grad", "has_grad_fn", "is_leaf", "is_contiguous")]
        if not all(type(f) is bool for f in flags):
            raise WireError("tensor flags must be bools")
        device = checked_text(meta["device"], "device")
        if device.split(":", 1)[0] not in _DEVICE_TYPES:
            raise WireError("bad device")
        data = self.blob(meta["data"])
        if math.prod(shape) * DTYPE_ITEMSIZE[dtype] != len(data):
            raise WireError("tensor bytes do not match shape and dtype")
        return TensorData(
            dtype=dtype,
            shape=tuple(shape),
            strides=tuple(strides),
            storage_offset=offset,
            requires_grad=flags[0],
            has_grad_fn=flags[1],
            is_leaf=flags[2],
            device=device[:20],
            is_contiguous=flags[3],
            data=data,
        )


def _expect_list(body: Any) -> list[Any]:
    if not isinstance(body, list):
        raise WireError("malformed container")
    return body


def _int_list(value: Any, what: str, *, allow_negative: bool = False) -> list[int]:
    if not isinstance(value, list) or len(value) > MAX_DIMS:
        raise WireError(f"bad {what}")
    for x in value:
        if type(x) is not int or (x < 0 and not allow_negative) or x.bit_length() > 62:
            raise WireError(f"bad {what}")
    return value


def decode(
    data: bytes,
    *,
    max_bytes: int,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_items: int = DEFAULT_MAX_ITEMS,
) -> Any:
    """Decode bytes made by ``encode``; raise WireError on anything suspicious."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise WireError("data must be bytes")
    data = bytes(data)
    if len(data) > max_bytes:
        raise WireError(f"{len(data)} bytes is over the limit of {max_bytes}")
    prefix = len(MAGIC) + _HEADER_LEN.size
    if len(data) < prefix or not data.startswith(MAGIC):
        raise WireError("not wire data")
    (header_len,) = _HEADER_LEN.unpack_from(data, len(MAGIC))
    if prefix + header_len > len(data):
        raise WireError("truncated header")
    header = data[prefix : prefix + header_len]
    if header_len > MAX_HEADER_BYTES:
        raise WireError(f"header of {header_len} bytes is over the limit of {MAX_HEADER_BYTES}")
    # Each node opens a "{" or "[": counting them in C is cheap, building them is not.
    if header.count(b"{") + header.count(b"[") > 4 * max_items:
        raise WireError(f"more than {max_items} items")
    try:
        tree = json.loads(header.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and bad UTF-8 are ValueErrors
        raise WireError("malformed header") from exc
    decoder = _Decoder(data[prefix + header_len :], max_depth, max_items)
    try:
        return decoder.value(tree, 1)
    except RecursionError as exc:
        raise WireError("value nested too deeply") from exc


def decode_tensors(value: Any, *, device: str = "cpu") -> Any:
    """Replace every TensorData in a decoded value with a fresh tensor (used in the sandbox)."""
    if isinstance(value, TensorData):
        return value.to_tensor(device=device, restore_requires_grad=True, keep_layout=True)
    if isinstance(value, list):
        return [decode_tensors(item, device=device) for item in value]
    if isinstance(value, tuple):
        return tuple(decode_tensors(item, device=device) for item in value)
    if isinstance(value, dict):
        return {key: decode_tensors(item, device=device) for key, item in value.items()}
    return value


# ---------------------------------------------------------------- framing


def frame(payload: bytes) -> bytes:
    """Prefix a record with its length so a truncated stream is detectable."""
    return _FRAME_LEN.pack(len(payload)) + payload


def iter_frames(stream: bytes) -> Iterator[bytes]:
    """Yield complete length-prefixed frames; raise WireError if the stream ends mid-frame."""
    pos = 0
    while pos < len(stream):
        if pos + _FRAME_LEN.size > len(stream):
            raise WireError("stream truncated inside a frame header")
        (length,) = _FRAME_LEN.unpack_from(stream, pos)
        pos += _FRAME_LEN.size
        if pos + length > len(stream):
            raise WireError("stream truncated inside a frame")
        yield stream[pos : pos + length]
        pos += length
