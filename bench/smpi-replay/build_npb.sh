#!/usr/bin/env bash
# Builds one NPB 3.4-MPI benchmark with SimGrid's compiler wrappers, for run.sh and
# scale.sh: IS with smpicc; the Fortran ones (CG, MG, EP, LU, FT, BT, SP) with smpiff,
# with RAND=randdp (current gfortran rejects randi8's X'..' constants) and argument
# mismatches allowed (MPI buffers of any type).
#
# Usage: bench/smpi-replay/build_npb.sh NPB_DIR WORK_DIR KERNEL CLASS DEST
#   NPB_DIR: NPB3.4-MPI sources; WORK_DIR: where they are copied (once) and built;
#   KERNEL: is, cg, mg, ep, lu, ft, bt or sp; DEST: where the binary is copied.
set -euo pipefail
npb=$(realpath "$1"); work=$2; kernel=$3; cls=$4; dest=$5
[ -d "$work" ] || { cp -r "$npb" "$work"; }
mkdir -p "$work/bin"
[ -f "$work/config/make.def" ] || cp "$work/config/make.def.template" "$work/config/make.def"
if [ "$kernel" = is ]; then
  make -s -C "$work" IS CLASS="$cls" MPICC=smpicc CLINK=smpicc >/dev/null
  # The objects hold the class: the next class rebuilds them.
  rm -f "$work"/IS/*.o
else
  make -s -C "$work" "${kernel^^}" CLASS="$cls" MPIFC=smpiff FLINK=smpiff RAND=randdp \
    FFLAGS="-O2 -fallow-argument-mismatch" >/dev/null
fi
cp "$work/bin/$kernel.$cls.x" "$dest"
