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
