#!/usr/bin/env python3
"""Writes the `fuzz-*` golden cases of tests/golden/smpi-replay: small traces, each the
minimised form of a difference the differential fuzz (fuzz.py) found between simpi's and
SimGrid 3.32's replays, with SimGrid's replay time in expected.txt.

Usage: bench/smpi-replay/fuzz_golden.py [GOLDEN_DIR]   (needs smpirun)
"""
import os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FLAT = os.path.join(ROOT, "bench", "smpi", "platforms", "flat.xml")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "tests", "golden", "smpi-replay")
SKEW = [0, 3000000, 0, 5000000, 1000000, 0, 2500000, 4000000]
VCOUNTS = [61, 98, 135, 172, 209, 246]

# name: (ranks, algorithms as op=simpi:simgrid, lines of rank r)
CASES = {
    "fuzz-self-sendrecv": (2, [], lambda r: [f"sendRecv 2000 {r} 2000 {r} 1 1", "compute 1000"]),
    "fuzz-redbcast-selected": (4, ["allreduce=redbcast:redbcast", "reduce=pipeline:ompi_pipeline",
                                   "bcast=scatter_ring_allgather:scatter_LR_allgather"],
                               lambda r: ["allreduce 16000 1000000 1"]),
    "fuzz-lr-remainder": (4, ["allreduce=lr:lr", "reduce=pipeline:ompi_pipeline",
                              "bcast=scatter_rdb_allgather:scatter_rdb_allgather"],
                          lambda r: ["allreduce 1001 0 1"]),
    "fuzz-empty-reduce": (2, ["reduce=binomial:binomial"], lambda r: ["reduce 0 1000000 1 1"]),
    "fuzz-empty-bcast": (4, ["bcast=scatter_rdb_allgather:scatter_rdb_allgather"], lambda r: ["bcast 0 0 1"]),
    "fuzz-reduce-short-segment": (4, ["reduce=pipeline:ompi_pipeline"], lambda r: ["reduce 8193 0 0 1"]),
    "fuzz-allgather-shifted": (8, ["allgather=shifted:ring"],
                               lambda r: [f"compute {SKEW[r]}", "allgather 100 100 1 1"]),
    "fuzz-allgather-ntslr": (8, ["allgather=ring:NTSLR"],
                             lambda r: [f"compute {SKEW[r]}", "allgather 100 100 1 1"]),
    "fuzz-allgather-mpich-rdb-6": (6, ["allgather=mpich_rdb:rdb"],
                                   lambda r: [f"compute {SKEW[r]}", "allgather 5000 5000 1 1", "allgather 7 7 1 1"]),
    "fuzz-bcast-scatter-rdb-6": (6, ["bcast=scatter_rdb_allgather:scatter_rdb_allgather"],
                                 lambda r: [f"compute {SKEW[r]}", "bcast 100 4 1", "bcast 5000 0 1"]),
    "fuzz-reduce-scatter-gather-6": (6, ["reduce=scatter_gather:scatter_gather"],
                                     lambda r: ["reduce 1000 0 1 1", "reduce 40001 0 5 1"]),
    # Open MPI's binary tree (odd ranks under the root's first child), SimGrid's segment
    # rule (1 KiB, 8 KiB from 370728 bytes), halves of whole elements, receives one ahead.
    "fuzz-bcast-split-binary": (8, ["bcast=split_binary:ompi_split_bintree"],
                                lambda r: [f"compute {SKEW[r]}", "bcast 60001 3 0", "bcast 100001 0 1",
                                           "bcast 3000 6 1"]),
    # Fewer elements than ranks: SimGrid pads the vector to one element per rank and
    # sends the padding (one call: SimGrid fails on a second such call, and on sizes
    # that are not powers of two). 9 us shorter without the padding.
    "fuzz-reduce-scatter-gather-padded": (16, ["reduce=scatter_gather:scatter_gather"],
                                          lambda r: [f"compute {r}00000", "reduce 1 0 5 14"]),
    # Blocks of whole elements: 100 four-byte elements over 16 ranks are blocks of 24
    # bytes and a last of 40, not 25 bytes each.
    "fuzz-reduce-scatter-gather-elements": (16, ["reduce=scatter_gather:scatter_gather"],
                                            lambda r: ["reduce 100 0 5 1", "reduce 1001 0 12 1",
                                                       "reduce 2003 0 0 1"]),
    # SimGrid's first segment: 1 KiB of whole elements (32 KiB above 92160 bytes), the
    # rest in a second message; simpi sent blocks whole before.
    "fuzz-gather-linear-sync-segments": (6, ["gather=linear_sync:ompi_linear_sync"],
                                         lambda r: [f"compute {SKEW[r]}", "gather 3000 3000 0 2 2",
                                                    "gather 60000 60000 4 14 14", "gather 100 100 5 0 0"]),
    # MPICH's recursive doubling with the tree fix-up on 6 ranks and uneven blocks (simpi's
    # `rdb` runs Bruck there: 0.2 ms apart).
    "fuzz-allgatherv-mpich-rdb-6": (6, ["allgatherv=mpich_rdb:mpich_rdb"],
                                    lambda r: [f"compute {SKEW[r]}",
                                               f"allgatherv {VCOUNTS[r]} {' '.join(map(str, VCOUNTS))} 1 1"]),
}

for name, (n, algos, lines) in CASES.items():
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "trace.txt_files"))
    shutil.copy(FLAT, os.path.join(d, "platform.xml"))
    with open(os.path.join(d, "hostfile"), "w") as f:
        f.write("".join(f"node-{r}\n" for r in range(n)))
    with open(os.path.join(d, "trace.txt"), "w") as idx:
        for r in range(n):
            body = [f"{r} init"] + [f"{r} {l}" for l in lines(r)] + [f"{r} finalize"]
            with open(os.path.join(d, "trace.txt_files", f"rank-{r}.txt"), "w") as f:
                f.write("\n".join(body) + "\n")
            idx.write(f"trace.txt_files/rank-{r}.txt\n")
    with open(os.path.join(d, "algorithms.txt"), "w") as f:
        f.write(" ".join(algos) + "\n")
    cmd = ["smpirun", "-np", str(n), "-platform", "platform.xml", "-hostfile", "hostfile", "-replay", "trace.txt"]
    cmd += [f"--cfg=smpi/{a.split('=')[0]}:{a.split(':')[1]}" for a in algos]
    out = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
    t = [l.split("Simulation time")[1].strip() for l in (out.stdout + out.stderr).splitlines() if "Simulation time" in l]
    if not t:
        sys.exit(f"{name}: SimGrid failed:\n{out.stderr[-500:]}")
    with open(os.path.join(d, "expected.txt"), "w") as f:
        f.write(t[-1] + "\n")
    print(name, t[-1])
