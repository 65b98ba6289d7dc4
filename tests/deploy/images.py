"""Build the images the container tests run, on a machine that reaches no image registry.

1. A base image made here: ``debootstrap --variant=minbase`` from the machine's own apt
   mirror, plus the machine's extra CA certificates (its HTTPS proxy signs with them), then
   ``docker import``. It stands in for the public base images the Dockerfile names by default.
2. The bot and executor images, built by Compose from docker-compose.yml with an env file
   that points its build arguments at that base image and at the local CPU torch wheel (where
   pip's find-links has one; without one, TORCH_INDEX_URL names the CPU wheel index): the
   offline ``docker compose build`` a user without a registry runs, tagged through the
   *_IMAGE variables. The Compose test then starts exactly these images.
3. A stand-in for the public postgres image (tests/deploy/postgres): Debian's PostgreSQL on
   the same base image.

Everything specific to this machine is found here at run time and handed to the build from
outside; the Dockerfile stays the one a user builds. ``make test`` runs this in the background
(``python -m tests.deploy.images build DIR``) while the rest of the suite runs; the tests wait
for ``DIR/images.json``, or build synchronously when nothing started a build.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BASE_TAG = "torchquiz-test/bookworm:base"
BOT_TAG = "torchquiz-bot:test"
EXECUTOR_TAG = "torchquiz-executor:test"
POSTGRES_TAG = "torchquiz-test/postgres:local"
COMPOSE_TEST_FILE = REPO / "tests" / "deploy" / "compose.test.yml"
POSTGRES_CONTEXT = REPO / "tests" / "deploy" / "postgres"
WHEEL_FOLDER = "test-wheels"
SUITE = "bookworm"
LOCAL_CA_DIR = Path("/usr/local/share/ca-certificates")  # Debian's folder for extra CAs
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
CPU_WHEEL_INDEX = "https://download.pytorch.org/whl/cpu"
RESULT = "images.json"
BUILD_TIMEOUT_S = 1800


def docker_env() -> dict[str, str]:
    """Return the environment for docker commands: the test engine, the legacy builder."""
    env = dict(os.environ)
    host = os.environ.get("TORCHQUIZ_TEST_DOCKER_HOST")
    if host:
        env["DOCKER_HOST"] = host
    env["DOCKER_BUILDKIT"] = "0"  # the legacy builder is what these machines have
    return env


def docker(*args: str, timeout: float = 600, check: bool = True,
           stdin: Any = None) -> subprocess.CompletedProcess[str]:
    """Run one docker command on the test engine."""
    result = subprocess.run(["docker", *args], env=docker_env(), capture_output=True, text=True,
                            timeout=timeout, check=False, stdin=stdin)
    if check and result.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args[:3])} failed ({result.returncode}):\n"
                           f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def compose_command() -> list[str]:
    """Return the Compose command line: Debian's docker-compose (v1), else the docker plugin."""
    found = shutil.which("docker-compose")
    if found:
        return [found]
    if subprocess.run(["docker", "compose", "version"], capture_output=True,
                      check=False).returncode == 0:
        return ["docker", "compose"]
    raise RuntimeError("neither docker-compose nor `docker compose` is installed")


def compose_env(wheels: bool) -> dict[str, str]:
    """Return the env file's variables: local images everywhere, the CPU torch for the build."""
    values = {"BOT_BASE_IMAGE": BASE_TAG, "EXECUTOR_BASE_IMAGE": BASE_TAG,
              "BOT_IMAGE": BOT_TAG, "EXECUTOR_IMAGE": EXECUTOR_TAG,
              "POSTGRES_IMAGE": POSTGRES_TAG}
    if wheels:
        values["WHEELS"] = WHEEL_FOLDER
    else:
        values["TORCH_INDEX_URL"] = CPU_WHEEL_INDEX
    return values


def write_env_file(path: Path, values: dict[str, str]) -> Path:
    """Write a Compose env file (one NAME=value a line) and return its path."""
    path.write_text("".join(f"{key}={value}\n" for key, value in sorted(values.items())))
    return path


def apt_mirror(root: Path = Path("/")) -> str:
    """Return the URI of the Debian mirror this machine installs its packages from."""
    sources = root / "etc" / "apt"
    for path in sorted((sources / "sources.list.d").glob("*.sources")):
        for block in path.read_text().split("\n\n"):
            fields = dict(re.findall(r"^([A-Za-z-]+):\s*(.+)$", block, re.MULTILINE))
            if (SUITE in fields.get("Suites", "").split()
                    and "main" in fields.get("Components", "").split()):
                return fields["URIs"].split()[0]
    for path in [sources / "sources.list", *sorted((sources / "sources.list.d").glob("*.list"))]:
        if path.exists():
            for line in path.read_text().splitlines():
                words = re.sub(r"\[[^]]*\]", "", line).split()
                if words[:1] == ["deb"] and len(words) >= 4 and words[2] == SUITE:
                    return words[1]
    raise RuntimeError(f"no apt source for Debian {SUITE} found under {sources}")


def torch_pin() -> str:
    """Return the torch version pyproject.toml pins for the executor extra."""
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    for requirement in extras["executor"]:
        if requirement.startswith("torch=="):
            return str(requirement.split("==", 1)[1])
    raise RuntimeError("pyproject.toml pins no torch version for the executor extra")


def _find_links() -> list[Path]:
    """Return the folders pip's find-links names (environment, then pip's own config)."""
    found = os.environ.get("PIP_FIND_LINKS", "").split()
    listing = subprocess.run([sys.executable, "-m", "pip", "config", "list"], text=True,
                             capture_output=True, check=False).stdout
    found += re.findall(r"find-links='([^']+)'", listing)
    return [Path(p) for entry in found for p in entry.split() if Path(p).is_dir()]


def local_torch_wheel(python_tag: str = "cp311") -> Path | None:
    """Return a CPU torch wheel pip would use here for the pinned version, if there is one."""
    version = torch_pin()
    for folder in _find_links():
        for wheel in sorted(folder.glob(f"torch-{version}*-{python_tag}-*linux*x86_64.whl")):
            if "+cpu" in wheel.name:
                return wheel
    return None


def build_base(workdir: Path, log: Path) -> None:
    """Make the base image: debootstrap from the local mirror, the local CAs, docker import."""
    rootfs = workdir / "rootfs"
    mirror = apt_mirror()
    with log.open("a") as out:
        subprocess.run(["debootstrap", "--variant=minbase", "--include=ca-certificates", SUITE,
                        str(rootfs), mirror], stdout=out, stderr=subprocess.STDOUT, check=True,
                       timeout=BUILD_TIMEOUT_S)
        extra = sorted(LOCAL_CA_DIR.glob("**/*.crt")) if LOCAL_CA_DIR.is_dir() else []
        for cert in extra:
            shutil.copy2(cert, rootfs / "usr/local/share/ca-certificates" / cert.name)
        if extra:
            subprocess.run(["chroot", str(rootfs), "update-ca-certificates"], stdout=out,
                           stderr=subprocess.STDOUT, check=True, timeout=300)
    tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
    try:
        # pip reads the bundle (with the local CAs) instead of its own certifi copy.
        docker("import", "--change", f"ENV PIP_CERT={CA_BUNDLE}", "-", BASE_TAG,
               stdin=tar.stdout)
    finally:
        if tar.stdout is not None:
            tar.stdout.close()
        tar.wait()
    shutil.rmtree(rootfs, ignore_errors=True)


def repository_files() -> list[str]:
    """Return the repository's files as git sees them (tracked or not ignored), tests aside."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout
    return sorted({n for n in listed.decode().split("\0") if n and not n.startswith("tests/")})


def export_context(dest: Path, wheel: Path | None) -> None:
    """Copy the repository's files to ``dest`` (a clean build context), the wheel in its folder."""
    for name in repository_files():
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    if wheel is not None:
        folder = dest / WHEEL_FOLDER
        folder.mkdir()
        try:
            os.link(wheel, folder / wheel.name)  # the same file system: no 200 MB copy
        except OSError:
            shutil.copy2(wheel, folder / wheel.name)


def compose_build(project: Path, env_file: Path, service: str, log: Path) -> float:
    """Build one service with Compose from ``project``; return the seconds it took."""
    command = [*compose_command(), "--project-directory", str(project), "--env-file",
               str(env_file), "-f", str(project / "docker-compose.yml"), "-f",
               str(COMPOSE_TEST_FILE), "build", service]
    started = time.monotonic()
    result = subprocess.run(command, env=docker_env(), capture_output=True, text=True,
                            timeout=BUILD_TIMEOUT_S, check=False, cwd=project)
    with log.open("a") as out:
        out.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"compose build {service} failed:\n{result.stdout[-4000:]}"
                           f"\n{result.stderr[-2000:]}")
    return time.monotonic() - started


def build_image(tag: str, context: Path, args: dict[str, str], log: Path) -> float:
    """Build a Dockerfile folder outside Compose; return the seconds it took."""
    command = ["build", "--network", "host", "-t", tag]
    for key, value in args.items():
        command += ["--build-arg", f"{key}={value}"]
    started = time.monotonic()
    result = docker(*command, str(context), timeout=BUILD_TIMEOUT_S, check=False)
    with log.open("a") as out:
        out.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"docker build -t {tag} failed:\n{result.stdout[-4000:]}"
                           f"\n{result.stderr[-2000:]}")
    return time.monotonic() - started


def image_mb(tag: str) -> float:
    """Return the image's size in MB (10**6 bytes, as docker reports it)."""
    return int(docker("image", "inspect", "--format", "{{.Size}}", tag).stdout) / 1e6


def build_all(out_dir: Path) -> dict[str, Any]:
    """Build the base, bot, executor and PostgreSQL images; write and return what it took."""
    out_dir.mkdir(parents=True, exist_ok=True)
    log = out_dir / "build.log"
    figures: dict[str, Any] = {}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        work = Path(tmp)
        build_base(work, log)
        figures["base_s"] = time.monotonic() - started
        wheel = local_torch_wheel()
        figures["torch_from"] = wheel.name if wheel else CPU_WHEEL_INDEX
        values = compose_env(wheels=wheel is not None)
        figures["compose_env"] = values
        project = work / "context"
        export_context(project, wheel)
        # The secrets Compose insists on when it reads the file; no build step uses them.
        env_file = write_env_file(work / "build.env", {
            **values, "POSTGRES_PASSWORD": "unused", "TORCHQUIZ_EXECUTOR_TOKEN": "unused"})
        figures["bot_s"] = compose_build(project, env_file, "bot", log)
        figures["executor_s"] = compose_build(project, env_file, "executor", log)
    figures["postgres_s"] = build_image(POSTGRES_TAG, POSTGRES_CONTEXT,
                                        {"BASE_IMAGE": BASE_TAG}, log)
    figures["total_s"] = time.monotonic() - started
    figures["sizes_mb"] = {tag: image_mb(tag)
                           for tag in (BASE_TAG, BOT_TAG, EXECUTOR_TAG, POSTGRES_TAG)}
    return figures


def write_result(out_dir: Path, result: dict[str, Any]) -> None:
    """Write images.json atomically, so a waiting test never reads half of it."""
    partial = out_dir / (RESULT + ".partial")
    partial.write_text(json.dumps(result))
    partial.replace(out_dir / RESULT)


def _alive(pid_file: Path) -> bool:
    try:
        os.kill(int(pid_file.read_text()), 0)
    except (OSError, ValueError):
        return False
    return True


def built_images(out_dir: Path, timeout_s: float = BUILD_TIMEOUT_S) -> dict[str, Any]:
    """Return the figures of images a background build made, waiting for it; else build now."""
    background = (out_dir / "images.log").exists()
    deadline = time.monotonic() + timeout_s
    while background and not (out_dir / RESULT).exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the background image build did not finish in {timeout_s:.0f} s")
        pid_file = out_dir / "images.pid"
        if pid_file.exists() and not _alive(pid_file) and not (out_dir / RESULT).exists():
            raise RuntimeError("the background image build stopped without a result:\n"
                               + (out_dir / "images.log").read_text()[-3000:])
        time.sleep(2)
    if not background:
        write_result(out_dir, {"ok": True, **build_all(out_dir)})
    result: dict[str, Any] = json.loads((out_dir / RESULT).read_text())
    if not result.get("ok"):
        raise RuntimeError(f"building the images failed:\n{result.get('error', '')}")
    return result


def main(argv: list[str]) -> int:
    """``python -m tests.deploy.images build DIR``: build everything, write DIR/images.json."""
    if len(argv) != 2 or argv[0] != "build":
        print("usage: python -m tests.deploy.images build DIR", file=sys.stderr)
        return 2
    out_dir = Path(argv[1])
    with contextlib.suppress(FileNotFoundError):
        (out_dir / RESULT).unlink()
    (out_dir / "images.pid").write_text(str(os.getpid()))
    try:
        result = {"ok": True, **build_all(out_dir)}
    except Exception as exc:
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[-6000:]}
    write_result(out_dir, result)
    print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
