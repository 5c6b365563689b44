#!/usr/bin/env bash
# Real versus predicted: runs the OSU micro-benchmarks and NPB IS on simpi's emulated
# Ethernet cluster (simpi testbed: 100 Mbit/s links, 100 us one-way latency), traced, then
# replays each trace on the testbed's platform with the flow and the hybrid (smpi preset)
# models and prints a table: measured time, predictions and |ln(predicted/measured)|.
#
# Usage (root): [NODES=N] [PRESET=FILE] bench/validation/run.sh OSU_DIR NPB_DIR [OUT_DIR]
#   OSU_DIR: a built OSU micro-benchmarks tree (mpi/pt2pt/osu_latency, ...), built with mpicc
#   NPB_DIR: a built NPB3.x-MPI tree (bin/is.W.x)
#   NODES: nodes of the collective and NPB cases (default 8; point-to-point uses 2)
#   PRESET: a preset file (simpi calibrate) replayed as a third prediction, "calibrated"
#   BW, LAT: the testbed's link bandwidth and latency (default 100Mbps, 100us)
#   CASES: the cases to run, space-separated names (default: all seven)
# Sources are not part of simpi; see docs/validation.md for how they were obtained.
set -euo pipefail
osu=$(realpath "$1"); npb=$(realpath "$2"); out=${3:-bench-out/validation}
n=${NODES:-8}
bw=${BW:-100Mbps}; lat=${LAT:-100us}
preset=${PRESET:+$(realpath "$PRESET")}
here=$(cd "$(dirname "$0")/../.." && pwd)
simpi="$here/target/release/simpi"
mkdir -p "$out"; out=$(realpath "$out")
(cd "$here" && cargo build --release -q -p simpi-cli)

# name nodes program args...
cases=(
  "osu_latency 2 $osu/mpi/pt2pt/osu_latency -x 10 -i 50"
  "osu_bw 2 $osu/mpi/pt2pt/osu_bw -x 1 -i 3"
  "osu_allreduce $n $osu/mpi/collective/osu_allreduce -m 65536 -x 10 -i 100"
  "osu_alltoall $n $osu/mpi/collective/osu_alltoall -m 65536 -x 10 -i 100"
  "osu_bcast $n $osu/mpi/collective/osu_bcast -m 65536 -x 10 -i 100"
  "npb_is_W $n $npb/bin/is.W.x"
  "npb_is_A $n $npb/bin/is.A.x"
)
printf "%-14s %5s %12s %12s %12s %12s %9s %9s %9s\n" case nodes measured_s flow_s hybrid_s calib_s err_flow err_hyb err_cal | tee "$out/table.txt"
for c in "${cases[@]}"; do
  set -- $c
  name=$1; nodes=$2; shift 2
  if [ -n "${CASES:-}" ] && [[ " $CASES " != *" $name "* ]]; then continue; fi
  d="$out/$name"; rm -rf "$d"; mkdir -p "$d"
  "$simpi" testbed --nodes "$nodes" --bandwidth "$bw" --latency "$lat" \
     --platform-out "$d/platform.toml" --xml-out "$d/platform.xml" --trace "$d/trace" -- "$@" \
     >"$d/stdout.txt" 2>"$d/stderr.txt"
  # Measured: from the common origin after MPI_Init to the last rank entering MPI_Finalize.
  measured=$(awk '$1=="finalize"{ if ($2>m) m=$2 } END { printf "%.9f", m }' "$d"/trace/rank-*.times)
  flow=$("$simpi" replay "$d/trace/index.txt" --model flow --platform "$d/platform.toml" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_ps"]/1e12)')
  hyb=$("$simpi" replay "$d/trace/index.txt" --model hybrid --preset smpi --platform "$d/platform.toml" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_ps"]/1e12)')
  cal=nan
  if [ -n "$preset" ]; then
    cal=$("$simpi" replay "$d/trace/index.txt" --model hybrid --preset "$preset" --platform "$d/platform.toml" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_ps"]/1e12)')
  fi
  python3 - "$name" "$nodes" "$measured" "$flow" "$hyb" "$cal" <<'PY' | tee -a "$out/table.txt"
import math, sys
name, nodes, m, f, h, c = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:])
err = lambda p: abs(math.log(p / m)) if p == p else float("nan")
print(f"{name:14s} {nodes:>5s} {m:12.6f} {f:12.6f} {h:12.6f} {c:12.6f} {err(f):9.3f} {err(h):9.3f} {err(c):9.3f}")
PY
done
