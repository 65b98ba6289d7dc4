#!/usr/bin/env bash
# Install the Debian packages torchquiz needs when they are missing (CI and these machines run
# as root; elsewhere, print the apt-get line to run).
#   scripts/system-deps.sh             what the sandbox needs (libseccomp)
#   scripts/system-deps.sh --postgres  also a PostgreSQL server and PgBouncer for the test suite
#   scripts/system-deps.sh --docker    also a container engine, Compose and debootstrap for the
#                                      container tests
#   scripts/system-deps.sh --browser   also Chromium for the web page's browser tests (Playwright
#                                      drives the system browser; its own download is not used)
#                                      (flags combine)
set -euo pipefail

missing=()
# grep without -q: an early exit would SIGPIPE ldconfig and pipefail would call it missing.
ldconfig -p 2>/dev/null | grep 'libseccomp\.so\.2' >/dev/null || missing+=(libseccomp2)
# A CJK font for the weekly leaderboard chart: Chinese member names must not render as boxes.
if ! fc-list 2>/dev/null | grep -iE 'WenQuanYi|Noto Sans CJK|Source Han Sans' >/dev/null \
   && ! compgen -G '/usr/share/fonts/truetype/wqy/*' >/dev/null; then
  missing+=(fonts-wqy-microhei)
fi
for flag in "$@"; do
  case $flag in
    --postgres)
      if ! command -v initdb >/dev/null && ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
        missing+=(postgresql)
      fi
      # The storage tests also run behind a connection pooler in transaction mode.
      command -v pgbouncer >/dev/null || [[ -x /usr/sbin/pgbouncer ]] || missing+=(pgbouncer) ;;
    --docker)
      command -v dockerd >/dev/null || missing+=(docker.io)
      command -v docker-compose >/dev/null || missing+=(docker-compose)
      command -v debootstrap >/dev/null || missing+=(debootstrap) ;;
    --browser)
      command -v chromium >/dev/null || missing+=(chromium) ;;
    *) echo "system-deps: unknown flag $flag" >&2; exit 2 ;;
  esac
done
((${#missing[@]} == 0)) && exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "missing Debian packages: ${missing[*]}; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
