#!/usr/bin/env bash
# Speed of on-line simulation beside SMPI (issue 17), with public tools only: the wall
# time of the same programs under `simpi run --compute none` (ranks as processes, then
# with --in-process) and `smpirun --cfg=smpi/simulate-computation:no`, alternating,
# RUNS times each, medians printed.
#   1. pingpong_calls.c: 50,000 blocking round trips of 8 bytes (200,002 calls).
#   2. OSU 5.3 osu_allreduce -m 1048576 on 16 ranks (needs OSU_DIR).
# Needs SimGrid 3.32 and a release build. Not part of the tests.
#
#   bench/online/speed.sh [OSU_DIR] [RUNS]
set -euo pipefail
osu=${1:-}
runs=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
platform=$root/tests/golden/smpi-replay/osu_allreduce/platform.xml
hostfile=$root/tests/golden/smpi-replay/osu_allreduce/hostfile
"$root/target/release/simpicc" -O2 -o "$out/pp" "$root/bench/online/pingpong_calls.c"
smpicc -O2 -o "$out/pp-smpi" "$root/bench/online/pingpong_calls.c" 2>/dev/null

# median of the numbers on standard input
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# compare NAME NP SIMPI_ARGS... -- SMPI_ARGS... -- PROGRAM_SIMPI PROGRAM_SMPI ARGS...
compare() {
  local name=$1 np=$2; shift 2
  local ours=() theirs=()
  while [ "$1" != -- ]; do ours+=("$1"); shift; done; shift
  while [ "$1" != -- ]; do theirs+=("$1"); shift; done; shift
  local prog=$1 prog_smpi=$2; shift 2
  : >"$out/a"; : >"$out/b"
  for _ in $(seq "$runs"); do
    /usr/bin/time -f %e -a -o "$out/a" "$root/target/release/simpi" run -np "$np" --platform "$platform" \
      --hostfile "$hostfile" --compute none "${ours[@]}" "$prog" "$@" >/dev/null 2>&1
    /usr/bin/time -f %e -a -o "$out/b" smpirun -np "$np" -platform "$platform" -hostfile "$hostfile" \
      --cfg=smpi/simulate-computation:no "${theirs[@]}" "$prog_smpi" "$@" >/dev/null 2>&1
  done
  local a b
  a=$(median <"$out/a"); b=$(median <"$out/b")
  printf '%-34s simpi run %8.2f s   smpirun %8.2f s   ratio %.2f\n' "$name" "$a" "$b" "$(echo "$a / $b" | bc -l)"
}

compare "ping-pong, 200,002 calls" 2 -- -- "$out/pp" "$out/pp-smpi" 50000
compare "ping-pong, in-process" 2 --in-process -- -- "$out/pp" "$out/pp-smpi" 50000
if [ -n "$osu" ]; then
  src=("$osu/mpi/collective/osu_allreduce.c" "$osu/mpi/collective/osu_coll.c")
  "$root/target/release/simpicc" -O2 -I"$osu/mpi" -I"$osu/mpi/collective" -o "$out/ar" "${src[@]}"
  smpicc -O2 -I"$osu/mpi" -I"$osu/mpi/collective" -o "$out/ar-smpi" "${src[@]}" 2>/dev/null
  compare "osu_allreduce -m 1048576, 16 ranks" 16 --coll allreduce=rdb --coll reduce=binomial --coll barrier=bruck -- \
    --cfg=smpi/allreduce:rdb --cfg=smpi/reduce:binomial --cfg=smpi/barrier:ompi_bruck -- \
    "$out/ar" "$out/ar-smpi" -m 1048576
  compare "osu_allreduce, in-process" 16 --in-process --coll allreduce=rdb --coll reduce=binomial --coll barrier=bruck -- \
    --cfg=smpi/allreduce:rdb --cfg=smpi/reduce:binomial --cfg=smpi/barrier:ompi_bruck -- \
    "$out/ar" "$out/ar-smpi" -m 1048576
fi
