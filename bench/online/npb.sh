#!/usr/bin/env bash
# Builds NPB 3.4 (MPI) with simpi's compiler wrappers, sources unmodified, and runs
# every kernel under `simpi run`, reporting each one's own verification.
#   bench/online/npb.sh NPB_MPI_DIR [CLASSES] [RANKS]
# SIMPI_RUN_OPTS adds options to every `simpi run` (e.g. --in-process).
# NPB_MPI_DIR is NPB3.4-MPI from the NPB 3.4 distribution (copied, not changed);
# CLASSES defaults to "S W", RANKS to 4 (BT and SP need a square number). DT runs
# its three graphs on 12 ranks at class S. The random number generator is NPB's
# portable one (RAND=randdp): the default randi8 uses a hexadecimal constant that
# gfortran 10 and later refuse, with any MPI.
set -euo pipefail
src=${1:?usage: bench/online/npb.sh NPB_MPI_DIR [CLASSES] [RANKS]}
classes=${2:-S W}
np=${3:-4}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/target/release
cargo build --release -q -p simpi-cmpi -p simpi-cli --manifest-path "$root/Cargo.toml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/npb"
cd "$work/npb"
[ -f config/make.def ] || cp config/make.def.template config/make.def
# A git checkout of NPB has no (empty) bin/.
mkdir -p bin
make_one() {
  make "$1" CLASS="$2" MPIFC="$bin/simpif90" MPICC="$bin/simpicc" FFLAGS=-O2 RAND=randdp \
    >"$work/build-$1-$2.log" 2>&1
}
verdict() {
  if grep -qiE "verification *= *successful|verification successful|result verification successful" "$1"; then
    echo verified
  else
    echo "NOT VERIFIED"
  fi
}
printf '%-6s %-5s %-6s %-14s %s\n' kernel class ranks outcome "simpi's summary"
for class in $classes; do
  for k in CG EP MG FT LU BT SP IS; do
    lk=$(echo "$k" | tr 'A-Z' 'a-z')
    if ! make_one "$k" "$class"; then
      printf '%-6s %-5s %-6s %-14s %s\n' "$k" "$class" "$np" "build failed" "see $work/build-$k-$class.log"
      continue
    fi
    log="$work/run-$lk-$class.log"
    "$bin/simpi" run -np "$np" ${SIMPI_RUN_OPTS:-} "bin/$lk.$class.x" >"$log" 2>&1 || true
    printf '%-6s %-5s %-6s %-14s %s\n' "$k" "$class" "$np" "$(verdict "$log")" "$(tail -1 "$log")"
  done
done
if make_one DT S; then
  for g in BH WH SH; do
    log="$work/run-dt-$g.log"
    "$bin/simpi" run -np 12 ${SIMPI_RUN_OPTS:-} bin/dt.S.x "$g" >"$log" 2>&1 || true
    printf '%-6s %-5s %-6s %-14s %s\n' "DT-$g" S 12 "$(verdict "$log")" "$(tail -1 "$log")"
  done
fi
