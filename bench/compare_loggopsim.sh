#!/usr/bin/env bash
# Replays the same GOAL schedules with simpi and with LogGOPSim and compares per-rank
# end times and event counts. LogGOPSim is not part of simpi: build it yourself from
# its public source and point these variables at the binaries:
#   LOGGOPSIM=/path/to/LogGOPSim TXT2BIN=/path/to/txt2bin bench/compare_loggopsim.sh [OPTIONS]
# Upstream LogGOPSim prints every rank's end time only up to 16 ranks; beyond that the
# script compares the maximum (a build that always prints all hosts compares everything).
# Options:
#   --save-golden DIR   store each compared case (schedule, args, LogGOPSim's output)
#                       under DIR/<case>/ for the golden tests
#   --random N          number of random schedules (default 200)
#   --patterns SIZES    comma-separated rank counts for the schedgen patterns
set -euo pipefail
: "${LOGGOPSIM:?set LOGGOPSIM to a LogGOPSim binary}"
: "${TXT2BIN:?set TXT2BIN to the txt2bin of LogGOPSim}"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SIMPI=${SIMPI:-$ROOT/target/release/simpi}
[ -x "$SIMPI" ] || (cd "$ROOT" && cargo build --release -q)
SAVE=""; NRANDOM=200; SIZES="2,3,7,8,16,33,64,100,256"
while [ $# -gt 0 ]; do
  case "$1" in
    --save-golden) SAVE=$2; shift 2;;
    --random) NRANDOM=$2; shift 2;;
    --patterns) SIZES=$2; shift 2;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
done
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
pass=0; fail=0; stalls=0

# compare NAME GOALFILE ARGS...
compare() {
  local name=$1 goal=$2; shift 2
  "$TXT2BIN" -i "$goal" -o "$WORK/s.bin" >/dev/null
  "$LOGGOPSIM" -f "$WORK/s.bin" "$@" > "$WORK/lgs.out" 2>&1 || true
  local lgs_events; lgs_events=$(sed -n 's/.*Events: \([0-9]*\).*/\1/p' "$WORK/lgs.out")
  local lgs_stall=0; grep -q "queue on host" "$WORK/lgs.out" && lgs_stall=1
  local sim_stall=0
  "$SIMPI" replay "$goal" --format loggopsim "$@" > "$WORK/sim.out" 2> "$WORK/sim.err" || sim_stall=1
  local ok=1 sim_events
  if [ $sim_stall = 1 ]; then
    sim_events=$(sed -n 's/.*stopped after \([0-9]*\) events.*/\1/p' "$WORK/sim.err")
  else
    sim_events=$("$SIMPI" replay "$goal" --json "$@" | sed -n 's/.*"events": \([0-9]*\).*/\1/p')
  fi
  [ "$lgs_stall" = "$sim_stall" ] || ok=0
  [ "$lgs_events" = "$sim_events" ] || ok=0
  if [ $sim_stall = 0 ] && [ $ok = 1 ]; then
    if grep -q '^Host ' "$WORK/lgs.out"; then
      diff <(grep '^Host ' "$WORK/lgs.out") "$WORK/sim.out" > /dev/null || ok=0
    else
      local lmax smax
      lmax=$(sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\).*/\1/p' "$WORK/lgs.out")
      smax=$(sed 's/^Host [0-9]*: //' "$WORK/sim.out" | sort -n | tail -1)
      [ "$lmax" = "$smax" ] || ok=0
    fi
  fi
  [ $lgs_stall = 1 ] && stalls=$((stalls + 1))
  if [ $ok = 1 ]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "DIFFERS: $name (events lgs=$lgs_events simpi=$sim_events, stall lgs=$lgs_stall simpi=$sim_stall)"
  fi
  if [ -n "$SAVE" ] && [ $ok = 1 ] && grep -q '^Host \|queue on host' "$WORK/lgs.out"; then
    mkdir -p "$SAVE/$name"; cp "$goal" "$SAVE/$name/schedule.goal"; echo "$*" > "$SAVE/$name/args"
    if [ $lgs_stall = 1 ]; then echo stall > "$SAVE/$name/expected.txt"; else grep '^Host ' "$WORK/lgs.out" > "$SAVE/$name/expected.txt"; fi
  fi
}

IFS=, read -ra NS <<< "$SIZES"
for pat in binomial-bcast binomial-reduce rd-allreduce ring-allreduce dissemination-barrier linear-alltoall stencil3d; do
  for n in "${NS[@]}"; do
    for bytes in 1 8 100000; do
      "$SIMPI" schedgen "$pat" --ranks "$n" --bytes "$bytes" --iterations 2 --compute 300 -o "$WORK/p.goal"
      compare "$pat-$n-$bytes" "$WORK/p.goal"
    done
  done
done
for seed in $(seq 1 "$NRANDOM"); do
  cpus=$(( seed % 3 + 1 )); nics=$(( (seed / 3) % 2 + 1 )); ranks=$(( seed % 13 + 2 ))
  "$SIMPI" schedgen random --seed "$seed" --ranks "$ranks" --bytes 150000 --compute 4000 --cpus $cpus --nics $nics -o "$WORK/r.goal"
  compare "random-$seed" "$WORK/r.goal" -L 3000 -o 1200 -g 900 -G 7 -O 2 -S 40000
done
echo "$pass passed, $fail failed"
echo "(LogGOPSim itself reported $stalls of them as unable to complete; simpi agreed on each one it passed)"
[ $fail = 0 ]
