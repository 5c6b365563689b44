#!/usr/bin/env bash
# Replay speed against SimGrid as the number of ranks grows.
#
# For each rank count N: records a TIT trace of OSU allreduce under SimGrid 3.32
# (`smpirun -trace-ti`, no computation) on a cluster of N hosts (1 Gflop/s, 125 MB/s and
# 50 us private links, 2.5 GB/s backbone), then times SimGrid's replay (`smpirun -replay`,
# one run) and simpi's (`--model hybrid`, the smpi preset, three runs) with the same
# collective algorithms forced on both sides. Prints, per N: simpi's event count, both simulated
# times, SimGrid's wall time and peak memory, simpi's median wall time (and the three
# runs) and peak memory, and the speed-up SimGrid / simpi median.
#
# Usage: bench/smpi-replay/scale.sh OSU_DIR [OUT_DIR] [N...]
#   OSU_DIR: OSU micro-benchmarks 5.x sources (mpi/collective/osu_allreduce.c, ...)
#   OUT_DIR: default bench-out/smpi-scale; traces are kept there and reused
#   N:       default 128 512 1024 2048
# Environment: NPB_DIR=NPB3.4-MPI sources and IS_CLASS=A|B|C trace NPB IS of that class
# instead (power-of-two N; its CPU bursts kept as compute actions; alltoall(v) pairwise
# forced on both sides), in OUT_DIR/is.CLASS-N; with NPB_KERNEL=cg|mg|ft|lu|ep as well,
# that NPB kernel of class IS_CLASS (built with smpiff), in OUT_DIR/KERNEL.CLASS-N.
# Run it on an otherwise idle machine: both sides are timed by wall clock.
set -euo pipefail
osu=$(realpath "$1"); out=${2:-bench-out/smpi-scale}
shift $(( $# < 2 ? $# : 2 ))
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(128 512 1024 2048)
here=$(cd "$(dirname "$0")/../.." && pwd)
simpi="$here/target/release/simpi"
mkdir -p "$out"; out=$(realpath "$out")
(cd "$here" && cargo build --release -q -p simpi-cli)
echo "SimGrid: $(smpirun -version 2>&1 | head -n1)" >&2

# The collective algorithms forced on both sides, as op=simpi name:SimGrid name (the
# form speed.sh reads from algorithms.txt).
algos="allreduce=rdb:rdb barrier=bruck:ompi_bruck reduce=binomial:binomial bcast=binomial:binomial_tree"
[ -n "${IS_CLASS:-}" ] && algos+=" alltoall=pairwise:pair alltoallv=pairwise:pair"
sg_algos=(); simpi_algos=()
for a in $algos; do
  op=${a%%=*}; rest=${a#*=}
  simpi_algos+=(--coll "$op=${rest%%:*}"); sg_algos+=("--cfg=smpi/$op:${rest#*:}")
done
if [ -n "${IS_CLASS:-}" ]; then
  [ -n "${NPB_DIR:-}" ] || { echo "IS_CLASS needs NPB_DIR" >&2; exit 2; }
  kernel=${NPB_KERNEL:-is}
  prog="$out/$kernel.$IS_CLASS.x"; args=(); sim_comp=yes; prefix="$kernel.$IS_CLASS-"
  [ -x "$prog" ] || "$here/bench/smpi-replay/build_npb.sh" "$NPB_DIR" "$out/npb" "$kernel" "$IS_CLASS" "$prog"
else
  coll=$osu/mpi/collective
  prog="$out/osu_allreduce"
  [ -x "$prog" ] || smpicc -O2 -w -I"$coll" -o "$prog" "$coll/osu_allreduce.c" "$coll/osu_coll.c" -lm
  args=(-m 16384 -i 10 -x 1); sim_comp=no; prefix=""
fi

printf "%6s %10s %12s %12s %9s %9s %9s %-22s %9s %8s\n" ranks events simgrid_s simpi_s sg_wall sg_MiB simpi_wall "simpi_runs" simpi_MiB speedup | tee "$out/table.txt"
for n in "${sizes[@]}"; do
  d="$out/$prefix$n"; mkdir -p "$d"
  cat >"$d/platform.xml" <<EOF
<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="AS0" routing="Full">
    <cluster id="c" prefix="node-" suffix="" radical="0-$((n - 1))" speed="1Gf" bw="125MBps" lat="50us" bb_bw="2.5GBps" bb_lat="10us"/>
  </zone>
</platform>
EOF
  seq 0 $((n - 1)) | sed 's/^/node-/' >"$d/hostfile"
  echo "$algos" >"$d/algorithms.txt"
  if [ ! -f "$d/trace.txt" ]; then
    (cd "$d" && smpirun -trace-ti --cfg=tracing/filename:trace.txt --cfg=smpi/simulate-computation:$sim_comp \
      "${sg_algos[@]}" -np "$n" -platform platform.xml -hostfile hostfile "$prog" "${args[@]}" >record.log 2>&1) ||
      { echo "$n: recording failed, see $d/record.log"; continue; }
  fi
  (cd "$d" && /usr/bin/time -f "%e %M" -o sg.time smpirun -np "$n" -platform platform.xml -hostfile hostfile \
    -replay trace.txt "${sg_algos[@]}" >replay.log 2>&1) || { echo "$n: SimGrid's replay failed, see $d/replay.log"; continue; }
  sg=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$d/replay.log" | tail -n1)
  for k in 1 2 3; do
    (cd "$d" && /usr/bin/time -f "%e %M" -o "simpi$k.time" "$simpi" replay trace.txt --model hybrid --preset smpi \
      --platform platform.xml --hostfile hostfile "${simpi_algos[@]}" --json >simpi.json 2>simpi.err) ||
      { echo "$n: simpi's replay failed, see $d/simpi.err"; continue 2; }
  done
  python3 - "$n" "$sg" "$d" <<'PY' | tee -a "$out/table.txt"
import json, statistics, sys
n, sg, d = sys.argv[1], float(sys.argv[2]), sys.argv[3]
js = json.load(open(f"{d}/simpi.json"))
sim = js["makespan_ps"] / 1e12
def wall_mem(f):
    w, kb = open(f).read().split()[-2:]
    return float(w), int(kb) / 1024
sg_wall, sg_mib = wall_mem(f"{d}/sg.time")
runs = [wall_mem(f"{d}/simpi{k}.time") for k in (1, 2, 3)]
med = statistics.median(w for w, _ in runs)
mib = max(m for _, m in runs)
walls = "/".join(f"{w:.2f}" for w, _ in runs)
print(f"{n:>6s} {js['events']:>10d} {sg:12.6f} {sim:12.6f} {sg_wall:9.2f} {sg_mib:9.0f} {med:9.2f} {walls:<22s} {mib:9.0f} {sg_wall / med:7.1f}x")
PY
done
