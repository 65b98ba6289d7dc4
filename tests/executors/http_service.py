"""Serve an engine over real HTTP on 127.0.0.1 from a thread of the test process.

In-process, so that the run's sandbox processes descend from this test process (the leftover
checks of tests/executors/conftest.py judge only those) and a monkeypatched grader applies.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from aiohttp import web

from executors.service.pack_validations import PackChecker
from executors.service.server import Engine, ExecutorService, ServiceLimits, SpeedEngine
from executors.zygote.reports import LayerStatus

TOKEN = "test-token-0123456789"


class InProcessService:
    """Run an ExecutorService on an event loop in a daemon thread; ``url`` once started."""

    def __init__(self, engine: Engine | None, layers: dict[str, LayerStatus] | None = None,
                 *, token: str = TOKEN, limits: ServiceLimits | None = None,
                 check_pack: PackChecker | None = None, speed: SpeedEngine | None = None) -> None:
        self.service = ExecutorService(token, limits or ServiceLimits(max_parallel=4))
        self.engine = engine
        self.layers = layers or {"all": LayerStatus(True, "checked by the caller")}
        self.token = token
        self.check_pack = check_pack
        self.speed = speed
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, daemon=True, name="http-service")

    def __enter__(self) -> InProcessService:
        self._thread.start()
        if not self._started.wait(30):
            raise RuntimeError("the in-process service did not start")
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    def _main(self) -> None:
        self._loop.run_until_complete(self._serve())
        self._loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        runner = web.AppRunner(self.service.app(), access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        host, port = runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"
        if self.engine is not None:
            self.service.attach(self.engine, self.layers, cuda=False, challenges=1,
                                check_pack=self.check_pack, speed=self.speed)
        self._started.set()
        await self._stop.wait()
        await runner.cleanup()
