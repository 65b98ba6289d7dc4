"""The shape of the house: dependencies point inward, platforms stay in their adapters."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _violations(folder: str, forbidden: tuple[str, ...]) -> list[str]:
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for name in _imports(path):
            if name.split(".")[0] in forbidden or any(name.startswith(f + ".") or name == f
                                                      for f in forbidden):
                found.append(f"{path.relative_to(ROOT)} imports {name}")
    return found


def test_core_imports_no_platform_sql_or_torch():
    forbidden = ("discord", "slack_bolt", "slack_sdk", "sqlalchemy", "alembic", "psycopg",
                 "torch", "numpy", "db", "executors", "bot.adapters", "bot.bootstrap")
    assert _violations("bot/core", forbidden) == []


def test_content_imports_no_bot_storage_or_torch():
    assert _violations("content", ("bot", "db", "executors", "sqlalchemy", "torch")) == []


def test_executors_never_import_the_bot_or_storage():
    assert _violations("executors", ("bot", "db", "discord", "slack_bolt", "sqlalchemy")) == []


def test_storage_imports_only_the_core_values_and_ports_from_the_bot():
    # bot.core.clock: the one SystemClock, a store's default when no clock is passed.
    allowed = {"bot.core.models", "bot.core.ports", "bot.core.clock"}
    found = [v for v in _violations("db", ("bot",)) if v.split(" imports ")[1] not in allowed]
    assert found == []


@pytest.mark.parametrize("platform", ["discord", "slack_bolt", "slack_sdk"])
def test_only_adapters_import_a_platform(platform):
    found = []
    for folder in ("bot/core", "db", "executors", "content"):
        found += _violations(folder, (platform,))
    for path in (ROOT / "bot").glob("*.py"):
        found += [f"{path.name} imports {n}" for n in _imports(path) if n.startswith(platform)]
    assert found == []


def test_loading_the_core_pulls_in_no_torch_or_sqlalchemy_at_run_time():
    probe = (
        "import sys, bot.core.app, bot.core.service, bot.core.board;"
        "names = ('torch', 'sqlalchemy', 'discord', 'slack_bolt');"
        "bad = sorted(m for m in names if m in sys.modules);"
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True, cwd=ROOT)
    assert result.stdout.strip() == ""


def test_the_bot_console_runs_without_torch_loaded():
    probe = (
        "import sys, bot.adapters.console.channel, bot.bootstrap, bot.cli, bot.remote_executor;"
        "print('torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True, cwd=ROOT)
    assert result.stdout.strip() == "False"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _executor_import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in (ROOT / "executors").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from executors.zygote import doctor` depends on the module doctor itself.
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
        graph[name] = {t for t in targets if t in modules and t != name}
    return graph


def test_executor_modules_import_each_other_without_cycles():
    # Function-level imports count too: a cycle hidden in a function is still a cycle to read.
    graph = _executor_import_graph()
    cycles = []
    state: dict[str, str] = {}

    def visit(node, stack):
        state[node] = "open"
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                cycles.append(" -> ".join([*stack[stack.index(target):], target]))
            elif target not in state:
                visit(target, [*stack, target])
        state[node] = "done"

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []


def test_executor_isolation_layers_know_nothing_of_grading_or_the_zygote():
    found = _violations("executors/isolation", ("executors.grading", "executors.zygote",
                                                "executors.engine", "executors.cli", "torch"))
    assert found == []


def test_the_executor_client_loads_without_torch_or_the_server():
    probe = (
        "import sys, executors.service.client;"
        "names = ('torch', 'numpy', 'aiohttp', 'prometheus_client', 'content.loader');"
        "print(','.join(sorted(m for m in names if m in sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True, cwd=ROOT)
    assert result.stdout.strip() == ""
