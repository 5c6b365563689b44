#!/usr/bin/env bash
# End-to-end scale scenarios of the LogGOPS engine (issue 2):
#   1. a 2^17-rank recursive-doubling allreduce of 8 bytes
#   2. a 2^20-rank binomial broadcast of 8 bytes
# For each: generate the GOAL file with `simpi schedgen` (streamed; its peak memory is
# printed too), replay it, and print events/s, wall time, peak memory and the checksum
# of the per-rank end times. Build in release mode first (the script does).
# Optional: LOGGOPSIM=... TXT2BIN=... run LogGOPSim on the same files for a side-by-side.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
cargo build --release -q -p simpi-cli
SIMPI=$ROOT/target/release/simpi
OUT=${OUT:-$ROOT/bench/out}
mkdir -p "$OUT"
TIME=/usr/bin/time
[ -x $TIME ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

scenario() {
  local name=$1 pattern=$2 ranks=$3
  local goal=$OUT/$name.goal
  echo "== $name: $pattern, $ranks ranks, 8 bytes"
  $TIME -f "schedgen: wall %e s, peak RSS %M KiB" "$SIMPI" schedgen "$pattern" --ranks "$ranks" --bytes 8 -o "$goal"
  echo "file: $(du -h "$goal" | cut -f1)"
  $TIME -f "simpi replay: wall %e s, peak RSS %M KiB" "$SIMPI" replay "$goal" | grep -E "makespan|events|wall|memory|checksum"
  if [ -n "${LOGGOPSIM:-}" ] && [ -n "${TXT2BIN:-}" ]; then
    $TIME -f "LogGOPSim txt2bin: wall %e s, peak RSS %M KiB" "$TXT2BIN" -i "$goal" -o "$OUT/$name.bin" > /dev/null
    $TIME -f "LogGOPSim: wall %e s, peak RSS %M KiB" "$LOGGOPSIM" -f "$OUT/$name.bin" -b | grep -E "PERFORMANCE|Maximum" || true
    rm -f "$OUT/$name.bin"
  fi
  rm -f "$goal"
}

scenario rd-allreduce-2p17 rd-allreduce 131072
scenario binomial-bcast-2p20 binomial-bcast 1048576
