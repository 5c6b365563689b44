#!/usr/bin/env bash
# Regenerates the LogGOPSim cases of tests/golden/noise/ (lgs-*): small schedules run
# by LogGOPSim with a noise trace and a chosen seed of its offsets (see lib.sh), stored
# with the offsets it drew, for crates/simpi/tests/noise.rs. LogGOPSim is not part of
# simpi: build it from its public source and point these variables at the binaries:
#   LOGGOPSIM=/path/to/LogGOPSim TXT2BIN=/path/to/txt2bin bench/noise/golden.sh [DIR]
# DIR defaults to tests/golden/noise. Upstream LogGOPSim prints every rank's end time
# only up to 16 ranks, so the cases stay that small.
set -euo pipefail
: "${LOGGOPSIM:?set LOGGOPSIM to a LogGOPSim binary}"
: "${TXT2BIN:?set TXT2BIN to the txt2bin of LogGOPSim}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SIMPI=${SIMPI:-$ROOT/target/release/simpi}
[ -x "$SIMPI" ] || (cd "$ROOT" && cargo build --release -q)
OUT=${1:-$ROOT/tests/golden/noise}
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
. "$ROOT/bench/noise/lib.sh"
build_helpers

# Traces: long detours close together (n5), a detour of 250 ns every 10 us, and 400
# random detours (gaps of 3 us on average, 50 ns to 2 us long, some overlapping).
printf '0\t10\n100\t5000\n7000\t700\n20000\t3000\n33000\t1\n' >"$WORK/n5.txt"
synthetic_trace "$WORK/every10us.txt" 10000 250 200
random_trace "$WORK/random.txt" 1 400 3000 50 2000

gen() { "$SIMPI" schedgen "$@" -o "$WORK/s.goal"; }
rm -rf "$OUT"/lgs-*
gen rd-allreduce --ranks 16 --bytes 8 --iterations 3 --compute 5000
golden_case "$OUT" lgs-rd-allreduce-16 "$WORK/s.goal" "$WORK/n5.txt" 5 0
golden_case "$OUT" lgs-rd-allreduce-16-cosched "$WORK/s.goal" "$WORK/n5.txt" 5 1
gen binomial-bcast --ranks 13 --bytes 100000 --iterations 2 --compute 300
golden_case "$OUT" lgs-binomial-bcast-13-rendezvous "$WORK/s.goal" "$WORK/random.txt" 11 0
gen linear-alltoall --ranks 8 --bytes 1000 --iterations 2 --compute 2000
golden_case "$OUT" lgs-linear-alltoall-8 "$WORK/s.goal" "$WORK/every10us.txt" 12 0
gen dissemination-barrier --ranks 16 --iterations 4 --compute 700
golden_case "$OUT" lgs-dissemination-barrier-16-cosched "$WORK/s.goal" "$WORK/random.txt" 13 1
# Computations of 30 us against a period of 33 us: placed modulo 3 us.
gen stencil3d --ranks 8 --bytes 64 --iterations 2 --compute 30000
golden_case "$OUT" lgs-stencil3d-8-long-compute "$WORK/s.goal" "$WORK/n5.txt" 14 0
for seed in 1 2 3 4; do
  "$SIMPI" schedgen random --seed "$seed" --ranks $((seed * 3 + 2)) --bytes 150000 --compute 4000 \
    --cpus $((seed % 3 + 1)) --nics $((seed % 2 + 1)) -o "$WORK/s.goal"
  golden_case "$OUT" "lgs-random-$seed" "$WORK/s.goal" "$WORK/random.txt" $((20 + seed)) $((seed % 2)) \
    -L 3000 -o 1200 -g 900 -G 7 -O 2 -S 40000
done
echo "wrote $(ls -d "$OUT"/lgs-* | wc -l) cases under $OUT"
