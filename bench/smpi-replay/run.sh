#!/usr/bin/env bash
# simpi's replay of SimGrid time-independent traces against SimGrid's own replay.
#
# Records TIT traces of real programs under SimGrid 3.32 (`smpirun -trace-ti`): the OSU
# micro-benchmarks and NPB (IS, built with smpicc; CG, MG, EP, LU, FT, BT and SP, built
# with smpiff). Replays every trace with SimGrid
# (`smpirun -replay`) and with simpi (`--model hybrid --preset smpi`), the same collective
# algorithms forced on both sides, and prints per case: the two simulated times, their
# relative difference, the wall-clock time of each replay and the speed-up.
#
# Usage: bench/smpi-replay/run.sh OSU_DIR NPB_DIR [OUT_DIR] [CASE...]
#   OSU_DIR: OSU micro-benchmarks 5.x sources (mpi/collective/osu_allreduce.c, ...)
#   NPB_DIR: NPB3.4-MPI sources (IS/is.c, CG/, ..., config/, sys/)
#   OUT_DIR: default bench-out/smpi-replay
# With GOLDEN=DIR, the cases named "small-*" are stored in DIR/<case>/ (trace files,
# platform, hostfile, algorithms and SimGrid's time) for the test suite.
set -euo pipefail
osu=$(realpath "$1"); npb=$(realpath "$2"); out=${3:-bench-out/smpi-replay}
shift $(( $# < 3 ? $# : 3 ))
only=("$@")
here=$(cd "$(dirname "$0")/../.." && pwd)
simpi="$here/target/release/simpi"
plat="$here/bench/smpi/platforms/flat.xml"
mkdir -p "$out/bin"; out=$(realpath "$out")
(cd "$here" && cargo build --release -q -p simpi-cli)
echo "SimGrid: $(smpirun -version 2>&1 | head -n1)" >&2

# --- Programs, built with smpicc -------------------------------------------------------
coll=$osu/mpi/collective
for p in osu_allreduce osu_bcast osu_alltoall osu_allgather osu_reduce osu_barrier; do
  [ -x "$out/bin/$p" ] || smpicc -O2 -w -I"$coll" -o "$out/bin/$p" "$coll/$p.c" "$coll/osu_coll.c" -lm
done
p2p=$osu/mpi/pt2pt
[ -x "$out/bin/osu_latency" ] || smpicc -O2 -w -I"$p2p" -o "$out/bin/osu_latency" "$p2p/osu_latency.c" "$p2p/osu_pt2pt.c" -lm
# NPB: IS with smpicc, the Fortran kernels with smpiff (build_npb.sh).
for k in is.S is.W cg.S mg.S ep.S lu.S ft.S bt.S sp.S cg.W mg.W lu.W ft.W; do
  [ -x "$out/bin/$k.x" ] || "$here/bench/smpi-replay/build_npb.sh" "$npb" "$out/npb" "${k%.*}" "${k#*.}" "$out/bin/$k.x"
done

# --- Cases -----------------------------------------------------------------------------
# name ranks "simpi_op=algo:simgrid_algo ..." program args...
# Every case forces the algorithm of each collective its program calls.
base="barrier=bruck:ompi_bruck reduce=binomial:binomial bcast=binomial:binomial_tree allreduce=rdb:rdb"
cases=(
  "small-osu_allreduce 8|$base|osu_allreduce -m 65536 -i 5 -x 1"
  "small-osu_bcast 8|$base|osu_bcast -m 65536 -i 5 -x 1"
  "small-osu_alltoall 8|$base alltoall=pairwise:pair|osu_alltoall -m 16384 -i 5 -x 1"
  "small-osu_latency 2|$base|osu_latency -i 20 -x 2"
  "small-npb_is_S 8|$base alltoall=pairwise:pair alltoallv=pairwise:pair|is.S.x"
  "small-osu_bcast-pipeline 8|${base/bcast=binomial:binomial_tree/bcast=pipeline:ompi_pipeline}|osu_bcast -m 262144 -i 5 -x 1"
  "small-osu_bcast-scatter_rdb 8|${base/bcast=binomial:binomial_tree/bcast=scatter_rdb_allgather:scatter_rdb_allgather}|osu_bcast -m 65536 -i 5 -x 1"
  "small-osu_reduce-in_order_binary 8|${base/reduce=binomial:binomial/reduce=in_order_binary:ompi_in_order_binary}|osu_reduce -m 65536 -i 5 -x 1"
  "small-osu_allgather-bruck 8|$base allgather=bruck:bruck|osu_allgather -m 16384 -i 5 -x 1"
  "small-osu_allreduce-ring_seg 8|${base/allreduce=rdb:rdb/allreduce=segmented_ring:ompi_ring_segmented}|osu_allreduce -m 4194304 -i 2 -x 1"
  "small-osu_allreduce-lr 8|${base/allreduce=rdb:rdb/allreduce=lr:lr}|osu_allreduce -m 65536 -i 5 -x 1"
  "small-osu_allreduce-rab 8|${base/allreduce=rdb:rdb/allreduce=rabenseifner:rab_rdb}|osu_allreduce -m 65536 -i 5 -x 1"
  "osu_allreduce-rab 16|${base/allreduce=rdb:rdb/allreduce=rabenseifner:rab_rdb}|osu_allreduce -m 1048576 -i 20 -x 2"
  "osu_allreduce-ring_seg 16|${base/allreduce=rdb:rdb/allreduce=segmented_ring:ompi_ring_segmented}|osu_allreduce -m 4194304 -i 10 -x 2"
  "osu_bcast-scatter_rdb 16|${base/bcast=binomial:binomial_tree/bcast=scatter_rdb_allgather:scatter_rdb_allgather}|osu_bcast -m 1048576 -i 20 -x 2"
  "osu_bcast-pipeline 16|${base/bcast=binomial:binomial_tree/bcast=pipeline:ompi_pipeline}|osu_bcast -m 1048576 -i 20 -x 2"
  "osu_reduce-in_order_binary 16|${base/reduce=binomial:binomial/reduce=in_order_binary:ompi_in_order_binary}|osu_reduce -m 1048576 -i 20 -x 2"
  "osu_allgather-bruck 16|$base allgather=bruck:bruck|osu_allgather -m 262144 -i 20 -x 2"
  "osu_alltoall-bruck 16|$base alltoall=bruck:bruck|osu_alltoall -m 65536 -i 20 -x 2"
  "osu_barrier-doublering 16|${base/barrier=bruck:ompi_bruck/barrier=double_ring:ompi_doublering}|osu_barrier -i 200 -x 10"
  "npb_is_W 16|$base alltoall=pairwise:pair alltoallv=pairwise:pair|is.W.x"
  "small-npb_mg_S 8|$base|mg.S.x"
  "small-npb_ep_S 8|$base|ep.S.x"
  "small-npb_lu_S 8|$base|lu.S.x"
  "small-npb_ft_S 8|$base alltoall=pairwise:pair|ft.S.x"
  "npb_cg_S 8|$base|cg.S.x"
  "npb_bt_S 9|$base|bt.S.x"
  "npb_sp_S 9|$base|sp.S.x"
  "npb_cg_W 16|$base|cg.W.x"
  "npb_mg_W 16|$base|mg.W.x"
  "npb_lu_W 16|$base|lu.W.x"
  "npb_ft_W 16|$base alltoall=pairwise:pair|ft.W.x"
)

now() { date +%s.%N; }
printf "%-28s %5s %14s %14s %10s %10s %10s %8s\n" case ranks simgrid_s simpi_s rel_diff sg_wall_s simpi_wall_s speedup | tee "$out/table.txt"
for c in "${cases[@]}"; do
  IFS='|' read -r head algos cmd <<<"$c"
  read -r name ranks <<<"$head"
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
  d="$out/cases/$name"; rm -rf "$d"; mkdir -p "$d"
  seq 0 $((ranks - 1)) | sed 's/^/node-/' >"$d/hostfile"
  sgcfg=(); simcoll=()
  for a in $algos; do
    op=${a%%=*}; rest=${a#*=}
    simcoll+=(--coll "$op=${rest%%:*}"); sgcfg+=("--cfg=smpi/$op:${rest#*:}")
  done
  read -r prog args <<<"$cmd"
  # Record: OSU has no computation worth keeping; NPB keeps its measured CPU bursts.
  sim_comp=no; [[ $prog == *.x ]] && sim_comp=yes
  if ! (cd "$d" && smpirun -trace-ti --cfg=tracing/filename:trace.txt --cfg=smpi/simulate-computation:$sim_comp \
     "${sgcfg[@]}" -np "$ranks" -platform "$plat" -hostfile hostfile "$out/bin/$prog" $args \
     >record.log 2>&1); then
    echo "$name: recording failed, see $d/record.log" | tee -a "$out/table.txt"; continue
  fi
  t0=$(now)
  if ! (cd "$d" && smpirun -np "$ranks" -platform "$plat" -hostfile hostfile -replay trace.txt "${sgcfg[@]}" \
     >replay.log 2>&1); then
    echo "$name: SimGrid's replay failed, see $d/replay.log" | tee -a "$out/table.txt"; continue
  fi
  t1=$(now)
  sg=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' "$d/replay.log" | tail -n1)
  t2=$(now)
  if ! (cd "$d" && "$simpi" replay trace.txt --model hybrid --preset smpi --platform "$plat" --hostfile hostfile \
     "${simcoll[@]}" --json >simpi.json 2>simpi.err); then
    echo "$name: simpi's replay failed, see $d/simpi.err" | tee -a "$out/table.txt"; continue
  fi
  t3=$(now)
  echo "$algos" >"$d/algorithms.txt"
  echo "$sg" >"$d/simgrid_time.txt"
  python3 - "$name" "$ranks" "$sg" "$d/simpi.json" "$t0" "$t1" "$t2" "$t3" <<'PY' | tee -a "$out/table.txt"
import json, sys
name, ranks, sg, js = sys.argv[1:5]
t0, t1, t2, t3 = map(float, sys.argv[5:9])
sim = json.load(open(js))["makespan_ps"] / 1e12
sg = float(sg)
print(f"{name:28s} {ranks:>5s} {sg:14.9f} {sim:14.9f} {(sim - sg) / sg:10.2e} {t1 - t0:10.3f} {t3 - t2:10.3f} {(t1 - t0) / (t3 - t2):8.1f}")
PY
  if [ -n "${GOLDEN:-}" ] && [[ $name == small-* ]]; then
    g="$GOLDEN/${name#small-}"; rm -rf "$g"; mkdir -p "$g"
    cp -r "$d/trace.txt" "$d/trace.txt_files" "$d/hostfile" "$d/algorithms.txt" "$g/"
    cp "$plat" "$g/platform.xml"
    echo "$sg" >"$g/expected.txt"
  fi
done
