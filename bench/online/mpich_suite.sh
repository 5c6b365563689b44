#!/usr/bin/env bash
# Runs the MPICH test suite (test/mpi of pmodels/mpich) against simpi: C tests only,
# built with simpicc, run by the suite's own `runtests` with bench/online/mpich_mpiexec.sh
# (`simpi run`) as mpiexec. Not part of the tests.
#
#   bench/online/mpich_suite.sh MPICH_TEST_DIR OUT_DIR [SIMPI_BUILD_DIR]
#
# MPICH_TEST_DIR is test/mpi of an MPICH checkout. It can also be an extracted copy that
# holds confdb/ and version.m4 (autogen.sh otherwise takes them from ../../confdb and
# ../../maint), e.g. from a clone or a bare mirror of pmodels/mpich:
#   git --git-dir=MIRROR archive v4.2.3 test/mpi confdb maint/version.m4 | tar -x -C DIR
# and then MPICH_TEST_DIR=DIR/test/mpi. autogen.sh runs if there is no configure
# (autoconf, automake, libtool, python3). SIMPI_BUILD_DIR holds simpi,
# simpicc and libsimpi_mpi.so; the default is this repository's target/release. The
# suite is configured out of tree in OUT_DIR/build. It is configured again only when
# the configure line changes.
#
# Per folder: `make -k` builds every test (a test that does not compile or link counts
# as a failure), then runtests runs the testlist and testlist.dtp. It writes:
#   OUT_DIR/summary.txt   per folder: entries, passed, failed to build, failed to run,
#                         timed out, skipped (the suite's strict=false and xfail entries)
#   OUT_DIR/results.tsv   folder, test, np, outcome, first line of the failure
#   OUT_DIR/reasons.txt   missing identifiers and functions, runtime messages, by count
#   OUT_DIR/tap/, logs/   runtests' TAP output and the build logs
#
# With MPICH_SUITE_DIAG=1, a second pass in OUT_DIR/diag answers "what is missing
# beyond the first blocker". It is a diagnosis, not a result:
#  - mpich_compat.h supplies the few constants that the suite's support code (util/
#    and dtpools/) needs but simpi's mpi.h lacks, so that the support code compiles;
#  - the link errors of its `make -k` are the MPI functions each test needs that
#    libsimpi_mpi.so lacks (reasons.txt);
#  - those functions are then stubbed in a library whose functions print
#    "simpi-mpich-stub: MPI_X is not in libsimpi_mpi.so" and exit, and the tests run.
#    A test thus runs until the first function it calls that simpi lacks.
#
# Environment: MPICH_FOLDERS (default: pt2pt coll comm datatype group attr topo init
# info errhan rma), MPITEST_TIMEOUT (seconds per test, default 60; the testlist's
# timeLimit overrides it), MPICH_SUITE_FOLDER_LIMIT (seconds per folder for runtests,
# default 1200; runtests stops there through its stop file and the folder is
# reported partial), MPICH_SUITE_JOBS (make -j, default 1), SIMPI_MPIEXEC_OPTS (extra
# `simpi run` options, default --compute none).
set -euo pipefail
usage="usage: mpich_suite.sh MPICH_TEST_DIR OUT_DIR [SIMPI_BUILD_DIR]"
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "$usage" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$(cd "$1" && pwd) || { echo "mpich_suite.sh: no directory $1" >&2; exit 1; }
mkdir -p "$2"
out=$(cd "$2" && pwd)
bin=$(cd "${3:-$root/target/release}" && pwd) || { echo "mpich_suite.sh: no directory ${3:-}" >&2; exit 1; }
for f in simpi simpicc libsimpi_mpi.so; do
  [ -e "$bin/$f" ] || { echo "mpich_suite.sh: $bin/$f is missing (cargo build --release)" >&2; exit 1; }
done
folders=${MPICH_FOLDERS:-pt2pt coll comm datatype group attr topo init info errhan rma}
jobs=${MPICH_SUITE_JOBS:-1}
folder_limit=${MPICH_SUITE_FOLDER_LIMIT:-1200}
export MPITEST_TIMEOUT=${MPITEST_TIMEOUT:-60}
export SIMPI=$bin/simpi
export USER=${USER:-$(id -un)}  # runtests looks for leftover processes with ps -U $USER
export LC_ALL=C  # plain quotes in compiler messages
mpiexec=$here/mpich_mpiexec.sh

if [ ! -x "$src/configure" ]; then
  echo "== autogen.sh in $src"
  (cd "$src" && ./autogen.sh) > "$out/autogen.log" 2>&1 ||
    { echo "mpich_suite.sh: autogen.sh failed, see $out/autogen.log" >&2; exit 3; }
fi

# Configures the suite in $1/build with extra configure arguments $2...
configure_suite() {
  local dir=$1; shift
  local args=(CC="$bin/simpicc" MPICC="$bin/simpicc" MPIEXEC="$mpiexec"
    --enable-fortran=no --disable-cxx --disable-romio --disable-spawn --disable-namepub
    --disable-threads --disable-threadcomm --disable-ft-tests --disable-checkpointing
    --disable-part --disable-collalgo-tests --enable-strictmpi "$@")
  mkdir -p "$dir/build" "$dir/logs"
  if [ -f "$dir/build/config.status" ] && [ "$(cat "$dir/build/.configure-args" 2>/dev/null)" = "${args[*]}" ]; then
    return
  fi
  echo "== configure in $dir/build"
  (cd "$dir/build" && "$src/configure" "${args[@]}") > "$dir/logs/configure.log" 2>&1 ||
    { echo "mpich_suite.sh: configure failed, see $dir/logs/configure.log" >&2; exit 3; }
  echo "${args[*]}" > "$dir/build/.configure-args"
}

# Builds every test of the folders in $1/build (make -k: failures are counted later).
build_tests() {
  local dir=$1 d
  for d in $folders; do
    echo "== make -k in $d"
    nice -n 5 make -k -j"$jobs" V=1 -C "$dir/build/$d" > "$dir/logs/make-$d.log" 2>&1 || true
  done
}

# Runs runtests on each folder of $1/build, one TAP file per folder.
run_tests() {
  local dir=$1 d opts
  opts=$(sed -n 's/^RUNTESTS_OPTS = *//p' "$dir/build/Makefile")
  # testlist.collalgo and testlist.cvar choose MPICH's own algorithms: left out.
  local lists=testlist,testlist.dtp
  mkdir -p "$dir/tap"
  for d in $folders; do
    echo "== runtests in $d ($(date +%T))"
    local stop=$dir/tap/$d.stop
    rm -f "$stop"
    # The suite's own stop file ends runtests once the folder has had its time.
    (
      trap 'kill $sleeper 2> /dev/null; exit 0' TERM
      sleep "$folder_limit" &
      sleeper=$!
      wait $sleeper && echo "folder time limit $folder_limit s" > "$stop"
    ) &
    local watchdog=$!
    local started=$SECONDS
    # shellcheck disable=SC2086  # RUNTESTS_OPTS holds separate options
    (cd "$dir/build/$d" && MPITEST_STOPTEST=$stop nice -n 5 perl "$src/runtests" \
      -srcdir="$src/$d" -tests="$lists" -mpiexec="$mpiexec" $opts \
      -tapfile="$dir/tap/$d.tap" -junitfile="$dir/tap/$d.junit.xml") \
      > "$dir/logs/runtests-$d.log" 2>&1 || true
    kill "$watchdog" 2> /dev/null || true
    wait "$watchdog" 2> /dev/null || true
    echo "$((SECONDS - started))" > "$dir/tap/$d.seconds"
  done
}

# Writes summary.txt, results.tsv and reasons.txt of the pass in $1.
report() {
  python3 "$here/mpich_report.py" --src "$src" --pass-dir "$1" --folders "$folders" \
    --lib "$bin/libsimpi_mpi.so"
}

configure_suite "$out"
build_tests "$out"
run_tests "$out"
report "$out"

if [ "${MPICH_SUITE_DIAG:-0}" = 1 ]; then
  diag=$out/diag
  stubs=$diag/stubs
  mkdir -p "$stubs"
  # An empty stub library first, so that configure can link and every link shows what
  # the library lacks now (a stub left from an earlier run could hide a function that
  # the library has since gained).
  echo 'int simpi_mpich_stubs_none;' | cc -shared -fPIC -x c - -o "$stubs/libsimpi_mpich_stubs.so"
  configure_suite "$diag" CPPFLAGS="-include $here/mpich_compat.h" \
    LIBS="-L$stubs -Wl,-rpath,$stubs -lsimpi_mpich_stubs"
  for d in $folders; do make -s -C "$diag/build/$d" clean-noinstPROGRAMS > /dev/null 2>&1 || true; done
  rm -f "$diag"/logs/make-*.first.log
  build_tests "$diag"
  # Every MPI function some link lacks, less what the library has: the stubs.
  cat "$diag"/logs/make-*.log | grep -o "undefined reference to \`P\?MPIX\?_[A-Za-z0-9_]*'" |
    sed "s/.*\`//; s/'//" | sort -u > "$stubs/missing.txt" || true
  nm -D --defined-only "$bin/libsimpi_mpi.so" | awk '{print $3}' | sort -u > "$stubs/exported.txt"
  comm -23 "$stubs/missing.txt" "$stubs/exported.txt" > "$stubs/stubbed.txt"
  if [ -s "$stubs/stubbed.txt" ]; then
    echo "== $(wc -l < "$stubs/stubbed.txt") stubs, make -k again"
    {
      echo '#include <stdio.h>'
      echo '#include <unistd.h>'
      echo 'static int missing(const char *f) { fprintf(stderr, "simpi-mpich-stub: %s is not in libsimpi_mpi.so\n", f); fflush(stderr); _exit(1); }'
      while read -r f; do echo "int $f(void) { return missing(\"$f\"); }"; done < "$stubs/stubbed.txt"
    } > "$stubs/stubs.c"
    cc -shared -fPIC -o "$stubs/libsimpi_mpich_stubs.so" "$stubs/stubs.c"
    # The first build's logs keep the link errors; the relink gets its own.
    for d in $folders; do mv "$diag/logs/make-$d.log" "$diag/logs/make-$d.first.log"; done
    build_tests "$diag"
  fi
  run_tests "$diag"
  report "$diag"
fi
echo "== done: $out/summary.txt"
