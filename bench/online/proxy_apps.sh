#!/usr/bin/env bash
# Builds three proxy applications with simpi's compiler wrappers, sources unmodified
# (only Makefile variables set on make's command line), runs them under `simpi run`,
# and prints each run's own verification value with simpi's summary line.
#   bench/online/proxy_apps.sh SRC_DIR
# SIMPI_RUN_OPTS adds options to every `simpi run` (e.g. --in-process).
# SRC_DIR holds lulesh/ (LLNL/LULESH 2.0), hpccg/ (Mantevo/HPCCG) and minife/
# (Mantevo/miniFE; its MPI reference version ref/ is built). They are copied, not changed.
# Sizes: LULESH -s 8 -i 20 on 1 and 8 ranks, HPCCG 20 20 20 and miniFE
# -nx 20 -ny 20 -nz 20 on 2 and 4 ranks. When mpicxx and mpirun are found, the same
# sources are built and run with that MPI too, for comparison.
# LULESH is built without OpenMP: its OpenMP build asks MPI_Init_thread for
# MPI_THREAD_FUNNELED and stops when given MPI_THREAD_SINGLE, which simpi provides.
# Sums over 3 or more ranks may differ from another MPI's in the last digits: simpi
# adds the contributions in rank order, Open MPI's algorithms in their own orders.
set -euo pipefail
src=${1:?usage: bench/online/proxy_apps.sh SRC_DIR}
src=$(cd "$src" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/target/release
nice -n 5 cargo build --release -q -p simpi-cmpi -p simpi-cli --manifest-path "$root/Cargo.toml"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

backends=simpi
if command -v mpicxx >/dev/null && command -v mpirun >/dev/null; then
  backends="simpi mpi"
fi

# build APP BACKEND: copy APP's sources and make it with BACKEND's compilers.
build() {
  local app=$1 be=$2 cxx cc
  if [ "$be" = simpi ]; then cxx=$bin/simpicxx cc=$bin/simpicc; else cxx=mpicxx cc=mpicc; fi
  mkdir -p "$work/$be"
  case $app in
    lulesh)
      cp -r "$src/lulesh" "$work/$be/lulesh"
      (cd "$work/$be/lulesh" && nice -n 5 make -j1 CXX="$cxx -DUSE_MPI=1" \
        CXXFLAGS="-g -O3 -I. -Wall" LDFLAGS="-g -O3")
      ;;
    hpccg)
      cp -r "$src/hpccg" "$work/$be/hpccg"
      (cd "$work/$be/hpccg" && nice -n 5 make -j1 CXX="$cxx" LINKER="$cxx" \
        USE_MPI=-DUSING_MPI CPP_OPT_FLAGS=-O3)
      ;;
    minife)
      mkdir -p "$work/$be/minife"
      cp -r "$src/minife/ref" "$work/$be/minife/ref"
      (cd "$work/$be/minife/ref/src" && nice -n 5 make -j1 CXX="$cxx" CC="$cc")
      ;;
  esac >"$work/build-$app-$be.log" 2>&1
}

# program APP BACKEND: the built executable and its arguments.
program() {
  case $1 in
    lulesh) echo "$work/$2/lulesh/lulesh2.0 -s 8 -i 20" ;;
    hpccg) echo "$work/$2/hpccg/test_HPCCG 20 20 20" ;;
    minife) echo "$work/$2/minife/ref/src/miniFE.x -nx 20 -ny 20 -nz 20" ;;
  esac
}

# verification APP DIR: the run's own check, read from its output or report.
verification() {
  local out=$2/out
  case $1 in
    lulesh)
      echo "energy=$(sed -n 's/.*Final Origin Energy *= *//p' "$out")" \
        "maxreldiff=$(sed -n 's/.*MaxRelDiff *= *//p' "$out")"
      ;;
    hpccg) echo "residual=$(sed -n 's/^Final residual: *//p' "$2"/hpccg-*.yaml 2>/dev/null)" ;;
    minife) echo "resid_norm=$(sed -n 's/^ *Final Resid Norm: *//p' "$2"/miniFE.*.yaml 2>/dev/null)" ;;
  esac
}

# run APP BACKEND NP: one run in its own directory (the apps write reports there).
run() {
  local app=$1 be=$2 np=$3 dir="$work/run-$1-$2-$3" t0 t1 status=0 summary
  mkdir -p "$dir"
  t0=$EPOCHREALTIME
  # shellcheck disable=SC2046 # the program and its arguments are words
  if [ "$be" = simpi ]; then
    (cd "$dir" && nice -n 5 "$bin/simpi" run -np "$np" ${SIMPI_RUN_OPTS:-} $(program "$app" "$be")) \
      >"$dir/out" 2>"$dir/err" || status=$?
    summary=$(grep '^simpi run:' "$dir/err" | tail -1 || true)
  else
    (cd "$dir" && nice -n 5 mpirun --allow-run-as-root --oversubscribe -np "$np" \
      $(program "$app" "$be")) >"$dir/out" 2>"$dir/err" || status=$?
    summary="$(command -v mpirun)"
  fi
  t1=$EPOCHREALTIME
  [ "$status" = 0 ] || summary="exit status $status: $(tail -1 "$dir/err")"
  printf '%-7s %-3s %-6s %6.2f  %-48s %s\n' "$app" "$np" "$be" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$(verification "$app" "$dir")" "$summary"
}

printf '%-7s %-3s %-6s %6s  %-48s %s\n' app np mpi wall/s "own verification" summary
for app in lulesh hpccg minife; do
  case $app in lulesh) sizes="1 8" ;; *) sizes="2 4" ;; esac
  built=
  for be in $backends; do
    if build "$app" "$be"; then
      built="$built $be"
    else
      echo "$app: build with $be failed:"
      tail -5 "$work/build-$app-$be.log"
    fi
  done
  for np in $sizes; do
    for be in $built; do run "$app" "$be" "$np"; done
  done
done
