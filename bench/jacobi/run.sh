#!/usr/bin/env bash
# PEVPM's Jacobi validation (issue 19, seed mpibench-pevpm): the real program
# (jacobi.c: ranks on a line, 1 KiB edges, a fixed compute emulated by sleeping) runs on
# simpi testbed configured like Perseus (100 Mbit/s node links, two cabinets joined by a
# 100 Mbit/s uplink); simpi bench measures the distributions of 1 KiB message times on
# the same testbed; the skeleton (skeleton.py) is predicted from those distributions
# (--model stochastic, Monte Carlo), from their minimum and from their mean (point
# masses), as PEVPM's paper compares. Prints one row per rank count.
#
# Usage (root): [RANKS="2 4 8 16"] [ITERS=1000] [COMPUTE_US=1000] [RUNS=3] bench/jacobi/run.sh OUT
set -euo pipefail
out=$(realpath -m "${1:?usage: bench/jacobi/run.sh OUT}")
ranks=${RANKS:-2 4 8 16}; iters=${ITERS:-1000}; compute=${COMPUTE_US:-1000}; runs=${RUNS:-3}
here=$(cd "$(dirname "$0")/../.." && pwd)
simpi="$here/target/release/simpi"
(cd "$here" && cargo build --release -q -p simpi-cli)
mkdir -p "$out"
mpicc -O2 -o "$out/jacobi" "$here/bench/jacobi/jacobi.c"
tb() { "$simpi" testbed --nodes "$1" --cabinets 2 --bandwidth 100Mbps --latency 100us \
         --uplink-bandwidth 100Mbps --platform-out "$out/platform-$1.toml" \
         --xml-out "$out/platform-$1.xml" -- "${@:2}"; }

# The compute phase's real length: the program alone, one rank (no messages).
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$out/jacobi" "$iters" "$compute" > "$out/serial.txt"
serial_us=$(awk '$1=="jacobi"{ printf "%.3f", $4 / $3 * 1e6 }' "$out/serial.txt")
echo "serial: ${serial_us} us per iteration (asked ${compute})"

# Distributions of 1 KiB messages at 1, 2, 4 and 8 pairs at once (16 nodes, pairs across
# the cabinets' uplink).
"$simpi" bench -o "$out/jacobi.dist" --sizes 1024 --levels 1,2,4,8 --repeats 500 --warmup 100 \
  -- "$simpi" testbed --nodes 16 --cabinets 2 --bandwidth 100Mbps --latency 100us \
     --uplink-bandwidth 100Mbps --platform-out "$out/bench-platform.toml" \
     --xml-out "$out/bench-platform.xml" -- > "$out/bench.txt" 2>&1
python3 "$here/bench/jacobi/point_masses.py" "$out/jacobi.dist" "$out/min.dist" "$out/mean.dist"

printf "%6s %12s %12s %12s %12s %12s %8s %8s %8s\n" ranks measured_s sd_s stoch_s min_s mean_s err_st err_min err_mean
for n in $ranks; do
  : > "$out/runs-$n.txt"
  for r in $(seq "$runs"); do
    tb "$n" "$out/jacobi" "$iters" "$compute" 2>/dev/null | awk '$1=="jacobi"{print $4}' >> "$out/runs-$n.txt"
  done
  python3 "$here/bench/jacobi/skeleton.py" "$n" "$iters" "$serial_us" > "$out/skeleton-$n.tit"
  pred() {
    "$simpi" replay "$out/skeleton-$n.tit" --model stochastic --distributions "$1" \
      --platform "$out/platform-$n.toml" --seed 1 ${2:+--replications $2} --json |
      python3 -c 'import json,sys; j=json.load(sys.stdin); print(j.get("makespan_mean_ps", j.get("makespan_ps"))/1e12)'
  }
  st=$(pred "$out/jacobi.dist" 20); mn=$(pred "$out/min.dist"); me=$(pred "$out/mean.dist")
  python3 - "$n" "$out/runs-$n.txt" "$st" "$mn" "$me" <<'PY'
import math, statistics, sys
n = sys.argv[1]; runs = [float(x) for x in open(sys.argv[2]) if x.strip()]
m = statistics.mean(runs); sd = statistics.stdev(runs) if len(runs) > 1 else 0.0
st, mn, me = map(float, sys.argv[3:])
e = lambda p: math.log(p / m)
print(f"{n:>6} {m:12.4f} {sd:12.4f} {st:12.4f} {mn:12.4f} {me:12.4f} {e(st):+8.3f} {e(mn):+8.3f} {e(me):+8.3f}")
PY
done
