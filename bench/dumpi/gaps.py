#!/usr/bin/env python3
"""Compares the time between MPI calls in a pair recorded by record.sh: the DUMPI trace
(through dumpi2ascii) and the TIT trace (simpi trace's `.times` files), per rank.

Gaps are split by the calls around them: where jacobi.c computes (a Sendrecv followed by
the Allreduce) and where it does not (anything else: what is left there is the tracers'
own time and the loop's); and the slowest step's computation over the fastest's.
Usage: gaps.py PAIR_DIR [dumpi2ascii]"""
import glob
import os
import subprocess
import sys

pair = sys.argv[1]
d2a = sys.argv[2] if len(sys.argv) > 2 else "/tmp/dumpi/inst/bin/dumpi2ascii"
NAMES = {"MPI_Init": "init", "MPI_Sendrecv": "sendRecv", "MPI_Allreduce": "allreduce",
         "MPI_Finalize": "finalize"}


def dumpi_calls(path):
    """(name, entry, exit, cpu entry, cpu exit) of the calls simpi models, in seconds."""
    out, cur = [], None
    text = subprocess.run([d2a, path], capture_output=True, text=True, check=True).stdout
    for line in text.splitlines():
        w = line.split()
        if len(w) > 6 and w[1] in ("entering", "returning") and w[0] in NAMES:
            wall, cpu = float(w[4].rstrip(",")), float(w[6])
            if w[1] == "entering":
                cur = [NAMES[w[0]], wall, None, cpu, None]
            else:
                cur[2], cur[4] = wall, cpu
                out.append(tuple(cur))
    return out


def tit_calls(path):
    out = []
    for line in open(path):
        w = line.split()
        if w[0] != "compute":
            out.append((w[0], float(w[1]), float(w[2])))
    return out


def split(calls, wall=True):
    """Sums of gaps where the program computes and where it does not, in microseconds."""
    steps, idle = [], 0.0
    for a, b in zip(calls, calls[1:]):
        g = (b[1] - a[2]) if wall else (b[3] - a[4])
        if a[0] == "sendRecv" and b[0] == "allreduce":
            steps.append(g)
        elif a[0] != "init" and b[0] != "finalize":
            idle += g
    # Every step does the same work: its slowest step over its fastest shows the noise.
    return sum(steps) * 1e6, idle * 1e6, len(calls), max(steps) / min(steps)


ranks = len(glob.glob(os.path.join(pair, "tit", "rank-*.times")))
print(f"{'rank':>4} {'trace':>10} {'compute gaps':>13} {'other gaps':>11} {'calls':>6} {'slowest/fastest step':>21}  (us)")
for r in range(ranks):
    (meta,) = glob.glob(os.path.join(pair, "dumpi", f"*-{r:04d}.bin"))
    d = dumpi_calls(meta)
    t = tit_calls(os.path.join(pair, "tit", f"rank-{r}.times"))
    assert [c[0] for c in d] == [c[0] for c in t], "the two runs made different calls"
    for label, row in (("dumpi", split(d)), ("dumpi cpu", split(d, False)), ("tit", split(t))):
        print(f"{r:>4} {label:>10} {row[0]:>13.1f} {row[1]:>11.1f} {row[2]:>6} {row[3]:>21.3f}")
