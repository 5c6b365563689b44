#!/bin/sh
# Independent call counter for one MPI rank: ltrace counts the program's calls into MPI_*
# functions through its PLT. Usage (under mpirun): ltrace-count.sh OUTDIR ./app args...
# Writes OUTDIR/ltrace.<rank>; the rank comes from Open MPI's or MPICH's environment.
set -eu
out=$1
shift
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${PMIX_RANK:-0}}}
mkdir -p "$out"
exec ltrace -c -e 'MPI_*' -o "$out/ltrace.$rank" "$@"
