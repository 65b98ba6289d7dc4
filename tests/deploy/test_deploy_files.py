"""The Dockerfile, compose file and Kubernetes example: linted, validated, in step with the code.

The consistency tests read what the code uses (settings, variables, the port, the targets)
from the code itself, so adding a setting without documenting it in .env.example, or moving
the port without moving the manifests, fails here.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.settings import Settings
from executors.cli.service_command import _parser as executor_parser
from executors.service.protocol import DEFAULT_PORT, HEALTH_PATH
from tests.deploy.images import COMPOSE_TEST_FILE, REPO, torch_pin

BIN = Path(sys.executable).parent
DOCKERFILE = (REPO / "Dockerfile").read_text()
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text())
COMPOSE_GPU = yaml.safe_load((REPO / "docker-compose.gpu.yml").read_text())
K8S = [doc for path in sorted((REPO / "deploy" / "k8s").glob("*.yaml"))
       for doc in yaml.safe_load_all(path.read_text()) if doc]
PROFILE = REPO / "deploy" / "seccomp" / "executor.json"
# Where commands are documented: a GPU command in one of them needs its CPU variant there too.
DOCUMENTED = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "Dockerfile",
              REPO / "docker-compose.yml", REPO / "docker-compose.gpu.yml"]
# What makes a command a GPU command; without these parts it is its CPU variant.
GPU_PARTS = (r"\s--gpus[ =]\S+", r"\s-f docker-compose\.yml -f docker-compose\.gpu\.yml")
# After the drain, serve still closes its server and the zygote before it exits.
EXIT_MARGIN_S = 5
# Read by the test suite only, never by torchquiz itself.
TEST_ONLY = {"TORCHQUIZ_TEST_PG_URL", "TORCHQUIZ_TEST_DOCKER_HOST", "TORCHQUIZ_TEST_DOCKER_DIR",
             "TORCHQUIZ_PREBUILD_IMAGES"}


def _tool(name: str) -> str:
    found = shutil.which(name, path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is missing: CI must run this check", pytrace=False)
        pytest.skip(f"{name} is not installed (`make test` installs it)")
    return found


def _env_example() -> dict[str, str]:
    # A commented line documents a variable that is unset by default.
    pairs = re.findall(r"^(?:# )?([A-Z][A-Z0-9_]*)=(.*)$", (REPO / ".env.example").read_text(),
                       re.MULTILINE)
    return dict(pairs)


def variables_the_code_reads() -> set[str]:
    """Return every environment variable named by the settings or by a constant in the code."""
    names = set()
    prefix = Settings.model_config.get("env_prefix", "")
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        names.add(alias if isinstance(alias, str) else f"{prefix}{name}".upper())
    pattern = re.compile(r"(TORCHQUIZ|DISCORD|SLACK)_[A-Z0-9_]+")
    for folder in ("bot", "executors", "db", "content"):
        for path in (REPO / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                        and pattern.fullmatch(node.value)):
                    names.add(node.value)
    return names - TEST_ONLY


def _k8s(kind: str, name: str) -> dict:
    return next(d for d in K8S if d["kind"] == kind and d["metadata"]["name"] == name)


def _container(deployment: dict) -> dict:
    return deployment["spec"]["template"]["spec"]["containers"][0]


# ---------------------------------------------------------------- linters and validators

@pytest.mark.parametrize("dockerfile", ["Dockerfile", "tests/deploy/postgres/Dockerfile"])
def test_hadolint_passes_on_the_dockerfile(dockerfile):
    result = subprocess.run([_tool("hadolint"), "--config", str(REPO / ".hadolint.yaml"),
                             str(REPO / dockerfile)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def _compose_command() -> list[str]:
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True,
                                 check=False).returncode == 0:
        return [docker, "compose"]
    return [_tool("docker-compose")]


@pytest.mark.parametrize("overlay", [None, REPO / "docker-compose.gpu.yml", COMPOSE_TEST_FILE],
                         ids=["cpu", "gpu", "test"])
def test_the_compose_file_validates_with_a_real_compose_implementation(overlay):
    env = {**os.environ, "TORCHQUIZ_EXECUTOR_TOKEN": "x"}  # the one variable it insists on
    files = ["-f", str(REPO / "docker-compose.yml")] + (["-f", str(overlay)] if overlay else [])
    result = subprocess.run([*_compose_command(), "--env-file", str(REPO / ".env.example"),
                             *files, "config", "-q"],
                            capture_output=True, text=True, check=False, cwd=REPO, env=env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_kubernetes_manifests_validate_against_the_offline_schemas():
    files = [str(p) for p in sorted((REPO / "deploy" / "k8s").glob("*.yaml"))]
    result = subprocess.run([_tool("kubernetes-validate"), "--strict", *files],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("passed for resource") == len(K8S)


# ---------------------------------------------------------------- in step with the code

def test_every_variable_the_code_reads_is_in_env_example():
    missing = sorted(variables_the_code_reads() - set(_env_example()))
    assert missing == []


def test_every_variable_compose_and_kubernetes_pass_is_one_the_code_or_compose_knows():
    known = set(_env_example())
    compose_text = "".join((REPO / name).read_text()
                           for name in ("docker-compose.yml", "docker-compose.gpu.yml"))
    referenced = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", compose_text))
    passed = {name for service in COMPOSE["services"].values()
              for name in (service.get("environment") or {})
              if name.startswith(("TORCHQUIZ_", "DISCORD_", "SLACK_"))}
    passed |= {e["name"] for d in K8S if d["kind"] == "Deployment"
               for c in d["spec"]["template"]["spec"]["containers"] for e in c.get("env", [])}
    assert sorted(referenced - known) == []
    assert sorted(passed - variables_the_code_reads()) == []


def test_the_dockerfile_has_both_targets_and_a_base_image_argument_for_each():
    targets = {target: arg for arg, target in
               re.findall(r"^FROM \$\{(\w+)\} AS ([\w-]+)$", DOCKERFILE, re.MULTILINE)}
    assert targets["bot"] == "BOT_BASE_IMAGE" and targets["executor"] == "EXECUTOR_BASE_IMAGE"
    for arg in ("BOT_BASE_IMAGE", "EXECUTOR_BASE_IMAGE"):
        assert re.search(rf"^ARG {arg}=\S+", DOCKERFILE, re.MULTILINE), arg
    assert {s["build"]["target"] for s in COMPOSE["services"].values() if "build" in s} == {
        "bot", "executor"}


def test_the_dockerfile_installs_the_pinned_torch_and_copies_every_package():
    assert f"ARG TORCH_VERSION={torch_pin()}" in DOCKERFILE
    for package in ("bot", "content", "db", "executors", "safetext"):
        assert DOCKERFILE.count(f"COPY {package} /src/{package}") == 2, package


def test_the_executor_port_and_health_path_agree_everywhere():
    assert f"EXPOSE {DEFAULT_PORT}" in DOCKERFILE
    # serve and the HEALTHCHECK's probe both read the port from this variable.
    assert f"TORCHQUIZ_EXECUTOR_PORT={DEFAULT_PORT}" in DOCKERFILE
    assert "executors.cli.health_command" in DOCKERFILE.split("HEALTHCHECK", 1)[1]
    services = COMPOSE["services"]
    assert services["executor"]["expose"] == [str(DEFAULT_PORT)]
    assert services["bot"]["environment"]["TORCHQUIZ_EXECUTOR_URLS"] == (
        f"http://executor:{DEFAULT_PORT}")
    executor = _container(_k8s("Deployment", "torchquiz-executor"))
    assert executor["ports"] == [{"name": "http", "containerPort": DEFAULT_PORT}]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert executor[probe]["httpGet"] == {"path": HEALTH_PATH, "port": "http"}
    service = _k8s("Service", "torchquiz-executor")
    assert service["spec"]["ports"][0]["port"] == DEFAULT_PORT
    bot_env = {e["name"]: e for e in _container(_k8s("Deployment", "torchquiz-bot"))["env"]}
    assert bot_env["TORCHQUIZ_EXECUTOR_URLS"]["value"] == (
        f"http://{service['metadata']['name']}:{DEFAULT_PORT}")


def test_the_bot_probes_its_own_health_port_and_stays_alive_through_a_database_outage():
    from bot.adapters.chat.health import HEALTH_PATH as BOT_HEALTH_PATH
    from bot.settings import Settings

    bot = _container(_k8s("Deployment", "torchquiz-bot"))
    env = {e["name"]: e.get("value") for e in bot["env"]}
    port = int(env["TORCHQUIZ_HEALTH_PORT"])
    assert port == Settings.model_fields["health_port"].default
    assert env["TORCHQUIZ_HEALTH_HOST"] == "0.0.0.0"  # noqa: S104 - inside the pod
    assert bot["ports"] == [{"name": "health", "containerPort": port}]
    for probe in ("startupProbe", "readinessProbe"):
        assert bot[probe]["httpGet"] == {"path": BOT_HEALTH_PATH, "port": "health"}
    # /healthz says 503 while the database is down; restarting would not bring it back.
    assert bot["livenessProbe"] == {"tcpSocket": {"port": "health"}, "periodSeconds": 20,
                                    "failureThreshold": 3}


def test_the_executor_gets_a_gpu_and_the_sandbox_flags_but_never_privileged():
    service = COMPOSE["services"]["executor"]
    # The base file starts on a CPU-only host; the GPU file adds one GPU per replica.
    assert "deploy" not in service
    assert set(COMPOSE_GPU["services"]) == {"executor"}
    [device] = COMPOSE_GPU["services"]["executor"]["deploy"]["resources"]["reservations"][
        "devices"]
    assert device["capabilities"] == ["gpu"] and "container_name" not in service
    assert service["cap_add"] == ["SYS_ADMIN"] and not service.get("privileged")
    assert service["security_opt"] == [f"seccomp=./{PROFILE.relative_to(REPO)}"]
    executor = _container(_k8s("Deployment", "torchquiz-executor"))
    assert executor["resources"]["limits"]["nvidia.com/gpu"] == 1
    context = executor["securityContext"]
    assert context["capabilities"]["add"] == ["SYS_ADMIN"] and context["privileged"] is False
    assert context["seccompProfile"]["type"] == "Localhost"
    assert context["seccompProfile"]["localhostProfile"].endswith(PROFILE.name)
    run_lines = [line for line in (REPO / "docs/executor-service.md").read_text().splitlines()
                 if "docker run" in line or line.startswith("    ")]
    assert not any("--privileged" in line for line in run_lines)


def test_every_secret_a_deployment_references_exists_in_the_example_secret():
    secret = _k8s("Secret", "torchquiz")
    refs = {(e["valueFrom"]["secretKeyRef"]["name"], e["valueFrom"]["secretKeyRef"]["key"])
            for d in K8S if d["kind"] == "Deployment"
            for c in d["spec"]["template"]["spec"]["containers"] for e in c.get("env", [])
            if "valueFrom" in e}
    assert refs and refs <= {("torchquiz", key) for key in secret["stringData"]}


def test_the_seccomp_profile_is_an_allowlist_with_the_sandbox_calls_and_without_the_rest():
    profile = json.loads(PROFILE.read_text())
    allowed = set(profile["syscalls"][0]["names"])
    spec = importlib.util.spec_from_file_location(
        "make_seccomp_profile", REPO / "scripts" / "make-seccomp-profile.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO" and len(profile["syscalls"]) == 1
    assert all(arch["subArchitectures"] == [] for arch in profile["archMap"])
    assert set(script.NEEDED) <= allowed
    assert set(script.DENIED) & allowed == set()
    assert {"read", "write", "execve", "clone", "seccomp", "prctl", "wait4"} <= allowed


# ---------------------------------------------------------------- promises kept

def _seconds(duration: str | int) -> float:
    """Return a Compose duration (``45s``, ``1m30s``) or a number of seconds in seconds."""
    if isinstance(duration, int):
        return float(duration)
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, duration
    return sum(float(n) * units[u] for n, u in parts)


def _drain_s(args: list[str]) -> float:
    """Return the drain `executor serve` uses with these arguments (the code's default else)."""
    return float(executor_parser().parse_args(["serve", *args]).drain_s)


def _documented_commands(path: Path) -> list[str]:
    """Return the docker commands a file documents, continuation lines joined, comments cut."""
    commands: list[str] = []
    pending = ""
    for raw in path.read_text().splitlines():
        line = re.sub(r"^\s*#\s?", "", raw) if path.suffix != ".md" else raw
        line = pending + line.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1]
            continue
        if line.startswith(("docker ", "docker-compose ")):
            commands.append(" ".join(line.split("  #")[0].split()))
    return commands


def _cpu_variant(command: str) -> str:
    for part in GPU_PARTS:
        command = re.sub(part, "", command)
    return " ".join(command.split())


def test_every_stop_grace_period_is_longer_than_the_executor_drain():
    service = COMPOSE["services"]["executor"]
    pod = _k8s("Deployment", "torchquiz-executor")["spec"]["template"]["spec"]
    runs = [c for path in DOCUMENTED for c in _documented_commands(path)
            if c.startswith("docker run") and "torchquiz-executor" in c]
    assert runs  # the documented `docker run` of the executor
    graces = {
        "compose stop_grace_period": (_seconds(service.get("stop_grace_period", "10s")),
                                      _drain_s(service.get("command", []))),
        "kubernetes terminationGracePeriodSeconds": (
            _seconds(pod.get("terminationGracePeriodSeconds", 30)),
            _drain_s(_container(_k8s("Deployment", "torchquiz-executor")).get("args", []))),
    }
    for run in runs:
        timeout = re.search(r"--stop-timeout[ =](\d+)", run)
        graces[run] = (float(timeout.group(1)) if timeout else 10.0, _drain_s([]))
    short = {where: (grace, drain) for where, (grace, drain) in graces.items()
             if grace < drain + EXIT_MARGIN_S}
    assert short == {}


def test_every_documented_gpu_command_has_its_cpu_variant_beside_it():
    missing = {}
    for path in DOCUMENTED:
        commands = _documented_commands(path)
        cpu = {c for c in commands if _cpu_variant(c) == c}
        lacking = [c for c in commands if _cpu_variant(c) != c and _cpu_variant(c) not in cpu]
        if lacking:
            missing[path.name] = lacking
    assert missing == {}
    assert any(_cpu_variant(c) != c for path in DOCUMENTED for c in _documented_commands(path))


def test_compose_builds_and_images_default_to_the_public_ones_and_env_example_names_them():
    arg_defaults = dict(re.findall(r"^ARG (\w+)=(\S*)$", DOCKERFILE, re.MULTILINE))
    env = _env_example()
    offline = {"BOT_BASE_IMAGE", "EXECUTOR_BASE_IMAGE", "WHEELS", "TORCH_INDEX_URL"}
    services = COMPOSE["services"]
    assert offline <= set(services["executor"]["build"]["args"])
    assert "BOT_BASE_IMAGE" in services["bot"]["build"]["args"]
    pairs = [(name, value) for s in ("bot", "executor")
             for name, value in services[s]["build"]["args"].items()]
    for name, value in pairs:
        variable = re.fullmatch(r"\$\{(\w+):-(.*)\}", value)
        # Each one set from .env under its own name, defaulting to the Dockerfile's default.
        assert variable and variable.group(1) == name, value
        assert variable.group(2) == arg_defaults[name] == env[name], name
    for service, name in (("postgres", "POSTGRES_IMAGE"), ("bot", "BOT_IMAGE"),
                          ("executor", "EXECUTOR_IMAGE")):
        variable = re.fullmatch(r"\$\{(\w+):-(.+)\}", services[service]["image"])
        assert variable and variable.group(1) == name and env[name] == variable.group(2)


def test_the_sharded_discord_statefulset_gives_each_pod_its_own_shard_of_the_replicas():
    from bot.adapters.discord.sharding import parse_shards

    sharded = _k8s("StatefulSet", "torchquiz-discord")
    env = {e["name"]: e for e in _container(sharded)["env"]}
    index = env["POD_INDEX"]["valueFrom"]["fieldRef"]["fieldPath"]
    assert index == "metadata.labels['apps.kubernetes.io/pod-index']"
    replicas = sharded["spec"]["replicas"]
    spec = env["TORCHQUIZ_DISCORD_SHARDS"]["value"]
    shards = [parse_shards(spec.replace("$(POD_INDEX)", str(n))) for n in range(replicas)]
    assert sorted(s.ids[0] for s in shards if s) == list(range(replicas))
    assert {s.count for s in shards if s} == {replicas}
    assert _k8s("Service", "torchquiz-discord")["spec"]["clusterIP"] == "None"
