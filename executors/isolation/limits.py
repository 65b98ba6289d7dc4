"""Resource limits for one sandboxed run."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Hold every limit one submission runs under; the same object describes CPU and GPU runs."""

    wall_s: float = 5.0
    cpu_s: int = 5
    memory_bytes: int = 512 * MIB
    pids: int = 32
    file_bytes: int = 4 * MIB
    open_files: int = 64
    output_bytes: int = 32 * 1024
    result_bytes: int = 16 * MIB
    tmpfs_bytes: int = 16 * MIB
    threads: int = 1
    gpu_memory_fraction: float = 0.25

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"limit {field.name} must be a positive number, got {value!r}")
        if self.gpu_memory_fraction > 1.0:
            raise ValueError("gpu_memory_fraction must be at most 1.0")

    def to_dict(self) -> dict[str, Any]:
        """Return the limits as plain data for the wire."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Limits:
        """Build limits from plain data, ignoring nothing and accepting no unknown keys."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown limits: {sorted(unknown)}")
        return cls(**data)
