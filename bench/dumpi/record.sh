#!/usr/bin/env bash
# Records bench/dumpi/jacobi.c with libdumpi and with `simpi trace`, alternately, so that
# the two recordings of each pair see the same machine state.
# Usage: bench/dumpi/record.sh OUT PAIRS RANKS [jacobi args...]
# PRIO (default `nice -n 0`) prefixes mpirun: `nice -n -15` or `chrt -f 10` keeps other work on
# a shared machine from preempting it (computation is timed by the wall clock).
# Needs DUMPI (libdumpi.so) under $DUMPI (default /tmp/dumpi/inst) and a built simpi.
set -euo pipefail
out=$1 pairs=$2 np=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
simpi=${SIMPI:-$here/../../target/release/simpi}
dumpi=${DUMPI:-/tmp/dumpi/inst}
mkdir -p "$out"
mpicc -O2 -o "$out/jacobi" "$here/jacobi.c"
run=(${PRIO:-nice -n 0} mpirun --allow-run-as-root -np "$np" --bind-to core)
for i in $(seq 1 "$pairs"); do
    mkdir -p "$out/$i/dumpi"
    (cd "$out/$i/dumpi" && "${run[@]}" -x LD_PRELOAD="$dumpi/lib/libdumpi.so" ../../jacobi "$@" >/dev/null)
    # libdumpi names files after the start time: give them a fixed prefix.
    for f in "$out/$i/dumpi"/dumpi-*; do
        mv "$f" "$out/$i/dumpi/jacobi${f##*/dumpi-????.??.??.??.??.??}"
    done
    sed -i 's/^fileprefix=.*/fileprefix=jacobi/' "$out/$i/dumpi/jacobi.meta"
    "$simpi" trace -o "$out/$i/tit" -- "${run[@]}" "$out/jacobi" "$@" >/dev/null
done
