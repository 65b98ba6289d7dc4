#!/usr/bin/env bash
# Run a test command with a throwaway PostgreSQL server and Docker engine; stop both whatever
# happens.
#   scripts/run-tests.sh PG_DIR DOCKER_DIR COMMAND [ARGS...]
# With TORCHQUIZ_PREBUILD_IMAGES=1 (make test without PYTEST_ARGS), the container images are
# built in the background while the rest of the suite runs; the container tests wait for
# them (tests/deploy/images.py). Otherwise those tests build the images themselves.
set -euo pipefail
pg_dir=$1; docker_dir=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
builder=""

cleanup() {
    if [[ -n $builder ]]; then kill "$builder" 2>/dev/null || true; wait "$builder" 2>/dev/null || true; fi
    "$here/docker-test-engine.sh" stop "$docker_dir" >/dev/null 2>&1 || true
    "$here/pg-test-server.sh" stop "$pg_dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT

"$here/pg-test-server.sh" stop "$pg_dir" >/dev/null 2>&1 || true
TORCHQUIZ_TEST_PG_URL=$("$here/pg-test-server.sh" start "$pg_dir")
export TORCHQUIZ_TEST_PG_URL
echo "PostgreSQL for tests: ${TORCHQUIZ_TEST_PG_URL%%/torchquiz_test}"

"$here/docker-test-engine.sh" stop "$docker_dir" >/dev/null 2>&1 || true
if TORCHQUIZ_TEST_DOCKER_HOST=$("$here/docker-test-engine.sh" start "$docker_dir"); then
    export TORCHQUIZ_TEST_DOCKER_HOST TORCHQUIZ_TEST_DOCKER_DIR=$docker_dir
    echo "Docker engine for tests: $TORCHQUIZ_TEST_DOCKER_HOST"
elif [[ -n ${CI:-} ]]; then
    echo "no Docker engine: CI must run the container tests" >&2
    exit 1
else
    # A developer without root still gets the rest of the suite; the container tests skip.
    echo "no Docker engine for tests (it needs root); the container tests will be skipped" >&2
    TORCHQUIZ_PREBUILD_IMAGES=0
fi
if [[ ${TORCHQUIZ_PREBUILD_IMAGES:-0} == 1 ]]; then
    (cd "$root" && exec "$root/.venv/bin/python" -m tests.deploy.images build "$docker_dir") \
        >"$docker_dir/images.log" 2>&1 &
    builder=$!
    echo "building the container images in the background (log: $docker_dir/images.log)"
fi
"$@"
