#!/usr/bin/env bash
# Replay speed against SimGrid on traces already recorded by run.sh or scale.sh.
#
# For each case directory (trace.txt, hostfile, algorithms.txt or the scale.sh defaults,
# platform.xml or run.sh's flat platform) times SimGrid's replay (`smpirun -replay`) and
# simpi's (`--model hybrid --preset smpi`, same algorithms) with hyperfine: both commands
# in the same hyperfine run, warm-ups first, ROUNDS runs each (default 10), and prints both
# medians, their ratio and both simulated times. Millisecond replays need repeated runs:
# one run of a 5 ms command is mostly noise.
#
# Usage: bench/smpi-replay/speed.sh CASE_DIR...
#   e.g. bench/smpi-replay/speed.sh bench-out/smpi-replay/cases/* bench-out/smpi-scale/{128,512}
# Environment: ROUNDS (default 10; SimGrid runs longer than 5 s get 3, longer than 60 s one,
# without warm-up), SIMPI (the binary).
# Run it on an otherwise idle machine.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
simpi=${SIMPI:-$here/target/release/simpi}
[ -n "${SIMPI:-}" ] || (cd "$here" && cargo build --release -q -p simpi-cli)
command -v hyperfine >/dev/null || { echo "speed.sh needs hyperfine (apt-get install hyperfine)" >&2; exit 2; }
rounds=${ROUNDS:-10}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

printf "%-34s %6s %12s %12s %10s %10s %8s\n" case ranks simgrid_s simpi_s sg_ms simpi_ms speedup
for d in "$@"; do
  d=$(realpath "$d"); name=$(basename "$d")
  [ -f "$d/trace.txt" ] || { echo "$name: no trace.txt, skipped" >&2; continue; }
  plat=$d/platform.xml; [ -f "$plat" ] || plat=$here/bench/smpi/platforms/flat.xml
  algos="allreduce=rdb:rdb barrier=bruck:ompi_bruck reduce=binomial:binomial bcast=binomial:binomial_tree"
  [ -f "$d/algorithms.txt" ] && algos=$(cat "$d/algorithms.txt")
  sgcfg=""; coll=""
  for a in $algos; do
    op=${a%%=*}; rest=${a#*=}
    coll+=" --coll $op=${rest%%:*}"; sgcfg+=" --cfg=smpi/$op:${rest#*:}"
  done
  ranks=$(wc -l <"$d/hostfile")
  sg="smpirun -np $ranks -platform $plat -hostfile hostfile -replay trace.txt$sgcfg"
  sp="$simpi replay trace.txt --model hybrid --preset smpi --platform $plat --hostfile hostfile$coll"
  # Simulated times, and a first SimGrid run to size the rounds.
  start=$(date +%s.%N)
  sg_time=$(cd "$d" && $sg 2>&1 | sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' | tail -n1)
  took=$(python3 -c "print($(date +%s.%N) - $start)")
  n=$rounds; w=1
  python3 -c "import sys; sys.exit(not $took > 5)" && n=3
  python3 -c "import sys; sys.exit(not $took > 60)" && { n=1; w=0; }
  sp_time=$(cd "$d" && $sp --json | python3 -c "import json,sys; print(json.load(sys.stdin)['makespan_ps'] / 1e12)")
  (cd "$d" && hyperfine -N -w "$w" -r "$n" --export-json "$tmp/h.json" "$sg" "$sp" >/dev/null 2>&1)
  python3 - "$name" "$ranks" "$sg_time" "$sp_time" "$tmp/h.json" <<'PY'
import json, sys
name, ranks, sg_t, sp_t, f = sys.argv[1:6]
r = json.load(open(f))["results"]
sg, sp = r[0]["median"], r[1]["median"]
print(f"{name:34s} {ranks:>6s} {float(sg_t):12.6f} {float(sp_t):12.6f} {sg * 1e3:10.1f} {sp * 1e3:10.2f} {sg / sp:7.1f}x")
PY
done
