#!/usr/bin/env bash
# Records the OTF2 golden traces (tests/golden/otf2/<case>/): real MPI programs run once
# under `simpi trace --otf2` with Open MPI, which writes the run both as a TIT trace
# (index.txt, rank-<r>.tit) and as an OTF2 archive (traces.otf2, traces.def, traces/).
# The programs: OSU micro-benchmarks 5.3 (allreduce and ibcast on 4 ranks, alltoall on 8)
# and the tracer test's every_call.c (every traced MPI function, 4 ranks). Then prints
# both traces' replay makespans on the OSU golden platform, hybrid and LogGOPS.
#
# Usage: bench/otf2/record.sh OSU_DIR OUT_DIR
#   OSU_DIR: OSU micro-benchmarks 5.3 sources (the directory holding mpi/collective)
# Environment: MPIRUN (default Open MPI's `mpirun --oversubscribe --allow-run-as-root`).
set -euo pipefail
osu=$(realpath "$1"); out=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
simpi="$here/target/release/simpi"
platform="$here/tests/golden/smpi-replay/osu_allreduce/platform.xml"
read -r -a mpirun <<<"${MPIRUN:-mpirun --oversubscribe --allow-run-as-root}"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
for b in allreduce ibcast alltoall; do
  mpicc -O2 -o "$work/osu_$b" "$osu/mpi/collective/osu_$b.c" "$osu/mpi/collective/osu_coll.c" -lm
done
mpicc -O2 -o "$work/every_call" "$here/crates/cli/tests/mpi/every_call.c"
record() { # case ranks program args...
  local case=$1 np=$2; shift 2
  "$simpi" trace --otf2 -o "$work/trace-$case" -- "${mpirun[@]}" -np "$np" "$@" >"$work/$case.log" 2>&1 \
    || { cat "$work/$case.log" >&2; exit 1; }
  rm -rf "${out:?}/$case"; mkdir -p "$out/$case"
  cp -r "$work/trace-$case"/{index.txt,meta.txt,rank-*.tit,traces.otf2,traces.def,traces} "$out/$case/"
  echo "$(basename "$1") ${*:2} ($np ranks, Open MPI, simpi trace --otf2)" >"$out/$case/command"
  for input in index.txt traces.otf2; do
    printf '%-14s %-12s %-8s %s\n' "$case" "$input" hybrid \
      "$("$simpi" replay "$out/$case/$input" --platform "$platform" | head -n 1)"
    printf '%-14s %-12s %-8s %s\n' "$case" "$input" loggops "$("$simpi" replay "$out/$case/$input" | head -n 1)"
  done
}
record osu_allreduce 4 "$work/osu_allreduce" -m 1:4096 -i 10 -x 2
record osu_ibcast 4 "$work/osu_ibcast" -m 1:4096 -i 5 -x 2
record osu_alltoall 8 "$work/osu_alltoall" -m 1:1024 -i 5 -x 1
record every_call 4 "$work/every_call"
