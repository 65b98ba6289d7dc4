"""The registry is the one list of commands: the listing, the manifests and the README follow it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from bot import registry_cli
from bot.adapters.slack.manifest import manifest_yaml
from bot.core.desk.catalog import REGISTRY
from bot.core.kernel.i18n import COMMAND_NAMES, PLATFORMS

ROOT = Path(__file__).resolve().parents[3]
PRODUCT = ("bot", "db", "executors", "content", "safetext")


def test_commands_json_lists_every_command_with_its_names_options_and_help(capsys):
    assert registry_cli.main(["commands", "--json"]) == 0
    listed = {entry["key"]: entry for entry in json.loads(capsys.readouterr().out)}
    assert set(listed) == set(COMMAND_NAMES)
    assert listed["privacy"]["names"] == {"discord": "/quiz-privacy", "slack": "/quiz-privacy",
                                          "console": "/privacy"}
    assert listed["stats"]["names"]["slack"] == "/quiz-stats"
    assert listed["insights"]["admin_only"] is True
    assert listed["quiz"]["admin_only"] is False
    topic = listed["explain"]["options"][0]
    assert (topic["name"], topic["required"], topic["autocomplete"]) == ("topic", True, "explain")
    assert listed["remind"]["options"][1] | {"description": ""} == {
        "name": "hour", "type": "integer", "required": False, "description": "", "min": 0,
        "max": 23}
    assert all(entry["help"]["en"] and entry["help"]["zh-CN"] for entry in listed.values())


@pytest.mark.parametrize(("http", "path"), [(False, "slack-manifest.yml"),
                                            (True, "slack-manifest-http.yml")])
def test_the_shipped_slack_manifest_is_what_torchquiz_slack_manifest_prints(http, path, capsys):
    assert registry_cli.main(["slack", "manifest", *(["--http"] if http else [])]) == 0
    printed = capsys.readouterr().out
    assert printed == manifest_yaml(http)
    assert (ROOT / "deploy" / path).read_text(encoding="utf-8") == printed, (
        f"regenerate it: torchquiz slack manifest {'--http ' if http else ''}> deploy/{path}")


def test_the_readme_command_table_is_the_registry_s():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("<!-- commands:start -->\n")[1].split("\n<!-- commands:end -->")[0]
    assert table == registry_cli.commands_table(), "paste the output of `torchquiz commands`"


def _literals(path: Path) -> str:
    """Return the string literals of a source file, docstrings left out (comments are not)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return "\n".join(node.value for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str)
                     and id(node) not in docstrings)


def _product_files() -> list[Path]:
    return [p for top in PRODUCT for p in (ROOT / top).rglob("*.py")
            if "migrations" not in p.parts]


def test_no_command_s_slash_name_is_typed_in_more_than_one_product_file():
    names = {f"/{name}" for platforms in COMMAND_NAMES.values() for name in platforms.values()}
    found: dict[str, set[str]] = {name: set() for name in names}
    for path in _product_files():
        text = _literals(path)
        for name in names:
            if re.search(r"(?<![\w/.{-])" + re.escape(name) + r"(?![\w-])", text):
                found[name].add(str(path.relative_to(ROOT)))
    twice = {name: sorted(files) for name, files in found.items() if len(files) > 1}
    assert not twice, f"name the command through the registry or i18n.slash(): {twice}"


def test_every_command_has_a_name_on_each_platform_and_one_declaration():
    assert [c.key for c in REGISTRY] == list(COMMAND_NAMES)
    for command in REGISTRY:
        assert all(command.name(p) for p in PLATFORMS), command.key
        for platform in PLATFORMS:
            assert REGISTRY.by_name(platform, f"/{command.name(platform)}") is command


def test_every_button_kind_the_id_parser_knows_has_one_handler():
    from bot.core.kernel.messages import ACTION_KINDS

    assert sorted(REGISTRY.action_kinds()) == sorted(ACTION_KINDS)


def test_a_button_kind_declared_twice_is_refused():
    from bot.core.kernel.commands import Action, Registry

    def handler(desk, who, kind, target, key):
        raise AssertionError("never called")

    with pytest.raises(ValueError, match="declared twice"):
        Registry((), (Action(("share",), handler), Action(("share", "forget"), handler)))
