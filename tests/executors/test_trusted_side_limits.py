"""Hostile result streams cost the trusted side little, and odd text cannot break its output."""

from __future__ import annotations

import json
import struct

import pytest

from executors.engine import decode_stream
from executors.grading import wire


def _raw(header: bytes) -> bytes:
    return wire.MAGIC + struct.pack("<I", len(header)) + header


def test_header_over_the_cap_is_refused_before_parsing():
    header = b"[" + b"0," * (wire.MAX_HEADER_BYTES // 2) + b"0]"
    with pytest.raises(wire.WireError, match="header of"):
        wire.decode(_raw(header), max_bytes=len(header) + 64)


def test_header_with_more_nodes_than_allowed_is_refused_before_parsing():
    header = json.dumps({"list": [{"list": []}] * 5000}).encode()
    with pytest.raises(wire.WireError, match="more than 1000 items"):
        wire.decode(_raw(header), max_bytes=1 << 20, max_items=1000)


def test_lone_surrogate_in_a_string_is_refused():
    header = b'{"list": ["boom \\ud800"]}'
    with pytest.raises(wire.WireError, match="not valid Unicode"):
        wire.decode(_raw(header), max_bytes=1 << 20)


def test_ordinary_unicode_text_still_round_trips():
    assert wire.decode(wire.encode(["detach 分离", "ok ✓"]), max_bytes=1 << 20) == [
        "detach 分离", "ok ✓"]


def test_a_flood_of_frames_stops_after_one_record_per_test():
    frame = wire.frame(wire.encode({"case": 0, "ok": True, "output": 1}))
    records, broken = decode_stream(frame * 100_000, max_bytes=1 << 20, max_records=4)
    assert len(records) == 4 and broken == "more than 4 records"


@pytest.mark.sandbox
def test_exception_text_with_a_lone_surrogate_is_escaped_not_fatal(run_code):
    out = run_code("def f():\n    raise ValueError('boom \\ud800 end')\n")
    error = out.records[1]["error"]
    assert error["type"] == "ValueError" and error["message"] == "boom \\ud800 end"
    json.dumps(error, ensure_ascii=False).encode("utf-8")  # what `torchquiz exec` prints


TENSOR_META = ('"dtype": "float32", "shape": [1], "strides": [1], "storage_offset": 0, '
               '"requires_grad": false, "has_grad_fn": false, "is_leaf": true, '
               '"is_contiguous": true, "data": [0, 4], "device": "cpu"')


@pytest.mark.parametrize(("header", "fragment"), [
    pytest.param(b'{"dict": [["key \\udfff", 1]]}', "dict key is not valid Unicode", id="dict-key"),
    pytest.param(b'{"unsupported": "Odd\\ud800"}', "type name is not valid Unicode",
                 id="type-name"),
    pytest.param(b'{"unsupported": ["not", "a", "name"]}', "type name must be a string",
                 id="type-name-list"),
    pytest.param(b'{"dict": [[["list", "key"], 1]]}', "dict key must be a string",
                 id="dict-key-list"),
    pytest.param(('{"tensor": {' + TENSOR_META.replace('"float32"', '["float32"]') + '}}').encode(),
                 "dtype must be a string", id="dtype-list"),
    pytest.param(('{"tensor": {' + TENSOR_META.replace('"cpu"', '"cpu\\ud800"') + '}}').encode(),
                 "device is not valid Unicode", id="device-surrogate"),
    pytest.param(b'"' + b"x" * (wire.MAX_STRING_CHARS + 1) + b'"', "characters is over",
                 id="huge-string"),
])
def test_every_string_from_the_sandbox_is_checked_by_one_validator(header, fragment):
    data = _raw(header) + b"\0\0\0\0"
    with pytest.raises(wire.WireError, match=fragment):
        wire.decode(data, max_bytes=len(data) + 64)


def test_wire_errors_never_echo_what_the_sandbox_sent():
    header = b'{"\\u001b[31mforged": 1}'
    with pytest.raises(wire.WireError) as info:
        wire.decode(_raw(header), max_bytes=1 << 20)
    assert "forged" not in str(info.value) and "\x1b" not in str(info.value)
