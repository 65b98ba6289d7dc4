#!/usr/bin/env bash
# Run a test command with a throwaway PostgreSQL server; stop it whatever happens.
#   scripts/run-tests.sh PG_DIR COMMAND [ARGS...]
set -euo pipefail
pg_dir=$1; shift
here=$(cd "$(dirname "$0")" && pwd)

"$here/pg-test-server.sh" stop "$pg_dir" >/dev/null 2>&1 || true
TORCHQUIZ_TEST_PG_URL=$("$here/pg-test-server.sh" start "$pg_dir")
export TORCHQUIZ_TEST_PG_URL
trap '"$here/pg-test-server.sh" stop "$pg_dir" >/dev/null 2>&1 || true' EXIT
echo "PostgreSQL for tests: ${TORCHQUIZ_TEST_PG_URL%%/torchquiz_test}"
"$@"
