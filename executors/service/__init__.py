"""The executor as an HTTP service: the server that wraps the engine, and the bot's client.

- ``protocol``: the paths, headers and request rules both sides share (standard library only).
- ``server``: ``torchquiz executor serve``; aiohttp around ``LocalExecutor``, with a bearer
  token, a bounded queue, request-id idempotency, readiness and Prometheus metrics.
- ``ledger``: the request-id memory that keeps a retried run from running twice.
- ``client``: spreads runs over replicas and retries another on connection failure or 503;
  standard library only, so a bot without torch can import it.
"""
