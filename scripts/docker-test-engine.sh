#!/usr/bin/env bash
# Start or stop a throwaway Docker engine for the container tests.
#
#   scripts/docker-test-engine.sh start DIR   # prints the DOCKER_HOST URL (also in DIR/host)
#   scripts/docker-test-engine.sh stop DIR    # stops the engine and removes DIR
#
# Its own data root, exec root and socket, so it never touches a Docker the machine already
# runs, and no network set-up on the host: no bridge and no iptables rules (builds and the
# test's containers use --network host or none). Everything it stored goes with DIR.
set -euo pipefail

die() { echo "docker-test-engine: $*" >&2; exit 1; }
say() { echo "docker-test-engine: $*" >&2; }

cmd_start() {
    local dir=$1 run host
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [[ -f $dir/host && -f $dir/runtime ]] \
        && DOCKER_HOST=$(cat "$dir/host") docker info >/dev/null 2>&1; then
        cat "$dir/host"
        return
    fi
    cmd_stop "$dir" quiet
    mkdir -p "$dir/data"
    command -v dockerd >/dev/null || die "dockerd not found; install it with: apt-get install -y docker.io"
    [[ $(id -u) -eq 0 ]] || die "the test engine runs dockerd, which needs root"
    # Unix socket paths are short (108 bytes): the sockets live in a short runtime directory.
    run=$(mktemp -d /tmp/torchquiz-docker.XXXXXX)
    echo "$run" >"$dir/runtime"
    host="unix://$run/docker.sock"
    dockerd --data-root "$dir/data" --exec-root "$run/exec" --pidfile "$run/dockerd.pid" \
        --host "$host" --bridge=none --iptables=false --ip6tables=false \
        >"$dir/dockerd.log" 2>&1 &
    for _ in $(seq 150); do
        if DOCKER_HOST=$host docker info >/dev/null 2>&1; then
            echo "$host" | tee "$dir/host"
            say "started (data in $dir/data)"
            return
        fi
        sleep 0.2
    done
    tail -n 20 "$dir/dockerd.log" >&2
    die "dockerd did not answer within 30 s"
}

cmd_stop() {
    local dir=$1 quiet=${2:-} run pid
    [[ -d $dir ]] || return 0
    if [[ -f $dir/runtime ]]; then
        run=$(cat "$dir/runtime")
        if [[ -f $run/dockerd.pid ]]; then
            pid=$(cat "$run/dockerd.pid")
            # SIGTERM: dockerd stops its containers and unmounts their layers before exiting.
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            if kill -0 "$pid" 2>/dev/null; then
                [[ -n $quiet ]] || say "dockerd did not stop in 30 s; killing it"
                kill -KILL "$pid" 2>/dev/null || true
            fi
        fi
        # dockerd leaves its network namespace bound under the exec root, and a killed one
        # its layers under the data root: unmount them, or rm cannot remove the folders.
        awk -v a="$dir/data" -v b="$run" 'index($2, a) == 1 || index($2, b) == 1 { print $2 }' \
            /proc/self/mounts | sort -r \
            | while read -r mnt; do umount -l "$mnt" 2>/dev/null || true; done
        rm -rf "$run"
    fi
    rm -rf "$dir"
}

case ${1:-} in
    start) [[ $# -eq 2 ]] || die "usage: $0 start DIR"; cmd_start "$2" ;;
    stop) [[ $# -eq 2 ]] || die "usage: $0 stop DIR"; cmd_stop "$2" ;;
    *) die "usage: $0 start|stop DIR" ;;
esac
