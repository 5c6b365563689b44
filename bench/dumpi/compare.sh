#!/usr/bin/env bash
# Replays each pair recorded by record.sh under LogGOPS and under the hybrid model on
# a platform, and prints the two makespans (microseconds) and their relative difference.
# Usage: bench/dumpi/compare.sh OUT PLATFORM [NAME]
# NAME: the DUMPI files' prefix (default jacobi; record_chain.sh uses the program's name).
set -euo pipefail
out=$1 platform=$2 name=${3:-jacobi}
here=$(cd "$(dirname "$0")" && pwd)
simpi=${SIMPI:-$here/../../target/release/simpi}
# The makespan in microseconds, from the JSON report.
span() {
    "$simpi" replay "$@" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_ps"] / 1e6)'
}
printf '%-4s %-8s %12s %12s %8s\n' pair model 'dumpi (us)' 'tit (us)' 'diff %'
for d in "$out"/*/; do
    i=$(basename "$d")
    for m in loggops hybrid; do
        extra=()
        [ "$m" = hybrid ] && extra=(--platform "$platform")
        a=$(span "$d/dumpi/$name.meta" --model "$m" "${extra[@]}")
        b=$(span "$d/tit/index.txt" --model "$m" "${extra[@]}")
        printf '%-4s %-8s %12.1f %12.1f %8.2f\n' "$i" "$m" "$a" "$b" "$(echo "($a - $b) * 100 / $b" | bc -l)"
    done
done
