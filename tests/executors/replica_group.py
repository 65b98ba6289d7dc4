"""A few `torchquiz executor serve` processes for one test module, and their metrics."""

from __future__ import annotations

import http.client
import os
from urllib.parse import urlsplit

import pytest
from prometheus_client.parser import text_string_to_metric_families

from executors.service.replicas import ReplicaProcess

Samples = dict[str, dict[tuple[tuple[str, str], ...], float]]


class ReplicaGroup:
    """Replicas that warm up together; one a test killed can be replaced by a fresh one."""

    def __init__(self, token: str, count: int, **options: int) -> None:
        if os.geteuid() != 0:
            pytest.skip("the sandbox tests need root (CI runs as root)")
        self.token = token
        self.options = options
        self.procs = [ReplicaProcess(token, **options) for _ in range(count)]

    @property
    def urls(self) -> list[str]:
        return [p.url for p in self.procs]

    def __enter__(self) -> ReplicaGroup:
        try:
            for proc in self.procs:
                proc.start()  # they all warm up at once
            for proc in self.procs:
                proc.wait_ready()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        for proc in self.procs:
            proc.stop()

    def replace(self, index: int) -> None:
        self.procs[index].stop()
        self.procs[index] = ReplicaProcess(self.token, **self.options).start()
        self.procs[index].wait_ready()


def get(url: str, path: str) -> tuple[int, bytes]:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def metrics(url: str) -> Samples:
    """Return every sample of a replica's /metrics, parsed by prometheus-client's parser."""
    found: Samples = {}
    for family in text_string_to_metric_families(get(url, "/metrics")[1].decode()):
        for sample in family.samples:
            found.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def runs(url: str) -> float:
    """Return how many runs the replica graded (every status)."""
    return sum(metrics(url)["torchquiz_executor_runs_total"].values())


def gauge(url: str, name: str) -> float:
    return metrics(url)[name][()]
