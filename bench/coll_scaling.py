#!/usr/bin/env python3
"""Expansion cost of every collective algorithm as the number of ranks grows.

For each registered algorithm, writes a single-file TIT trace in which every rank calls
the collective CALLS times, replays it with `simpi replay --coll OP=ALGO` (LogGOPS model)
at each rank count, and prints the operations, the load time (parsing and expanding the
collectives) per operation, and how much the per-operation cost grew from the smallest
to the largest rank count. Expanding a collective should cost about the same per
operation at any size; a growth well above 1 points at per-call work that grows with the
communicator (for example, building a whole tree or list on every rank for every call).

Usage: bench/coll_scaling.py [--ranks 256,1024] [--calls 20] [--only bcast,reduce] [--timeout S]
                             [--simpi target/release/simpi]
Build first: cargo build --release -p simpi-cli
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile


def line(op: str, p: int) -> str:
    """One rank's call of `op` on MPI_COMM_WORLD with p ranks (small messages)."""
    v = " ".join(["64"] * p)
    return {
        "barrier": "barrier",
        "bcast": "bcast 4096 0 6",
        "reduce": "reduce 4096 0 0 6",
        "allreduce": "allreduce 4096 0 6",
        "allgather": "allgather 64 64 6 6",
        "allgatherv": f"allgatherv 64 {v} 6 6",
        "alltoall": "alltoall 64 64 6 6",
        "alltoallv": f"alltoallv {64 * p} {v} {64 * p} {v} 6 6",
        "gather": "gather 64 64 0 6 6",
        "gatherv": f"gatherv 64 {v} 0 6 6",
        "scatter": "scatter 64 64 0 6 6",
        "scatterv": f"scatterv {v} 64 0 6 6",
        "reduce_scatter": "reducescatterblock 64 0 6",
        "scan": "scan 64 0 6",
        "exscan": "exscan 64 0 6",
    }[op]


def algorithms(simpi: str):
    out = subprocess.run([simpi, "list-algorithms"], check=True, capture_output=True, text=True).stdout
    op = None
    for ln in out.splitlines():
        if ln.endswith(":") and not ln.startswith(" "):
            op = ln[:-1]
        elif ln.strip() and op:
            yield op, ln.split()[0]


def run(simpi: str, trace: str, op: str, algo: str, timeout: float):
    try:
        res = subprocess.run(
            [simpi, "replay", trace, "--coll", f"{op}={algo}"],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return "timeout"
    if res.returncode != 0:
        return "failed"
    ops = int(re.search(r"operations\s+(\d+)", res.stdout).group(1))
    load = float(re.search(r"\(load ([0-9.]+) s", res.stdout).group(1))
    return ops, load


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", default="256,1024")
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--simpi", default="target/release/simpi")
    ap.add_argument("--only", help="comma-separated collectives to run (default: all)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per replay")
    args = ap.parse_args()
    sizes = [int(x) for x in args.ranks.split(",")]
    print(f"{'collective':<15} {'algorithm':<24}" + "".join(f" {'ops@' + str(p):>12} {'ns/op':>7}" for p in sizes) + "  growth")
    with tempfile.TemporaryDirectory() as tmp:
        traces = {}
        only = set(args.only.split(",")) if args.only else None
        for op, algo in algorithms(args.simpi):
            if only and op not in only:
                continue
            row, costs = f"{op:<15} {algo:<24}", []
            for p in sizes:
                path = traces.get((op, p))
                if path is None:
                    path = os.path.join(tmp, f"{op}-{p}.txt")
                    body = line(op, p)
                    with open(path, "w") as f:
                        for r in range(p):
                            f.write(f"{r} init\n")
                            f.write(f"{r} {body}\n" * args.calls)
                            f.write(f"{r} finalize\n")
                    traces[(op, p)] = path
                got = run(args.simpi, path, op, algo, args.timeout)
                if isinstance(got, str):
                    row += f" {got:>12} {'':>7}"
                    costs.append(None)
                    continue
                ops, load = got
                ns = load / max(ops, 1) * 1e9
                costs.append(ns)
                row += f" {ops:>12} {ns:>7.0f}"
            if costs[0] and costs[-1]:
                row += f"  {costs[-1] / costs[0]:5.1f}x"
            print(row, flush=True)


if __name__ == "__main__":
    sys.exit(main())
