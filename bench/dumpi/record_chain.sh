#!/usr/bin/env bash
# Records a program with libdumpi and `simpi trace` in ONE run: simpi's tracer chains to
# libdumpi (`simpi trace --chain`), so the DUMPI and TIT traces of each run see the same
# computation. Layout as record.sh's (OUT/<i>/{dumpi,tit}), for compare.sh.
# Usage: bench/dumpi/record_chain.sh OUT RUNS RANKS PROGRAM [args...]
# PROGRAM is an MPI binary, or `jacobi` for bench/dumpi/jacobi.c (built into OUT); its
# DUMPI files are named after its base name. PRIO and MPIRUN_OPTS prefix and extend mpirun.
# Needs DUMPI (libdumpi.so) under $DUMPI (default /tmp/dumpi/inst) and a built simpi.
set -euo pipefail
out=$1 runs=$2 np=$3 prog=$4
shift 4
here=$(cd "$(dirname "$0")" && pwd)
simpi=${SIMPI:-$here/../../target/release/simpi}
dumpi=${DUMPI:-/tmp/dumpi/inst}
mkdir -p "$out"
if [ "$prog" = jacobi ]; then
    mpicc -O2 -o "$out/jacobi" "$here/jacobi.c"
    prog=$out/jacobi
fi
prog=$(realpath "$prog")
name=$(basename "$prog")
run=(${PRIO:-nice -n 0} mpirun --allow-run-as-root -np "$np" ${MPIRUN_OPTS:---bind-to core})
for i in $(seq 1 "$runs"); do
    rm -rf "$out/$i"
    mkdir -p "$out/$i/dumpi"
    # libdumpi writes into the working directory.
    (cd "$out/$i/dumpi" && "$simpi" trace --chain "$dumpi/lib/libdumpi.so" -o ../tit -- \
        "${run[@]}" "$prog" "$@" >/dev/null)
    # libdumpi names files after the start time: give them a fixed prefix.
    for f in "$out/$i/dumpi"/dumpi-*; do
        mv "$f" "$out/$i/dumpi/$name${f##*/dumpi-????.??.??.??.??.??}"
    done
    sed -i "s/^fileprefix=.*/fileprefix=$name/" "$out/$i/dumpi/$name.meta"
done
