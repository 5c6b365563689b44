#!/usr/bin/env bash
# OSU 5.3's one-sided benchmarks (every window kind with every synchronization) and
# its non-blocking and v-collectives, built with simpicc and run under `simpi run
# --compute none`: prints one line per run with its exit status and the number of
# sizes it reported. Not part of the tests; needs a release build.
#
#   bench/online/osu_more.sh OSU_SOURCE_DIR [OUT_DIR] [ITERATIONS]
# SIMPI_RUN_OPTS adds options to every `simpi run` (e.g. --in-process).
set -euo pipefail
osu=${1:?usage: osu_more.sh OSU_SOURCE_DIR [OUT_DIR] [ITERATIONS]}
out=${2:-/tmp/simpi-osu-more}
iters=${3:-10}
root=$(cd "$(dirname "$0")/../.." && pwd)
simpi=$root/target/release/simpi
simpicc=$root/target/release/simpicc
mkdir -p "$out"
one_sided="put_latency get_latency acc_latency cas_latency fop_latency get_acc_latency put_bw get_bw put_bibw"
collectives="iallgather iallgatherv ialltoall ialltoallv ialltoallw ibarrier ibcast igather igatherv iscatter
  iscatterv allgatherv alltoallv gatherv scatterv reduce_scatter"
for b in $one_sided; do
  extra=("$osu/mpi/one-sided/osu_1sc.c")
  # This one carries its own copy of the common code.
  [ "$b" = get_acc_latency ] && extra=()
  "$simpicc" -O2 -I"$osu/mpi" -I"$osu/mpi/one-sided" -o "$out/osu_$b" "$osu/mpi/one-sided/osu_$b.c" "${extra[@]}"
done
for b in $collectives; do
  "$simpicc" -O2 -I"$osu/mpi" -I"$osu/mpi/collective" -o "$out/osu_$b" \
    "$osu/mpi/collective/osu_$b.c" "$osu/mpi/collective/osu_coll.c"
done
run() {
  local log=$out/$1.log; shift
  local rc=0
  timeout 300 "$simpi" run --compute none ${SIMPI_RUN_OPTS:-} "$@" >"$log" 2>&1 || rc=$?
  echo "$rc $(grep -c '^[0-9]' "$log")"
}
passed=0; total=0
for b in $one_sided; do
  for w in create allocate dynamic; do
    for s in lock flush flush_local lock_all fence pscw; do
      read -r rc sizes < <(run "$b-$w-$s" -np 2 "$out/osu_$b" -w "$w" -s "$s" -i "$iters" -x 2)
      echo "osu_$b -w $w -s $s: exit $rc, $sizes sizes"
      total=$((total + 1)); [ "$rc" = 0 ] && [ "$sizes" -gt 0 ] && passed=$((passed + 1))
    done
  done
done
for b in $collectives; do
  read -r rc sizes < <(run "$b" -np 4 "$out/osu_$b" -i "$iters" -x 2 -m 65536)
  echo "osu_$b (4 ranks): exit $rc, $sizes sizes"
  total=$((total + 1)); [ "$rc" = 0 ] && [ "$sizes" -gt 0 ] && passed=$((passed + 1))
done
echo "$passed of $total runs exited 0 and reported their sizes"
