#!/bin/bash
# Records the real liballprof traces of tests/golden/allprof/: builds liballprof (version 1,
# LogGOPSim's src/liballprof) with Open MPI's mpicc -O2 and runs an OSU collective
# benchmark on 4 ranks ONCE under both tracers: `simpi trace --chain libmpipclog.so`
# preloads simpi's tracer then liballprof, and simpi's wrappers forward each call to
# liballprof's, so the TIT and the liballprof trace record the same run.
#
#   bench/allprof/record.sh LOGGOPSIM_SRC OSU_DIR [OUT]
#
# LOGGOPSIM_SRC: LogGOPSim's sources (src/liballprof/, build/fc_mangle.h);
# OSU_DIR: OSU micro-benchmarks 5.x (mpi/collective/osu_alltoall.c, osu_coll.c).
#
# Building liballprof 1 against Open MPI 4.1 needs three fixes, made on a copy:
# * its wrappers are generated from its own MPI-2 era header without `const`, which
#   conflicts with Open MPI's declarations: those are renamed away while mpi.h is read
#   (hide_decls.h), and MPI-1 functions it calls (PMPI_Type_extent...) declared
#   (OMPI_OMIT_MPI1_COMPAT_DECLS=0; libmpi still exports them);
# * two declarations in mpi_header.h that gencode.py misreads (`void * buf`, a space
#   before `(`);
# * allprof.h's VERSION is printed with %s but defined as an integer (a crash in
#   MPI_Init).
set -euo pipefail
src=$(realpath "$1"); osu=$(realpath "$2"); out=${3:-bench-out/allprof}
mkdir -p "$out/lib" "$out/bin"
lib=$(realpath "$out/lib")
cp "$src"/src/liballprof/* "$lib/"
cp "$src"/build/fc_mangle.h "$lib/"
cd "$lib"
sed -i 's/void \* buf/void *buf/; s/MPI_Unpack_external (/MPI_Unpack_external(/' mpi_header.h
sed -i 's/#define VERSION 1/#define VERSION "1"/' allprof.h
python3 gencode.py c > lap1_c.c
grep -o '^int MPI_[A-Za-z_0-9]*(' lap1_c.c | sed 's/^int //; s/($//' | sort -u > names.txt
{
  echo "#define OMPI_OMIT_MPI1_COMPAT_DECLS 0"
  while read -r n; do echo "#define $n ${n}__ompi_decl"; done < names.txt
  echo "#include <mpi.h>"
  while read -r n; do echo "#undef $n"; done < names.txt
} > hide_decls.h
mpicc -O2 -fPIC -shared -include hide_decls.h -o libmpipclog.so lap1_c.c sync.c -lpthread
cd - > /dev/null

bin=$(realpath "$out/bin")
coll=$osu/mpi/collective
here=$(dirname "$(realpath "$0")")
simpi=${SIMPI:-$here/../../target/release/simpi}
# Blocked ranks yield the CPU (mpi_yield_when_idle): with more ranks than cores, a rank
# preempted between two calls would show the wait as computation.
export OMPI_MCA_mpi_yield_when_idle=1
for b in alltoall allreduce; do
  m=16384:16384; [ "$b" = allreduce ] && m=65536:65536
  mpicc -O2 -w -o "$bin/osu_$b" "$coll/osu_$b.c" "$coll/osu_coll.c" -lm
  rec=$(realpath "$out")/osu_$b
  rm -rf "$rec"; mkdir -p "$rec/lap"
  HTOR_PMPI_FILE_PREFIX=$rec/lap/pmpi-trace-rank- "$simpi" trace --chain "$lib/libmpipclog.so" \
    -o "$rec/tit" -- mpirun --allow-run-as-root --oversubscribe \
    -np 4 -x HTOR_PMPI_FILE_PREFIX "$bin/osu_$b" -m "$m" -i 20 -x 2
done
echo "traces in $out/osu_*/{lap,tit}"
