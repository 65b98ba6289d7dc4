#!/usr/bin/env bash
# The same benchmark on REF (a temporary worktree) and on the working tree, interleaved in one
# run, each figure side by side with its ratio. Every performance claim in docs/benchmarks.md
# cites it.
#   bench/compare.sh REF [--rounds N] [-- BENCH ARGS...]   (default: -- core --answers 100000)
#   bench/compare.sh HEAD~1 --rounds 2 -- core --answers 1000000 --no-postgres
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/.venv/bin/python" "$root/bench/compare.py" "$@"
