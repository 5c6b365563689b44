#!/usr/bin/env bash
# The LogGOPSim + InfiniBand thesis's verification runs (section 4.7): dissemination
# among 8 hosts, 180-byte messages, LogGOPS alone and with the packet model's `ib`
# preset on one switch (H8_S1) and on the 6-switch fat tree (H8_S6), with the thesis's
# two parameter sets. Prints each run's earliest and latest end (ps) beside the
# thesis's. Needs a release build (cargo build --release); LogGOPSim is optional
# (LOGGOPSIM=path/to/LogGOPSim, built with -O3, and its txt2bin beside it).
set -euo pipefail
cd "$(dirname "$0")/../.."
simpi=target/release/simpi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Round k: every rank sends to rank + 2^k and waits for rank - 2^k before going on.
awk 'BEGIN { n = 8; print "num_ranks " n
  for (r = 0; r < n; r++) { print "rank " r " {"
    for (k = 0; 2^k < n; k++) { d = 2^k
      print "s" k ": send 180b to " (r + d) % n " tag " k
      print "r" k ": recv 180b from " (r - d + n) % n " tag " k
      if (k > 0) { print "s" k " requires r" k - 1; print "r" k " requires r" k - 1 } }
    print "}" } }' > "$out/dissemination.goal"

span() { awk '{print $3}' | sort -n | sed -n '1p;$p' | paste -sd' ' | awk '{print $1 " - " $2}'; }
zero="-o 0 -g 0 -G 0 -O 0"
set1="-o 50000 -g 100000 -G 6000 -O 0"
printf '%-26s %-24s %-24s\n' "run" "o=g=G=L=0" "o=50000 g=100000 G=6000"
printf '%-26s %-24s %-24s\n' "LogGOPS alone (simpi)" \
  "$($simpi replay "$out/dissemination.goal" --time-unit ps -L 0 $zero --format loggopsim | span)" \
  "$($simpi replay "$out/dissemination.goal" --time-unit ps -L 0 $set1 --format loggopsim | span)"
if [ -n "${LOGGOPSIM:-}" ]; then
  (cd "$out" && "$(dirname "$LOGGOPSIM")/txt2bin" -i dissemination.goal -o dissemination.bin > /dev/null)
  printf '%-26s %-24s %-24s\n' "LogGOPS alone (LogGOPSim)" \
    "$("$LOGGOPSIM" -f "$out/dissemination.bin" -L 0 $zero | grep '^Host' | span)" \
    "$("$LOGGOPSIM" -f "$out/dissemination.bin" -L 0 $set1 | grep '^Host' | span)"
fi
for p in h8_s1 h8_s6; do
  run() { $simpi replay "$out/dissemination.goal" --time-unit ps --model packet --platform "bench/packet/$p.toml" \
    --packet-preset ib --protocol loggops "$@" --format loggopsim | span; }
  printf '%-26s %-24s %-24s\n' "packet ib, $p" "$(run $zero)" "$(run $set1)"
done
echo "thesis: LogGOPSim 0 and 3522000; H8_S1 723100 and 4293200;"
echo "        H8_S6 1105600 - 1261850 and 4667100 - 4860850"
