#!/usr/bin/env bash
# On-line simulation beside SimGrid's SMPI (issue 17): builds OSU micro-benchmarks with
# simpicc and with SimGrid's smpicc, runs each under `simpi run --compute none` and
# `smpirun --cfg=smpi/simulate-computation:no` on the same SimGrid XML platform with the
# same collective algorithms forced, and prints the reported times size by size with
# their relative difference. Needs SimGrid 3.32 (apt-get install libsimgrid-dev) and a
# release build (cargo build --release). Not part of the tests.
#
#   bench/online/compare_smpi.sh OSU_SOURCE_DIR [OUT_DIR] [NP]
# SIMPI_RUN_OPTS adds options to every `simpi run` (e.g. --in-process).
set -euo pipefail
osu=${1:?usage: compare_smpi.sh OSU_SOURCE_DIR [OUT_DIR] [NP]}
out=${2:-/tmp/simpi-online-vs-smpi}
np=${3:-8}
root=$(cd "$(dirname "$0")/../.." && pwd)
simpi=$root/target/release/simpi
simpicc=$root/target/release/simpicc
platform=$root/tests/golden/smpi-replay/osu_allreduce/platform.xml
hostfile=$root/tests/golden/smpi-replay/osu_allreduce/hostfile
mkdir -p "$out/simpi" "$out/smpi"

# benchmark, its source folder, simpi's algorithm choices, SimGrid's.
cases=(
  "latency pt2pt - -"
  "bw pt2pt - -"
  "allreduce collective allreduce=rdb smpi/allreduce:rdb"
  "alltoall collective alltoall=pairwise smpi/alltoall:pair"
  "bcast collective bcast=binomial smpi/bcast:binomial_tree"
)
common_simpi=(--coll reduce=binomial --coll barrier=bruck)
common_smpi=(--cfg=smpi/reduce:binomial --cfg=smpi/barrier:ompi_bruck)

for c in "${cases[@]}"; do
  read -r name dir ours theirs <<<"$c"
  src=("$osu/mpi/$dir/osu_$name.c" "$osu/mpi/$dir/osu_${dir/collective/coll}.c")
  [ "$dir" = pt2pt ] && src=("$osu/mpi/pt2pt/osu_$name.c" "$osu/mpi/pt2pt/osu_pt2pt.c")
  "$simpicc" -O2 -I"$osu/mpi" -I"$osu/mpi/$dir" -o "$out/simpi/osu_$name" "${src[@]}"
  smpicc -O2 -I"$osu/mpi" -I"$osu/mpi/$dir" -o "$out/smpi/osu_$name" "${src[@]}" 2>/dev/null
  n=$np; args=(-i 100 -x 10); [ "$dir" = pt2pt ] && n=2 && args=(-i 100 -x 10)
  [ "$dir" = collective ] && args+=(-m 1048576)
  ours_flags=("${common_simpi[@]}"); [ "$ours" != - ] && ours_flags+=(--coll "$ours")
  theirs_flags=("${common_smpi[@]}"); [ "$theirs" != - ] && theirs_flags+=(--cfg="$theirs")
  "$simpi" run -np "$n" --platform "$platform" --hostfile "$hostfile" --compute none ${SIMPI_RUN_OPTS:-} "${ours_flags[@]}" \
    "$out/simpi/osu_$name" "${args[@]}" >"$out/simpi/$name.txt" 2>"$out/simpi/$name.err"
  smpirun -np "$n" -platform "$platform" -hostfile "$hostfile" --cfg=smpi/simulate-computation:no \
    "${theirs_flags[@]}" "$out/smpi/osu_$name" "${args[@]}" >"$out/smpi/$name.txt" 2>"$out/smpi/$name.err"
  echo "== osu_$name, $n ranks: size, SMPI, simpi, relative difference"
  paste <(grep -E '^[0-9]+ ' "$out/smpi/$name.txt") <(grep -E '^[0-9]+ ' "$out/simpi/$name.txt") |
    awk '{ d = ($2 == 0) ? 0 : ($4 - $2) / $2; if (d < 0) a = -d; else a = d; if (a > m) m = a;
           printf "%10s %14s %14s %+.2e\n", $1, $2, $4, d } END { printf "max |difference| %.2e\n", m }'
done
