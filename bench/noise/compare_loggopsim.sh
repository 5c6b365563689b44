#!/usr/bin/env bash
# OS noise side by side with LogGOPSim on a recursive-doubling allreduce of 2^K ranks
# (8 bytes, LogGOPSim's default parameters):
#   1. without noise, the makespans and event counts must agree exactly;
#   2. with noise and the offsets LogGOPSim drew (seeds chosen through a time() shim,
#      see lib.sh), simpi must give LogGOPSim's makespan exactly (independent and
#      co-scheduled offsets; checked by crates/simpi/tests/noise.rs on these cases);
#   3. LogGOPSim run with SEEDS seeds, simpi with --replications REPS: is simpi's mean
#      makespan inside the 95 % interval of the mean of LogGOPSim's runs (stats.py)?
# for two traces: a detour of 2.5 us every 1 ms, and random detours.
# LogGOPSim is not part of simpi: build it from its public source and point these
# variables at the binaries:
#   LOGGOPSIM=/path/to/LogGOPSim TXT2BIN=/path/to/txt2bin bench/noise/compare_loggopsim.sh [OPTIONS]
# Options: --log2-ranks K (default 10), --seeds N (LogGOPSim runs, default 100),
#          --replications N (simpi's, default 100), --jobs N (simpi's threads).
set -euo pipefail
: "${LOGGOPSIM:?set LOGGOPSIM to a LogGOPSim binary}"
: "${TXT2BIN:?set TXT2BIN to the txt2bin of LogGOPSim}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SIMPI=${SIMPI:-$ROOT/target/release/simpi}
[ -x "$SIMPI" ] || (cd "$ROOT" && cargo build --release -q)
K=10; SEEDS=100; REPS=100; JOBS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --log2-ranks) K=$2; shift 2;;
    --seeds) SEEDS=$2; shift 2;;
    --replications) REPS=$2; shift 2;;
    --jobs) JOBS=(--jobs "$2"); shift 2;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
done
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
. "$ROOT/bench/noise/lib.sh"
build_helpers
ranks=$((1 << K))
status=0
now() { date +%s.%N; }

echo "== recursive-doubling allreduce, $ranks ranks, 8 bytes"
t0=$(now)
"$SIMPI" schedgen rd-allreduce --ranks "$ranks" --bytes 8 -o "$WORK/all.goal"
"$TXT2BIN" -i "$WORK/all.goal" -o "$WORK/all.bin" >/dev/null
echo "schedule: $(wc -l <"$WORK/all.goal") lines, made and converted in $(echo "$(now) - $t0" | bc) s"

# LogGOPSim's makespan (ns) in output FILE.
lgs_max() { sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\).*/\1/p; s/^Host [0-9]*: \([0-9]*\)$/\1/p' "$1" | sort -n | tail -1; }

echo "-- 1. without noise"
t0=$(now); "$LOGGOPSIM" -f "$WORK/all.bin" >"$WORK/lgs.out"; t_lgs=$(echo "$(now) - $t0" | bc)
t0=$(now); "$SIMPI" replay "$WORK/all.goal" --json >"$WORK/sim.json"; t_sim=$(echo "$(now) - $t0" | bc)
lmax=$(lgs_max "$WORK/lgs.out")
smax=$(sed -n 's/.*"makespan_ps": \([0-9]*\).*/\1/p' "$WORK/sim.json")
levents=$(sed -n 's/.*Events: \([0-9]*\).*/\1/p' "$WORK/lgs.out")
sevents=$(sed -n 's/.*"events": \([0-9]*\).*/\1/p' "$WORK/sim.json")
echo "LogGOPSim $lmax ns, $levents events ($t_lgs s); simpi $((smax / 1000)) ns, $sevents events ($t_sim s)"
if [ "$((lmax * 1000))" = "$smax" ] && [ "$levents" = "$sevents" ]; then echo "identical"; else echo "DIFFER"; status=1; fi

synthetic_trace "$WORK/every1ms.txt" 1000000 2500 1001
random_trace "$WORK/random.txt" 7 10000 200000 1000 20000
for trace in every1ms random; do
  tf=$WORK/$trace.txt
  echo "-- 2. trace $trace ($(grep -vc '^#' "$tf") detours over $(period "$tf") ns): LogGOPSim's own offsets"
  rm -rf "$WORK/golden"
  golden_case "$WORK/golden" independent "$WORK/all.goal" "$tf" 1 0
  golden_case "$WORK/golden" cosched "$WORK/all.goal" "$tf" 2 1
  echo "LogGOPSim: seed 1 independent $(cat "$WORK/golden/independent/expected.txt"), seed 2 co-scheduled $(cat "$WORK/golden/cosched/expected.txt")"
  if (cd "$ROOT" && SIMPI_NOISE_GOLDEN="$WORK/golden" cargo test -q --release -p simpi --test noise noisy_end_times \
    >"$WORK/test.out" 2>&1); then
    echo "simpi with the same offsets: identical"
  else
    echo "simpi with the same offsets: DIFFER"; grep -A 8 "differ" "$WORK/test.out" | head -20; status=1
  fi

  echo "-- 3. trace $trace: LogGOPSim with $SEEDS seeds, simpi with --replications $REPS"
  t0=$(now)
  for seed in $(seq 1 "$SEEDS"); do
    lgs "$seed" -f "$WORK/all.bin" --noise-trace "$tf" >"$WORK/lgs.out"
    lgs_max "$WORK/lgs.out"
  done >"$WORK/lgs-$trace.txt"
  t_lgs=$(echo "$(now) - $t0" | bc)
  t0=$(now)
  "$SIMPI" replay "$WORK/all.goal" --noise "$tf" --seed 1 --replications "$REPS" "${JOBS[@]}" --json >"$WORK/sim-$trace.json"
  t_sim=$(echo "$(now) - $t0" | bc)
  echo "wall time: LogGOPSim $t_lgs s for $SEEDS runs (one after the other), simpi $t_sim s for $REPS"
  python3 "$ROOT/bench/noise/stats.py" "$WORK/lgs-$trace.txt" "$WORK/sim-$trace.json" || status=1
done
exit $status
