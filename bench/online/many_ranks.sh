#!/usr/bin/env bash
# Issue 17's rank-count target: a program doing one allreduce (one_allreduce.c) under
# `simpi run --compute none` at each rank count given, with the wall time, the
# simulator's peak resident memory, and the machine's memory in use at the peak of the
# run (from /proc/meminfo, sampled every 0.2 s) per rank. Not part of the tests; needs
# a release build. Each rank is a process: the pid limit (kernel.pid_max) and the
# per-user process limit (ulimit -u) bound the rank count.
#
#   bench/online/many_ranks.sh [N...]     (default: 1000 10000 20000 30000)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$root/target/release/simpicc" -O2 -o "$out/one" "$root/bench/online/one_allreduce.c"
used() { awk '/MemTotal/ { t = $2 } /MemAvailable/ { a = $2 } END { print t - a }' /proc/meminfo; }
[ $# -gt 0 ] || set -- 1000 10000 20000 30000
for n in "$@"; do
  before=$(used)
  peak=$before
  /usr/bin/time -f "%e %M" -o "$out/time" "$root/target/release/simpi" run -np "$n" \
    --compute none --cores all "$out/one" >"$out/log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    u=$(used); [ "$u" -gt "$peak" ] && peak=$u
    sleep 0.2
  done
  rc=0; wait "$pid" || rc=$?
  read -r wall rss <"$out/time" || true
  per=$(( (peak - before) / n ))
  echo "$n ranks: exit $rc, wall ${wall} s, simulator peak RSS ${rss} KiB, machine memory in use at peak +$(( (peak - before) / 1024 )) MiB (${per} KiB per rank)"
  grep -E "allreduce gave|simpi:" "$out/log" | head -3
done
