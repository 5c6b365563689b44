#!/usr/bin/env python3
"""The Jacobi skeleton of jacobi.c as a TIT trace (one file, every rank): ranks on a
line, each iteration a 1 KiB edge to each neighbour and from each, then COMPUTE_US of
computation (as flops at 1 Gflop/s, the speed of simpi testbed's platforms; without a
platform, replay it with --speed 1e9).

    skeleton.py RANKS ITERATIONS COMPUTE_US > jacobi.tit
"""
import sys

ranks, iters, compute_us = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
flops = compute_us * 1e3
out = sys.stdout
for r in range(ranks):
    out.write(f"{r} init\n")
for r in range(ranks):
    for _ in range(iters):
        if r > 0:
            out.write(f"{r} irecv {r - 1} 0 1024\n{r} isend {r - 1} 0 1024\n")
        if r < ranks - 1:
            out.write(f"{r} irecv {r + 1} 0 1024\n{r} isend {r + 1} 0 1024\n")
        out.write(f"{r} waitall\n{r} compute {flops:.0f}\n")
    out.write(f"{r} finalize\n")
