"""``torchquiz executor serve``: the executor behind HTTP (``executor health`` is its probe)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import pwd
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from aiohttp import web

from content.loader import Bank, ContentError, load_bank
from content.schema import CodeItem
from executors.cli.exec_command import EXIT_NO_SANDBOX, EXIT_USAGE, content_root, layer_table
from executors.cli.health_command import default_port
from executors.cli.health_command import main as health_main
from executors.engine import LocalExecutor, detect_cuda
from executors.grading.pack_challenges import PackReport, build_pack_challenge, validate_pack
from executors.service.protocol import TOKEN_ENV
from executors.service.server import ExecutorService, ServiceLimits
from executors.speed.executor import LocalSpeedExecutor
from executors.speed.supervisor import SpeedTimer
from executors.zygote.reports import LayerStatus
from executors.zygote.supervisor import SandboxUnavailable, Zygote, ZygoteError

# The simplest shipped challenge (no gradient check): the warm-up run and the bench use it.
VERDICT_CHALLENGE = "code.one-hot"

log = logging.getLogger(__name__)

EXIT_WARM_UP_FAILED = 1


@dataclass(frozen=True)
class Warm:
    """A replica's engine once the sandbox is up, every layer passed and one verdict ran."""

    executor: LocalExecutor
    zygote: Zygote
    check_pack: Callable[[bytes], PackReport]
    layers: dict[str, LayerStatus]
    cuda: bool
    challenges: int
    speed: LocalSpeedExecutor | None = None  # POST /v1/speed; None: no timer on this host



class WarmUpFailed(Exception):
    """Report why a replica cannot start serving (the message is for the operator)."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchquiz executor")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the executor behind HTTP")
    serve.add_argument("--host", default="127.0.0.1", 
                       help="address to bind (0.0.0.0 in a container)")
    serve.add_argument("--port", type=int, default=default_port(),
                       help="0 picks a free port (default: $TORCHQUIZ_EXECUTOR_PORT or 8080)")
    serve.add_argument("--max-parallel", type=int, default=os.cpu_count() or 1,
                       help="runs in the sandbox at once (default: one per CPU)")
    serve.add_argument("--max-queue", type=int, default=64,
                       help="runs waiting for a slot before new ones get 503")
    serve.add_argument("--user", metavar="NAME",
                       help="once the sandbox is up, serve HTTP as this unprivileged user")
    serve.add_argument("--speed", action="store_true",
                       help="also time speed challenges (POST /v1/speed): one warm timer, "
                            "one CPU, one verdict at a time")
    serve.add_argument("--drain-s", type=float, default=30.0,
                       help="on SIGTERM, how long admitted runs may take to finish")
    commands.add_parser("health", help="exit 0 when a replica is ready (HEALTHCHECK)",
                        add_help=False)
    return parser


def start_speed(bank: Bank) -> LocalSpeedExecutor | None:
    """Start the speed timer for ``POST /v1/speed``; None (logged) where it cannot start."""
    timer = SpeedTimer()
    try:
        timer.start()
    except (SandboxUnavailable, ZygoteError) as exc:
        logging.getLogger(__name__).warning("no speed timer on this replica: %s", exc)
        return None
    return LocalSpeedExecutor(bank, timer=timer, owns_timer=True)


def drop_privileges(user: str) -> None:
    """Become ``user`` for good (every thread): groups, then gid, then uid."""
    entry = pwd.getpwnam(user)
    if entry.pw_uid == 0:
        raise ValueError(f"--user {user} is root; name an unprivileged user")
    os.setgroups([])
    os.setresgid(entry.pw_gid, entry.pw_gid, entry.pw_gid)
    os.setresuid(entry.pw_uid, entry.pw_uid, entry.pw_uid)
    if os.geteuid() != entry.pw_uid or os.getegid() != entry.pw_gid:
        raise OSError(f"could not become {user}")


def warm_up(max_parallel: int, user: str | None, speed_timer: bool = False) -> Warm:
    """Load the bank, start the sandbox, check every layer, and grade one reference solution."""
    try:
        bank = load_bank(content_root())
    except ContentError as exc:
        raise WarmUpFailed(f"the content bank does not load:\n{exc}", EXIT_USAGE) from exc
    zygote = Zygote(max_parallel=max_parallel)
    try:
        zygote.start()
    except SandboxUnavailable as exc:
        raise WarmUpFailed(
            f"the sandbox is unavailable: {exc}\n{layer_table(zygote.layers())}"
            "The service never runs code without every layer (it has no insecure mode); in a "
            "container, see docs/executor-service.md for the flags the sandbox needs.",
            EXIT_NO_SANDBOX) from exc
    layers = zygote.layers()
    cuda = detect_cuda()
    # Every layer is on (the service has no insecure mode), so team packs' challenges sent
    # with their runs are built here too: their code only ever runs in the sandbox.
    executor = LocalExecutor(bank, zygote, cuda_available=cuda, pack_builder=build_pack_challenge)
    # The speed timer makes cgroups as root: started now, before privileges are dropped.
    speed = start_speed(bank) if speed_timer and bank.speed else None
    if user:
        # The zygote stays root (its children need it to build their sandboxes); everything
        # that parses requests and grades what comes back runs unprivileged from here on.
        drop_privileges(user)
        zygote.restartable = False
    items = {item.id: item for item in bank.code_items() if executor.supports(item.id)[0]}
    probe: CodeItem | None = items.get(VERDICT_CHALLENGE) or next(iter(items.values()), None)
    if probe is not None:
        verdict = executor.run(probe.id, probe.code.solution)
        if not verdict.passed:
            executor.close()
            if speed is not None:
                speed.close()
            raise WarmUpFailed(f"the reference solution of {probe.id} did not pass: "
                               f"{verdict.status} {verdict.message}", EXIT_WARM_UP_FAILED)

    def check_pack(data: bytes) -> PackReport:
        # The replica's own bank: a pack's ids and links are checked against what it serves.
        return validate_pack(data, bank, zygote, workers=max_parallel)

    return Warm(executor, zygote, check_pack, layers, cuda, len(items), speed)


async def serve(args: argparse.Namespace, token: str, out: TextIO) -> int:
    """Listen at once (/healthz says "starting"), warm up, serve until SIGTERM, then drain."""
    service = ExecutorService(token, ServiceLimits(max_parallel=args.max_parallel,
                                                   max_queue=args.max_queue))
    runner = web.AppRunner(service.app(), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, args.host, args.port).start()
    host, port = runner.addresses[0][:2]
    out.write(f"torchquiz executor: listening on http://{host}:{port}\n")
    out.flush()
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    warm: Warm | None = None
    try:
        warming = asyncio.ensure_future(asyncio.to_thread(warm_up, args.max_parallel, args.user,
                                                      args.speed))
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({warming, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not warming.done():
            return 0  # stopped while warming: the zygote exits when this process closes
        try:
            warm = warming.result()
        except WarmUpFailed as exc:
            out.write(f"torchquiz executor: {exc}\n")
            service.fail("failed", str(exc).splitlines()[0])
            return exc.exit_code
        service.metrics.watch_warm_children(lambda: _warm_children(warm, service))
        service.attach(warm.executor, warm.layers, cuda=warm.cuda, challenges=warm.challenges,
                       alive=lambda: warm.zygote.pid is not None, check_pack=warm.check_pack,
                       speed=warm.speed)
        out.write(f"torchquiz executor: ready ({warm.challenges} challenges, "
                  f"cuda {warm.cuda}, every isolation layer on)\n")
        out.flush()
        await stopping
        await service.drain(args.drain_s)
        return 0
    finally:
        await runner.cleanup()
        if warm is not None:
            warm.executor.close()
            if warm.speed is not None:
                warm.speed.close()


def _warm_children(warm: Warm, service: ExecutorService) -> float:
    """Count the template's live children that are not running a submission."""
    template = warm.zygote.hello.get("template_pid")
    if warm.zygote.pid is None or not isinstance(template, int):
        return 0.0
    try:
        with open(f"/proc/{template}/task/{template}/children") as f:
            children = len(f.read().split())
    except OSError:
        return 0.0
    return float(max(0, children - service.running))


def main(argv: list[str], *, stdout: TextIO | None = None) -> int:
    """Run ``torchquiz executor ARGS``; return the exit code."""
    out = stdout or sys.stdout
    if argv[:1] == ["health"]:
        return health_main(argv[1:], stdout=out)
    args = _parser().parse_args(argv)
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        sys.stderr.write(f"torchquiz executor serve: set {TOKEN_ENV}; without a token every "
                         "run would be refused\n")
        return EXIT_USAGE
    return asyncio.run(serve(args, token, out))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
