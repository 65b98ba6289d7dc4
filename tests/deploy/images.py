"""Build the images the container tests run, on a machine that reaches no image registry.

1. A base image made here: ``debootstrap --variant=minbase`` from the machine's own apt
   mirror, plus the machine's extra CA certificates (its HTTPS proxy signs with them), then
   ``docker import``. It stands in for the public base images the Dockerfile names by default.
2. ``docker build --target bot`` and ``--target executor`` on it, with the local CPU torch
   wheel (where pip's find-links has one) passed in as the WHEELS build argument; without
   one, TORCH_INDEX_URL points pip at the CPU wheel index instead.

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
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BASE_TAG = "torchquiz-test/bookworm:base"
BOT_TAG = "torchquiz-bot:test"
EXECUTOR_TAG = "torchquiz-executor:test"
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


def context_tar(path: Path, extra: dict[str, Path]) -> None:
    """Write the build context: the repository's files (as git sees them) plus ``extra``."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout
    names = sorted({n for n in listed.decode().split("\0") if n and not n.startswith("tests/")})
    # GNU format: a PAX header first makes the engine read the archive as a Dockerfile.
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as archive:
        for name in names:
            if (REPO / name).is_file():
                archive.add(REPO / name, arcname=name)
        for arcname, source in extra.items():
            archive.add(source, arcname=arcname)


def build_image(target: str, tag: str, context: Path, args: dict[str, str], log: Path) -> float:
    """Build one Dockerfile target from a tar context; return the seconds it took."""
    command = ["build", "--network", "host", "--target", target, "-t", tag]
    for key, value in args.items():
        command += ["--build-arg", f"{key}={value}"]
    started = time.monotonic()
    with context.open("rb") as tar:
        result = docker(*command, "-", stdin=tar, timeout=BUILD_TIMEOUT_S, check=False)
    with log.open("a") as out:
        out.write(result.stdout + result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"docker build --target {target} failed:\n{result.stdout[-4000:]}"
                           f"\n{result.stderr[-2000:]}")
    return time.monotonic() - started


def image_mb(tag: str) -> float:
    """Return the image's size in MB (10**6 bytes, as docker reports it)."""
    return int(docker("image", "inspect", "--format", "{{.Size}}", tag).stdout) / 1e6


def build_all(out_dir: Path) -> dict[str, Any]:
    """Build the base, bot and executor images; write and return what it took."""
    out_dir.mkdir(parents=True, exist_ok=True)
    log = out_dir / "build.log"
    figures: dict[str, Any] = {}
    started = time.monotonic()
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        work = Path(tmp)
        build_base(work, log)
        figures["base_s"] = time.monotonic() - started
        bases = {"BOT_BASE_IMAGE": BASE_TAG, "EXECUTOR_BASE_IMAGE": BASE_TAG}
        plain = work / "context.tar"
        context_tar(plain, {})
        figures["bot_s"] = build_image("bot", BOT_TAG, plain, bases, log)
        wheel = local_torch_wheel()
        torch_args: dict[str, str]
        if wheel is not None:
            context_tar(plain, {f"test-wheels/{wheel.name}": wheel})
            torch_args = {"WHEELS": "test-wheels"}
        else:
            torch_args = {"TORCH_INDEX_URL": CPU_WHEEL_INDEX}
        figures["torch_from"] = wheel.name if wheel else CPU_WHEEL_INDEX
        figures["executor_s"] = build_image("executor", EXECUTOR_TAG, plain,
                                            {**bases, **torch_args}, log)
    figures["total_s"] = time.monotonic() - started
    figures["sizes_mb"] = {tag: image_mb(tag) for tag in (BASE_TAG, BOT_TAG, EXECUTOR_TAG)}
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
