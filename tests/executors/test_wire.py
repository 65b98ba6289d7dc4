"""The boundary format: round trips, every rejection, lying subclasses, no pickle."""

from __future__ import annotations

import ast
import json
import math
import struct
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from executors.grading import wire
from executors.grading.wire import TensorData, Unsupported, WireError

MAX = 1 << 24


def roundtrip(value, **kw):
    return wire.decode(wire.encode(value), max_bytes=MAX, **kw)


@pytest.mark.parametrize(
    "value",
    [None, True, False, 0, -5, 2**63 - 1, 1.5, -0.0, "héllo\u2603", b"\x00\xff", [], (), {},
     [1, [2, [3]]], (1, "a", None), {"a": {"b": [1, 2.5]}}, [b"x", (b"y",)]],
)
def test_plain_values_round_trip(value):
    assert roundtrip(value) == value


def test_nan_and_infinities_round_trip():
    out = roundtrip([math.nan, math.inf, -math.inf])
    assert math.isnan(out[0]) and out[1] == math.inf and out[2] == -math.inf


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32,
                                   torch.int64, torch.float16, torch.bfloat16, torch.float32,
                                   torch.float64, torch.complex64, torch.complex128])
def test_tensor_round_trips_every_allowed_dtype(dtype):
    t = (torch.arange(6) % 2).to(dtype).reshape(2, 3)
    data = roundtrip(t)
    assert isinstance(data, TensorData)
    assert data.dtype == str(dtype).removeprefix("torch.") and data.shape == (2, 3)
    assert torch.equal(data.to_tensor(), t)


def test_tensor_metadata_is_recorded():
    leaf = torch.ones(2, 3, requires_grad=True)
    view = (leaf * 2).t()[1:]
    data = roundtrip(view)
    assert data.shape == (2, 2) and data.strides == tuple(view.stride())
    assert data.storage_offset == view.storage_offset()
    assert data.requires_grad and data.has_grad_fn and not data.is_leaf
    assert not data.is_contiguous and data.device == "cpu"
    assert torch.equal(data.to_tensor(), view.detach())


def test_conj_and_empty_tensors_round_trip():
    c = torch.tensor([1 + 2j]).conj()
    assert torch.equal(roundtrip(c).to_tensor(), torch.tensor([1 - 2j]))
    assert roundtrip(torch.empty(0, 4)).to_tensor().shape == (0, 4)


def test_to_tensor_restores_requires_grad_on_request():
    data = roundtrip(torch.ones(2, requires_grad=True))
    assert not data.to_tensor().requires_grad
    assert data.to_tensor(restore_requires_grad=True).requires_grad


def test_decode_tensors_rebuilds_nested_tensors():
    value = wire.decode_tensors(roundtrip({"a": [torch.ones(2)], "b": (1,)}))
    assert torch.equal(value["a"][0], torch.ones(2)) and value["b"] == (1,)


class Liar(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return torch.zeros(3)

    def tolist(self):
        return [0.0, 0.0, 0.0]

    def numpy(self):
        raise RuntimeError("no")

    @property
    def shape(self):
        return (99,)


def test_tensor_subclass_cannot_lie_about_its_data():
    data = roundtrip(torch.tensor([1.0, 2.0, 3.0]).as_subclass(Liar))
    assert data.shape == (3,)
    assert data.to_tensor().tolist() == [1.0, 2.0, 3.0]


class EvilList(list):
    def __iter__(self):
        raise RuntimeError("should not be called")


class Reducer:
    def __reduce__(self):
        return (print, ("pwned",))


@pytest.mark.parametrize(
    ("value", "name"),
    [(object(), "builtins.object"), (EvilList([1]), "EvilList"), (Reducer(), "Reducer"),
     (print, "builtin_function_or_method"), ({1: 2}, "dict with non-str keys"),
     (2**100, "int larger than 64 bits"), (torch.ones(2).to_sparse(), "non-strided"),
     (torch.empty(2, dtype=torch.uint16), "dtype uint16"),
     (torch.empty(2, device="meta"), "device meta")],
)
def test_other_values_become_unsupported_markers(value, name):
    out = roundtrip(value)
    assert isinstance(out, Unsupported) and name in out.type_name


def test_encode_rejects_too_deep_and_cycles():
    deep: list = []
    for _ in range(40):
        deep = [deep]
    with pytest.raises(WireError):
        wire.encode(deep)
    cyc: list = []
    cyc.append(cyc)
    with pytest.raises(WireError):
        wire.encode(cyc)


def _raw(header: object, blobs: bytes = b"") -> bytes:
    h = json.dumps(header).encode()
    return wire.MAGIC + struct.pack("<I", len(h)) + h + blobs


def _tensor_header(**over):
    meta = {"dtype": "float32", "shape": [2], "strides": [1], "storage_offset": 0,
            "requires_grad": False, "has_grad_fn": False, "is_leaf": True, "device": "cpu",
            "is_contiguous": True, "data": [0, 8]}
    meta.update(over)
    return {"tensor": meta}


@pytest.mark.parametrize(
    ("data", "kw"),
    [
        (wire.encode([[[[1]]]]), {"max_depth": 3}),
        (wire.encode(list(range(100))), {"max_items": 50}),
        (wire.encode(b"x" * 100), {"max_bytes": 50}),
        (b"nope", {}),
        (wire.MAGIC + struct.pack("<I", 1000) + b"{}", {}),
        (_raw({"weird": 1}), {}),
        (_raw({"dict": [[1, 2]]}), {}),
        (_raw({"bytes": [0, 10]}, b"abc"), {}),
        (_raw({"list": [1], "tuple": []}), {}),
        (_raw(2**70), {}),
        (_raw(_tensor_header(dtype="object"), b"\x00" * 8), {}),
        (_raw(_tensor_header(dtype="qint8"), b"\x00" * 8), {}),
        (_raw(_tensor_header(shape=[3]), b"\x00" * 8), {}),
        (_raw(_tensor_header(strides=[1, 1]), b"\x00" * 8), {}),
        (_raw(_tensor_header(shape=[-2]), b"\x00" * 8), {}),
        (_raw(_tensor_header(device="tpu"), b"\x00" * 8), {}),
        (_raw(_tensor_header(requires_grad="yes"), b"\x00" * 8), {}),
        (_raw({"tensor": {"dtype": "float32"}}), {}),
        (wire.MAGIC + struct.pack("<I", 2) + b"\xff\xfe", {}),
        (wire.MAGIC + struct.pack("<I", 200_001) + b"[" * 100_000 + b"]" * 100_001, {}),
    ],
    ids=["depth", "items", "size", "magic", "header-len", "tag", "non-str-key", "blob-range",
         "two-tags", "huge-int", "dtype-object", "dtype-quantized", "nbytes-vs-shape",
         "strides-rank", "negative-shape", "device", "flag-type", "missing-meta", "utf8",
         "json-recursion"],
)
def test_decode_rejects(data, kw):
    kw.setdefault("max_bytes", MAX)
    with pytest.raises(WireError):
        wire.decode(data, **kw)


def test_frames_detect_truncation():
    stream = wire.frame(b"abc") + wire.frame(b"defg")
    assert list(wire.iter_frames(stream)) == [b"abc", b"defg"]
    with pytest.raises(WireError):
        list(wire.iter_frames(stream[:-1]))
    with pytest.raises(WireError):
        list(wire.iter_frames(stream[:2]))


def test_wire_module_never_uses_pickle_marshal_or_eval():
    tree = ast.parse(Path(wire.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import | ast.ImportFrom)
                for alias in (node.names if isinstance(node, ast.Import) else
                              [ast.alias(node.module or "")])}
    assert not imported & {"pickle", "marshal", "shelve", "dill", "copyreg", "cloudpickle"}
    called = {node.func.id for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not called & {"eval", "exec", "compile", "__import__"}


def test_decode_works_without_importing_torch():
    payload = wire.encode({"t": torch.ones(2), "x": [1, "a"]})
    script = (
        "import sys\n"
        "from executors.grading import wire\n"
        "v = wire.decode(sys.stdin.buffer.read(), max_bytes=1 << 20)\n"
        "assert v['t'].shape == (2,) and v['x'] == [1, 'a']\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", script], input=payload, capture_output=True,
                         cwd=Path(wire.__file__).parents[1], timeout=60, check=False)
    assert out.stdout.strip() == b"ok", out.stderr
