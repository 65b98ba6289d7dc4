#!/bin/sh
# The executor image's entrypoint: make the cgroup hierarchies writable, then serve.
#
# Docker and Kubernetes mount /sys/fs/cgroup read-only inside a container, even with
# CAP_SYS_ADMIN. The sandbox gives every run its own cgroup (memory, pids, CPU) below the
# container's, so it makes those three mounts writable first (a bind remount changes only this
# mount's flags); the container's own limits still bound everything below them. Without CAP_SYS_ADMIN the remount fails, and the doctor then
# reports the fallbacks (RLIMIT_DATA, RLIMIT_NPROC) on the memory_limit and pids_limit layers.
set -eu

awk '{ for (i = 7; i <= NF; i++) if ($i == "-") { print $5, $6, $(i + 1); break } }' \
    /proc/self/mountinfo |
while read -r target options fstype; do
    case "$fstype:$target:$options" in
        cgroup:/sys/fs/cgroup/memory:ro* | cgroup:/sys/fs/cgroup/pids:ro* \
        | cgroup:/sys/fs/cgroup/cpu:ro* | cgroup:/sys/fs/cgroup/cpu,cpuacct:ro* \
        | cgroup2:/sys/fs/cgroup:ro*)
            mount -o remount,bind,rw "$target" 2>/dev/null \
                || echo "executor: cannot make $target writable (needs CAP_SYS_ADMIN)" >&2 ;;
    esac
done

exec torchquiz executor serve "$@"
