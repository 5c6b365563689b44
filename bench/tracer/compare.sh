#!/usr/bin/env bash
# Checks the tracer on a real program: runs it once under `simpi trace` with ltrace counting
# the same ranks' MPI calls (ltrace-count.sh), then compares, per rank and per function,
# the calls in the trace with ltrace's counts, reports functions the tracer does not trace,
# and replays the trace.
#
# Usage: bench/tracer/compare.sh RANKS OUT_DIR ./program args...
# Environment: MPIRUN, the launcher and its options (default Open MPI's
# `mpirun --oversubscribe --allow-run-as-root`; e.g. MPIRUN=mpirun.mpich), and MPICC, the
# compiler wrapper of the same MPI (default mpicc; e.g. MPICC=mpicc.mpich).
set -euo pipefail
ranks=$1; out=$2; shift 2
here=$(cd "$(dirname "$0")/../.." && pwd)
simpi="$here/target/release/simpi"
rm -rf "$out"; mkdir -p "$out"; out=$(realpath "$out")
read -r -a mpirun <<<"${MPIRUN:-mpirun --oversubscribe --allow-run-as-root}"
"$simpi" trace --mpicc "${MPICC:-mpicc}" -o "$out/trace" -- "${mpirun[@]}" -np "$ranks" \
  "$here/bench/tracer/ltrace-count.sh" "$out/ltrace" "$@" >"$out/stdout.txt" 2>"$out/stderr.txt"
"$simpi" trace-info "$out/trace" --json >"$out/info.json"
set +e
python3 - "$out" "$ranks" <<'PY'
import json, sys
out, ranks = sys.argv[1], int(sys.argv[2])
info = json.load(open(f"{out}/info.json"))
bad = 0
for r, rank in enumerate(info["ranks"]):
    lt = {}
    for line in open(f"{out}/ltrace/ltrace.{r}"):
        f = line.split()
        if len(f) == 5 and f[4].startswith("MPI_"):
            lt[f[4]] = int(f[3])
    called, traced = rank["called"], rank["in_trace"]
    for fn, n in sorted(traced.items()):
        if lt.get(fn) != n:
            print(f"rank {r}: {fn} is in the trace {n} times, ltrace saw {lt.get(fn)}"); bad += 1
    # Calls made from inside other libraries (Open MPI's C++ bindings call
    # MPI_Initialized, for instance) reach the tracer but not ltrace, which only sees the
    # program's own calls: differences outside the trace are reported, not failed.
    for fn in sorted(set(called) | set(lt)):
        if fn not in traced and called.get(fn, 0) != lt.get(fn, 0):
            print(f"rank {r}: note: {fn} counted {called.get(fn, 0)} times by the tracer, "
                  f"{lt.get(fn, 0)} by ltrace (not in the trace)")
    untraced = sorted(set(lt) - set(traced))
    if r == 0:
        print(f"rank 0: {sum(traced.values())} calls of {len(traced)} functions in the trace; "
              f"not traced (local or unknown): {', '.join(f'{f}={lt[f]}' for f in untraced) or 'none'}")
print("counts of traced calls agree with ltrace on every rank" if bad == 0 else f"{bad} disagreements")
sys.exit(1 if bad else 0)
PY
rc=$?
"$simpi" replay "$out/trace/index.txt" | tail -n 1 || rc=1
exit $rc
