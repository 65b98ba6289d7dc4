"""What the wheel ships: the product's packages, not the benchmarks (run from a checkout)."""

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[1]


def _shipped() -> set[str]:
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"]["find"]
    return set(find_packages(str(ROOT), include=found.get("include", ("*",)),
                             exclude=found.get("exclude", ())))


def test_the_wheel_ships_no_benchmark():
    assert not {p for p in _shipped() if p == "bench" or p.startswith("bench.")}


def test_the_wheel_ships_every_product_package():
    assert {"bot", "bot.core", "bot.adapters.slack", "content", "db",
            "executors", "safetext"} <= _shipped()
