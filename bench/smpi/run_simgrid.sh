#!/usr/bin/env bash
# Regenerates the SimGrid/SMPI reference cases under tests/golden/smpi/<case>/:
#   platform.xml   copy of the platform (bench/smpi/platforms/)
#   schedule.goal  equivalent GOAL schedule (bench/smpi/make_goal.py)
#   expected.txt   "rank <r>: <seconds>" per rank (SMPI end time, 15 significant digits)
#                  and a last line "makespan: <seconds>"
# Needs SimGrid's smpicc/smpirun (Debian: apt-get install libsimgrid-dev simgrid; made
# with 3.32) and python3. Usage: bench/smpi/run_simgrid.sh [CASE...]  (default: all cases)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-$ROOT/tests/golden/smpi}
SMPICC=${SMPICC:-smpicc}
SMPIRUN=${SMPIRUN:-smpirun}
PLAT=$HERE/platforms

WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
version=$("$SMPIRUN" -version 2>&1 | head -n1 || true)
echo "using: $version" >&2
case "$version" in *3.32*) ;; *) echo "warning: the golden files were made with SimGrid 3.32" >&2;; esac

for p in pingpong concurrent ring pairwise; do
  "$SMPICC" -O2 -o "$WORK/$p" "$HERE/programs/$p.c"
done

# hostfile: rank r on the r-th host of the platform, one rank per host
hostfile() {
  case "$1" in
    flat-nobb) printf 'node-%d\n' 0 1;;
    flat|fattree) printf 'node-%d\n' $(seq 0 15);;
    torus) printf 'node-%d\n' $(seq 0 7);;
    cabinets) printf 'cab0-%d\n' 0 1 2 3; printf 'cab1-%d\n' 0 1 2 3;;
    *) echo "no hostfile for $1" >&2; exit 1;;
  esac
}
nhosts() { hostfile "$1" | wc -l; }

# run_case CASE PLATFORM PROGRAM ARGS...
run_case() {
  local name=$1 plat=$2 prog=$3; shift 3
  local np dir=$OUT/$name
  np=$(nhosts "$plat")
  hostfile "$plat" > "$WORK/hosts-$plat"
  mkdir -p "$dir"
  cp "$PLAT/$plat.xml" "$dir/platform.xml"
  python3 "$HERE/make_goal.py" "$name" > "$dir/schedule.goal"
  # The exact command line (the smpirun wrapper adds --cfg=surf/precision:1e-9
  # --cfg=network/model:SMPI and the privatization/np/hostfile/tmpdir settings itself).
  (cd "$WORK" && "$SMPIRUN" -np "$np" -platform "$PLAT/$plat.xml" -hostfile "$WORK/hosts-$plat" \
      --cfg=smpi/simulate-computation:no "$WORK/$prog" "$@") > "$WORK/out" 2> "$WORK/err" || {
    echo "$name: smpirun failed" >&2; cat "$WORK/err" >&2; exit 1; }
  python3 - "$np" "$WORK/out" > "$dir/expected.txt" <<'PY'
import re, sys
np, path = int(sys.argv[1]), sys.argv[2]
t = {}
for line in open(path):
    m = re.fullmatch(r"rank (\d+): (\S+)\n?", line)
    if m:
        t[int(m.group(1))] = float(m.group(2))
if sorted(t) != list(range(np)):
    sys.exit(f"expected {np} rank lines, got ranks {sorted(t)}")
for r in range(np):
    print(f"rank {r}: {t[r]:.15g}")
print(f"makespan: {max(t.values()):.15g}")
PY
  echo "$name: makespan $(sed -n 's/^makespan: //p' "$dir/expected.txt")" >&2
}

run() {
  local name=$1
  case "$name" in
    pingpong-*) run_case "$name" flat-nobb pingpong "${name#pingpong-}";;
    concurrent-*) run_case "$name" flat concurrent "${name#concurrent-}" 1048576 8;;
    ring-*) run_case "$name" "${name#ring-}" ring 1048576;;
    pairwise-*) run_case "$name" "${name#pairwise-}" pairwise 262144;;
    *) echo "unknown case $name" >&2; exit 2;;
  esac
}

if [ $# -gt 0 ]; then cases=("$@"); else mapfile -t cases < <(python3 "$HERE/make_goal.py" --list); fi
for c in "${cases[@]}"; do run "$c"; done
