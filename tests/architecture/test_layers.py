"""The shape of the house: dependencies point inward, platforms stay in their adapters."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


PACKAGES = ("bot", "content", "db", "executors", "safetext", "bench")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(path: Path, node: ast.ImportFrom) -> str:
    """Return the module an import names, with a relative import resolved against ``path``."""
    if node.level == 0:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imports(path: Path) -> set[str]:
    """Return every module ``path`` imports, at any depth (in functions too), relative resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(path, node)
            names.add(module)
            # `from bot.core import desk` depends on bot.core.desk itself.
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def _source_files() -> list[Path]:
    return sorted(p for package in PACKAGES if (ROOT / package).is_dir()
                  for p in (ROOT / package).rglob("*.py"))


def _is(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _violations(folder: str, forbidden: tuple[str, ...]) -> list[str]:
    found = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for name in sorted(_imports(path)):
            if any(_is(name, f) for f in forbidden):
                found.append(f"{path.relative_to(ROOT)} imports {name}")
    return found


def _project_imports(path: Path) -> set[str]:
    return {n for n in _imports(path) if n.split(".")[0] in PACKAGES}


def test_relative_imports_are_resolved_like_absolute_ones(tmp_path):
    package = ROOT / "bot" / "core"
    node = ast.parse("from ..adapters import chat").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(package / "desk.py", node) == "bot.adapters"
    node = ast.parse("from . import models").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _absolute(package / "__init__.py", node) == "bot.core"


def test_the_core_imports_only_the_core_and_content_from_the_project():
    found = []
    for path in sorted((ROOT / "bot" / "core").rglob("*.py")):
        for name in sorted(_project_imports(path)):
            if not (_is(name, "bot.core") or _is(name, "content")):
                found.append(f"{path.relative_to(ROOT)} imports {name}")
    assert found == []


ADAPTER_MAY_IMPORT = ("bot.core", "bot.adapters.chat", "bot.settings", "safetext", "content")


def _subpackages(folder: str, leave_out: tuple[str, ...] = ()) -> list[str]:
    """Return the packages directly under ``folder`` (a folder with an __init__.py)."""
    return sorted(p.name for p in (ROOT / folder).iterdir()
                  if (p / "__init__.py").is_file() and p.name not in leave_out)


ADAPTERS = _subpackages("bot/adapters")
# The kernel sits under every feature; the desk (where chat requests enter) above them all.
FEATURES = _subpackages("bot/core", leave_out=("kernel", "desk"))


def _public_names(feature: str) -> set[str]:
    """Return what a feature's package lists in ``__all__``: its public API to other features."""
    tree = ast.parse((ROOT / "bot" / "core" / feature / "__init__.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return {ast.literal_eval(e) for e in node.value.elts}  # type: ignore[attr-defined]
    return set()


def _core_imports(path: Path) -> list[tuple[str, tuple[str, ...]]]:
    """Return each import of ``bot.core`` in ``path`` as (module, names), relative resolved."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, ()) for a in node.names if _is(a.name, "bot.core")]
        elif isinstance(node, ast.ImportFrom) and _is(module := _absolute(path, node), "bot.core"):
            found.append((module, tuple(a.name for a in node.names)))
    return found


def test_the_layer_test_finds_the_adapters_and_the_features_on_disk():
    # Discovered, not listed: a fifth front end or a new feature is checked the day it lands.
    assert {"chat", "console", "discord", "slack", "web"} <= set(ADAPTERS)
    assert {"rounds", "learning", "boards", "quality", "packs", "people", "channels",
            "signin"} <= set(FEATURES)


def test_the_kernel_imports_no_feature():
    found = [f"{path.relative_to(ROOT)} imports {module}"
             for path in sorted((ROOT / "bot" / "core" / "kernel").rglob("*.py"))
             for module, _ in _core_imports(path) if not _is(module, "bot.core.kernel")]
    assert found == []


@pytest.mark.parametrize("feature", FEATURES)
def test_a_feature_imports_the_kernel_itself_and_other_features_public_api_only(feature):
    found = []
    for path in sorted((ROOT / "bot" / "core" / feature).rglob("*.py")):
        for module, names in _core_imports(path):
            if _is(module, "bot.core.kernel") or _is(module, f"bot.core.{feature}"):
                continue
            other = module.removeprefix("bot.core.")
            if other in FEATURES and names and set(names) <= _public_names(other):
                continue
            found.append(f"{path.relative_to(ROOT)} imports {module} {', '.join(names)}")
    assert found == []


def test_the_desk_imports_the_kernel_and_the_features_public_api_only():
    # Above the features: bot.core.quiz (the services, built once) and bot.core.store (the
    # union of their store ports) are the only other things it may name.
    found = []
    for path in sorted((ROOT / "bot" / "core" / "desk").rglob("*.py")):
        for module, names in _core_imports(path):
            if any(_is(module, ok) for ok in ("bot.core.kernel", "bot.core.desk",
                                               "bot.core.quiz", "bot.core.store")):
                continue
            other = module.removeprefix("bot.core.")
            if other in FEATURES and names and set(names) <= _public_names(other):
                continue
            found.append(f"{path.relative_to(ROOT)} imports {module} {', '.join(names)}")
    assert found == []


def test_nothing_below_the_desk_imports_it():
    found = [f"{path.relative_to(ROOT)} imports {module}"
             for folder in ("kernel", *FEATURES)
             for path in sorted((ROOT / "bot" / "core" / folder).rglob("*.py"))
             for module, _ in _core_imports(path) if _is(module, "bot.core.desk")]
    assert found == []


def test_the_features_depend_on_each_other_without_a_cycle():
    # Each feature's package re-exports its modules, so a cycle between two features would be
    # an import cycle at start-up, not only a tangle to read.
    graph = {f: set() for f in FEATURES}
    for feature in FEATURES:
        for path in (ROOT / "bot" / "core" / feature).rglob("*.py"):
            graph[feature] |= {m.split(".")[2] for m, _ in _core_imports(path)
                               if m.count(".") >= 2 and m.split(".")[2] in FEATURES} - {feature}
    order: list[str] = []
    while graph:
        ready = sorted(f for f, needs in graph.items() if not needs - set(order))
        assert ready, f"features in a cycle: {sorted(graph)}"
        order += ready
        for f in ready:
            del graph[f]


@pytest.mark.parametrize("platform", ADAPTERS)
def test_an_adapter_imports_the_core_the_shared_front_and_itself_only(platform):
    own = f"bot.adapters.{platform}"
    found = []
    for path in sorted((ROOT / "bot" / "adapters" / platform).rglob("*.py")):
        for name in sorted(_project_imports(path)):
            if not (_is(name, own) or any(_is(name, ok) for ok in ADAPTER_MAY_IMPORT)
                    or name == "bot.adapters"):
                found.append(f"{path.relative_to(ROOT)} imports {name}")
    assert found == []


def test_no_module_of_the_project_imports_itself_back_through_a_cycle():
    # Function-level imports count too: a cycle hidden in a function is still a cycle to read.
    modules = {_module_name(p): p for p in _source_files()}
    graph = {name: {t for t in _project_imports(path) if t in modules and t != name}
             for name, path in modules.items()}
    for name in list(graph):
        # A package's __init__ is imported with each of its modules: not an edge back.
        graph[name] = {t for t in graph[name] if not name.startswith(t + ".")}
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


def test_core_imports_no_platform_sql_or_torch():
    forbidden = ("discord", "slack_bolt", "slack_sdk", "sqlalchemy", "alembic", "psycopg",
                 "torch", "numpy", "apscheduler", "matplotlib")
    assert _violations("bot/core", forbidden) == []


def test_content_imports_no_bot_storage_or_torch():
    assert _violations("content", ("bot", "db", "executors", "sqlalchemy", "torch")) == []


def test_executors_never_import_the_bot_or_storage():
    assert _violations("executors", ("bot", "db", "discord", "slack_bolt", "sqlalchemy")) == []


def test_storage_imports_no_chat_platform():
    # Slack's installation stores live with the Slack adapter (bot/adapters/slack/
    # installations.py); the composition root hands them the engine.
    forbidden = ("discord", "slack_bolt", "slack_sdk", "aiohttp", "bot.adapters")
    assert _violations("db", forbidden) == []


def test_storage_imports_only_the_core_values_and_ports_from_the_bot():
    # bot.core.kernel.clock: the one SystemClock, a store's default when no clock is passed;
    # bot.core.store: the union of the features' store ports, which db/ implements.
    allowed = ("bot.core.kernel.models", "bot.core.kernel.ports", "bot.core.kernel.clock",
               "bot.core.store")
    found = [v for v in _violations("db", ("bot",))
             if not any(_is(v.split(" imports ")[1], ok) for ok in allowed)]
    assert found == []


@pytest.mark.parametrize("platform", ["discord", "slack_bolt", "slack_sdk"])
def test_only_adapters_import_a_platform(platform):
    found = []
    for folder in ("bot/core", "db", "executors", "content"):
        found += _violations(folder, (platform,))
    for path in (ROOT / "bot").glob("*.py"):
        if path.name == "bootstrap.py":
            continue  # the composition root builds each platform's bot
        found += [f"{path.name} imports {n}" for n in _imports(path) if _is(n, platform)]
    assert found == []


def test_loading_the_core_pulls_in_no_torch_or_sqlalchemy_at_run_time():
    probe = (
        "import sys, bot.core.quiz, bot.core.rounds.service, bot.core.boards.board;"
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


@pytest.mark.parametrize("platform", ["discord", "slack"])
def test_a_publisher_posts_what_it_is_handed_and_asks_the_core_nothing(platform):
    # An output port: the reveal carries its closed post, a late result its locale.
    path = ROOT / "bot" / "adapters" / platform / "publisher.py"
    reaching = {n for n in _imports(path)
                if _is(n, "bot.adapters.chat.runtime") or _is(n, "bot.core.quiz")
                or _is(n, "bot.core.desk")}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = {node.attr for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr in ("runtime", "quiz", "desk")}
    assert (reaching, calls) == (set(), set())


def test_only_the_composition_root_builds_engines_and_stores():
    # One builder: the CLIs, the scheduler and the adapters get what they need from
    # bot/bootstrap.py, which alone creates engines and the QuizStore.
    forbidden = ("db.engine", "db.store", "sqlalchemy.create_engine", "sqlalchemy.text")
    found = []
    for path in sorted((ROOT / "bot").rglob("*.py")):
        if path.name == "bootstrap.py" and path.parent == ROOT / "bot":
            continue
        found += [f"{path.relative_to(ROOT)} imports {n}" for n in sorted(_imports(path))
                  if any(_is(n, f) for f in forbidden)]
    assert found == []


def test_no_command_line_front_end_reaches_a_store():
    # `torchquiz ...` asks bootstrap for a service or a port (operator_app, pack_shelf); the
    # ports' implementations over storage (bot/pack_tools.py, bot/pack_source.py) stay apart.
    clis = sorted([ROOT / "bot" / "cli.py", *(ROOT / "bot").glob("*_cli.py")])
    found = [f"{path.name} imports {n}" for path in clis for n in sorted(_imports(path))
             if n.startswith("db.store")]
    assert len(clis) > 3 and found == []
