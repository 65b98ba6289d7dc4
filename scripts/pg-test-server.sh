#!/usr/bin/env bash
# Start or stop a throwaway PostgreSQL cluster for the test suite.
#
#   scripts/pg-test-server.sh start DIR   # prints the database URL on stdout (also in DIR/url)
#   scripts/pg-test-server.sh restart DIR # pg_ctl restart -m fast: drops every connection
#   scripts/pg-test-server.sh stop DIR    # stops the cluster and removes DIR
#
# The cluster trades durability for speed (fsync, full_page_writes and synchronous_commit off),
# listens only on 127.0.0.1 and trusts every local connection: it is for tests, nothing else.
# initdb refuses to run as root, so as root the cluster runs as the system user torchquiz-pg,
# created on first use; as anyone else it runs as the caller.
set -euo pipefail

PG_USER=torchquiz-pg
DB_NAME=torchquiz_test
FIRST_PORT=54329
PORT_TRIES=50

die() { echo "pg-test-server: $*" >&2; exit 1; }
say() { echo "pg-test-server: $*" >&2; }

find_bindir() {
    local initdb dir
    if initdb=$(command -v initdb) && command -v pg_ctl >/dev/null; then
        # /usr/local/bin/initdb is often a link into the real bin dir, where createdb lives too.
        dirname "$(readlink -f "$initdb")"
        return
    fi
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV); do
        if [[ -x $dir/initdb && -x $dir/pg_ctl ]]; then
            echo "$dir"
            return
        fi
    done
    die "initdb/pg_ctl not found; install them with: apt-get install -y postgresql"
}

is_root() { [[ $(id -u) -eq 0 ]]; }

# Run a command as the cluster's owner.
as_owner() {
    if is_root; then
        runuser -u "$PG_USER" -- "$@"
    else
        "$@"
    fi
}

ensure_user() {
    is_root || return 0
    id -u "$PG_USER" >/dev/null 2>&1 && return 0
    # A parallel start may create the user between the check and useradd: check again on failure.
    useradd --system --no-create-home --user-group --shell /usr/sbin/nologin "$PG_USER" \
        || id -u "$PG_USER" >/dev/null 2>&1 \
        || die "could not create the system user $PG_USER"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

cmd_start() {
    local dir=$1 bindir run data port started=""
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    bindir=$(find_bindir)

    if [[ -f $dir/url ]] && run=$(cat "$dir/runtime") \
        && as_owner "$bindir/pg_ctl" status -D "$run/data" >/dev/null 2>&1; then
        cat "$dir/url"
        return
    fi
    cmd_stop "$dir" quiet
    mkdir -p "$dir"
    ensure_user

    # The owner must reach its data directory; a DIR under /root is not reachable by a system
    # user, and a long path would overflow the unix socket name, so fall back to /tmp then.
    run=$dir
    if is_root; then
        chown "$PG_USER:" "$dir"
        if ! as_owner test -x "$dir" || (( ${#dir} > 80 )); then
            run=$(mktemp -d /tmp/torchquiz-pg.XXXXXX)
            chown "$PG_USER:" "$run"
        fi
    fi
    echo "$run" >"$dir/runtime"
    data=$run/data
    cd "$run"  # initdb complains when it cannot return to an unreadable cwd such as /root

    as_owner "$bindir/initdb" --no-sync -A trust -U postgres -E UTF8 --locale=C.UTF-8 \
        -D "$data" >"$run/initdb.log" 2>&1 || { cat "$run/initdb.log" >&2; die "initdb failed"; }
    cat >>"$data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$run'
fsync = off
full_page_writes = off
synchronous_commit = off
max_connections = 200
EOF

    for ((port = FIRST_PORT; port < FIRST_PORT + PORT_TRIES; port++)); do
        port_in_use "$port" && continue
        # Another process can take the port between the check and the bind: try the next one.
        if as_owner "$bindir/pg_ctl" start -w -t 30 -D "$data" -l "$run/postgres.log" \
            -o "-p $port" >/dev/null 2>&1; then
            started=$port
            break
        fi
    done
    [[ -n $started ]] || { tail -n 20 "$run/postgres.log" >&2; die "could not start postgres"; }

    as_owner "$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres "$DB_NAME" \
        || die "createdb $DB_NAME failed"
    echo "postgresql+psycopg://postgres@127.0.0.1:$port/$DB_NAME" | tee "$dir/url"
    say "started on 127.0.0.1:$port (data in $data)"
}

cmd_restart() {
    local dir=$1 run
    [[ -f $dir/runtime ]] || die "no cluster in $dir"
    run=$(cat "$dir/runtime")
    # A fast restart ends every session as a real server restart does; the port is kept
    # (pg_ctl reuses the options the server was started with).
    as_owner "$(find_bindir)/pg_ctl" restart -m fast -w -t 30 -D "$run/data" \
        -l "$run/postgres.log" >/dev/null || die "pg_ctl restart failed"
}

cmd_stop() {
    local dir=$1 quiet=${2:-} run bindir
    [[ -d $dir ]] || return 0
    run=$dir
    [[ -f $dir/runtime ]] && run=$(cat "$dir/runtime")
    if [[ -f $run/data/postmaster.pid ]]; then
        bindir=$(find_bindir)
        as_owner "$bindir/pg_ctl" stop -D "$run/data" -m immediate -w >/dev/null 2>&1 \
            || [[ -n $quiet ]] || say "pg_ctl stop failed; removing the directory anyway"
    fi
    [[ $run != "$dir" ]] && rm -rf "$run"
    rm -rf "$dir"
}

case ${1:-} in
    start) [[ $# -eq 2 ]] || die "usage: $0 start DIR"; cmd_start "$2" ;;
    restart) [[ $# -eq 2 ]] || die "usage: $0 restart DIR"; cmd_restart "$2" ;;
    stop) [[ $# -eq 2 ]] || die "usage: $0 stop DIR"; cmd_stop "$2" ;;
    *) die "usage: $0 start|restart|stop DIR" ;;
esac
