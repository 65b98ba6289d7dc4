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


def test_an_editable_install_is_a_plain_path_entry_without_a_warning_box():
    # setuptools picks its import-finder strategy, which prints an "Editable installation"
    # box on every `make demo`, unless every package sits under one declared root.
    from setuptools.command.editable_wheel import _simple_layout

    setuptools_config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    package_dir = setuptools_config.get("package-dir", {})
    assert set(package_dir) == {""}
    assert _simple_layout(sorted(_shipped()), package_dir, str(ROOT))


def test_the_licence_is_an_spdx_expression_without_deprecated_classifiers():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert not [c for c in project.get("classifiers", ()) if c.startswith("License ::")]
