# Shared by bench/noise/*.sh: LogGOPSim with a chosen noise seed, its offsets, and
# noise traces. Source it after setting LOGGOPSIM, TXT2BIN, SIMPI and WORK.
#
# LogGOPSim seeds the generator of its noise offsets with time(0), in seconds: two runs
# in the same second draw the same offsets, and no option chooses them. fake_time.c
# (preloaded) makes time() return $SIMPI_FAKE_TIME, so seed k is "time k", and
# loggopsim_offsets.cpp prints the offsets LogGOPSim draws for it.

NOISE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# build_helpers: compiles the time() shim and the offsets program into $WORK.
build_helpers() {
  cc -O2 -shared -fPIC -o "$WORK/fake_time.so" "$NOISE_DIR/fake_time.c"
  c++ -O2 -o "$WORK/loggopsim_offsets" "$NOISE_DIR/loggopsim_offsets.cpp"
}

# lgs SEED ARGS...: LogGOPSim with time() = SEED.
lgs() {
  local seed=$1; shift
  SIMPI_FAKE_TIME=$seed LD_PRELOAD="$WORK/fake_time.so" "$LOGGOPSIM" "$@"
}

# period TRACE: the start of the trace's last detour, whole ns, as LogGOPSim rounds it.
period() {
  awk '!/^#/ && NF >= 2 { p = $1 } END { printf "%.0f\n", p }' "$1"
}

# offsets SEED RANKS TRACE [cosched]: LogGOPSim's offsets (ns), one per line.
offsets() {
  "$WORK/loggopsim_offsets" "$1" "$2" "$(period "$3")" ${4:+cosched}
}

# synthetic_trace FILE EVERY_NS DETOUR_NS COUNT: a detour of DETOUR_NS every EVERY_NS.
synthetic_trace() {
  awk -v every="$2" -v d="$3" -v n="$4" \
    'BEGIN { print "# a detour of " d " ns every " every " ns"; for (i = 0; i < n; i++) print i * every "\t" d }' >"$1"
}

# random_trace FILE SEED COUNT MEAN_GAP_NS MIN_NS MAX_NS: COUNT detours whose gaps are
# exponential (mean MEAN_GAP_NS) and durations log-uniform in [MIN_NS, MAX_NS], whole ns.
random_trace() {
  python3 - "$@" <<'PY'
import math, random, sys
path, seed, n, gap, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
r = random.Random(seed)
t = round(r.expovariate(1 / gap))
with open(path, "w") as f:
    f.write(f"# {n} random detours: exponential gaps of mean {gap:g} ns, log-uniform durations {lo:g}-{hi:g} ns (seed {seed})\n")
    for _ in range(n):
        f.write(f"{t}\t{round(math.exp(r.uniform(math.log(lo), math.log(hi))))}\n")
        t += max(1, round(r.expovariate(1 / gap)))
PY
}

# golden_case DIR NAME GOAL TRACE SEED COSCHED(0|1) LOGGOPS-ARGS...: runs LogGOPSim on
# GOAL with TRACE and time() = SEED, and stores the case for crates/simpi/tests/noise.rs
# under DIR/NAME: schedule.goal, noise.txt, args, offsets.txt, expected.txt (LogGOPSim's
# Host lines, its maximum when it prints only that, or `stall` when it ends with
# messages or receives left in its queues).
golden_case() {
  local dir=$1/$2 name=$2 goal=$3 trace=$4 seed=$5 cosched=$6; shift 6
  local flags=()
  [ "$cosched" = 1 ] && flags=(--noise-cosched)
  "$TXT2BIN" -i "$goal" -o "$WORK/case.bin" >/dev/null
  lgs "$seed" -f "$WORK/case.bin" --noise-trace "$trace" "${flags[@]}" "$@" >"$WORK/case.out" 2>&1
  mkdir -p "$dir"
  cp "$goal" "$dir/schedule.goal"
  cp "$trace" "$dir/noise.txt"
  echo "$*" >"$dir/args"
  local ranks; ranks=$(sed -n 's/^num_ranks \([0-9]*\).*/\1/p' "$goal")
  offsets "$seed" "$ranks" "$trace" "$([ "$cosched" = 1 ] && echo cosched)" >"$dir/offsets.txt"
  if grep -q 'queue on host' "$WORK/case.out"; then
    echo stall >"$dir/expected.txt"
  elif grep -q '^Host ' "$WORK/case.out"; then
    grep '^Host ' "$WORK/case.out" >"$dir/expected.txt"
  else
    sed -n 's/^Maximum finishing time at host [0-9]*: \([0-9]*\).*/max \1/p' "$WORK/case.out" >"$dir/expected.txt"
  fi
  [ -s "$dir/expected.txt" ] || { echo "LogGOPSim gave no end times for $name:" >&2; cat "$WORK/case.out" >&2; return 1; }
}
