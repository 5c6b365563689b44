#!/usr/bin/env bash
# Scale scenarios of the incremental engine (issue "One incremental engine"):
#   1. a 2^20-rank recursive-doubling allreduce of 8 B under LogGOPS, generated in the
#      process and from its GOAL file: the same per-rank end times (checksums);
#   2. the same at 2^23 ranks in the process (time and peak memory);
#   3. TraceR's 3D stencil: 512K ranks (128 x 64 x 64 torus), 128 KiB faces, six
#      neighbours (periodic), 3 iterations, under the flow model.
# Prints wall time and peak memory (/usr/bin/time) and each replay's summary.
# Usage: bench/engine/scale.sh [OUT_DIR]   (default bench-out/engine-scale)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$ROOT/bench-out/engine-scale}
mkdir -p "$OUT"
SIMPI=${SIMPI:-$ROOT/target/release/simpi}
[ -n "${SIMPI_SKIP_BUILD:-}" ] || (cd "$ROOT" && cargo build --release -q -p simpi-cli)
T="/usr/bin/time -f %e_s_%M_KiB"
summary() { grep -E "makespan|events  |checksum|wall|_KiB" || true; }

echo "== 1. rd-allreduce, 2^20 ranks: file-based and in-process"
$T "$SIMPI" schedgen rd-allreduce --ranks 1048576 --bytes 8 -o "$OUT/rd20.goal" 2>&1 | summary
ls -l "$OUT/rd20.goal" | awk '{print "file bytes", $5}'
$T "$SIMPI" replay "$OUT/rd20.goal" 2>&1 | summary
rm -f "$OUT/rd20.goal"
$T "$SIMPI" replay --pattern rd-allreduce --ranks 1048576 --bytes 8 2>&1 | summary

echo "== 2. rd-allreduce, 2^23 ranks, in-process"
$T "$SIMPI" replay --pattern rd-allreduce --ranks 8388608 --bytes 8 2>&1 | summary

echo "== 3. TraceR's 3D stencil: 512K ranks on a 128x64x64 torus, flow model"
cat > "$OUT/torus512k.toml" <<TOML
name = "torus512k"
[topology]
kind = "torus"
dims = [128, 64, 64]
speed = "1Gf"
link = { bandwidth = "2GBps", latency = "100ns", sharing = "split-duplex" }
TOML
$T "$SIMPI" replay --pattern stencil3d --periodic --ranks 524288 --bytes 131072 --iterations 3 \
  --model flow --platform "$OUT/torus512k.toml" 2>&1 | summary
