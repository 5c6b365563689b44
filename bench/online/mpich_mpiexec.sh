#!/usr/bin/env bash
# The mpiexec that the MPICH test suite's `runtests` calls when it runs under
# bench/online/mpich_suite.sh. runtests runs `MPIEXEC -n NP ./program args`. This script
# runs `simpi run -n NP $SIMPI_MPIEXEC_OPTS ./program args` (SIMPI_MPIEXEC_OPTS defaults
# to `--compute none`) under `timeout`. The limit is MPIEXEC_TIMEOUT, which runtests sets
# for each test from the testlist's timeLimit or MPITEST_TIMEOUT; the default is 60 s.
# When the limit is reached, it prints `simpi-mpiexec: timed out after N s` and exits
# with 124.
#
# simpi's one-line summary ("simpi run: N ranks, simulated time ...") is dropped.
# runtests counts any line other than "No Errors" as a failure. simpi's error messages
# are kept.
#
#   SIMPI=target/release/simpi bench/online/mpich_mpiexec.sh -n 4 ./program args
set -uo pipefail
simpi=${SIMPI:-$(cd "$(dirname "$0")/../.." && pwd)/target/release/simpi}
np=""
while [ $# -gt 0 ]; do
  case $1 in
    -n | -np) np=${2:-}; shift 2 || break ;;
    --) shift; break ;;
    -*) echo "simpi-mpiexec: unknown mpiexec option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [ -z "$np" ] || [ $# -eq 0 ]; then
  echo "usage: mpich_mpiexec.sh -n NP PROGRAM [ARGS...]" >&2
  exit 2
fi
limit=${MPIEXEC_TIMEOUT:-60}
# Word splitting of the options is intended: they are simpi run flags.
# shellcheck disable=SC2086
timeout -k 5 "$limit" "$simpi" run -n "$np" ${SIMPI_MPIEXEC_OPTS:---compute none} "$@" 2>&1 |
  grep --line-buffered -v '^simpi run: [0-9]* ranks, simulated time '
rc=${PIPESTATUS[0]}
# timeout gives 124 when it sent its signal, 137 when it had to kill.
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "simpi-mpiexec: timed out after $limit s"
  exit 124
fi
exit "$rc"
