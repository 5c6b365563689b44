#!/usr/bin/env python3
"""Replay cost of trace patterns that once cost more than linear time (docs/validation.md
§2.2), one run each: wall time, peak memory, and the checksum of the end times (which
must not change from one simpi to another).

Usage: bench/smpi-replay/patterns.py [PATTERN...]   (default: all)
Environment: SIMPI, the binary (default target/release/simpi).
"""
import os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIMPI = os.environ.get("SIMPI", os.path.join(ROOT, "target", "release", "simpi"))
FLAT = os.path.join(ROOT, "bench", "smpi", "platforms", "flat.xml")


def batches(k=1000, total=200_000):
    """Two ranks: rounds of k irecvs and k isends, then a waitall (SimGrid's, no list)."""
    for r in (0, 1):
        yield f"{r} init"
        for _ in range(total // k):
            yield from (f"{r} irecv {1 - r} {j} 8 0" for j in range(k))
            yield from (f"{r} isend {1 - r} {j} 8 0" for j in range(k))
            yield f"{r} waitall"


def icoll_loop(rounds=8000, ranks=4):
    """iallreduce then its wait, in a loop."""
    for r in range(ranks):
        for i in range(rounds):
            yield f"{r} iallreduce 100 10 0"
            yield f"{r} wait -3 {r} {i}"


def waitany_loop(rounds=16000):
    """isend then SimGrid's waitAny (no key); blocking receives."""
    for i in range(rounds):
        yield "0 isend 1 0 100 0"
        yield "0 waitAny 1"
        yield "1 recv 0 0 100 0"


def nic_burst(n=16000, size=800):
    """LogGOPS: n isends of `size` bytes at once (the NIC gap exceeds the overhead)."""
    yield from (f"1 irecv 0 0 {size} 0" for _ in range(n))
    yield "1 waitall"
    yield "0 compute 1e9"
    yield from (f"0 isend 1 0 {size} 0" for _ in range(n))
    yield "0 waitall"


def linear_alltoall(ranks=800):
    """One alltoall of 100 B, which Open MPI's rules give to the linear algorithm here."""
    yield from (f"{r} alltoall 100 100 0 0" for r in range(ranks))


def reverse_tags(n=80_000):
    """Receives posted for tags 0..n-1, sends made in the reverse order."""
    yield from (f"1 irecv 0 {i} 8 0" for i in range(n))
    yield "1 waitall"
    yield from (f"0 isend 1 {i} 8 0" for i in reversed(range(n)))
    yield "0 waitall"


def pair_flows(n=8000, step=100_000):
    """Hybrid: n flows between two hosts at once, of step, 2 step, ... doubles (they end
    one by one)."""
    yield from (f"1 irecv 0 {i} {step * (i + 1)} 0" for i in range(n))
    yield "1 waitall"
    yield from (f"0 isend 1 {i} {step * (i + 1)} 0" for i in range(n))
    yield "0 waitall"


def big_comm(ranks=131_072):
    """comm_dup of the world on every rank, then a barrier on the copy."""
    for r in range(ranks):
        yield f"{r} comm_dup world c"
        yield f"{r} @c barrier"


PATTERNS = {
    "batches": (batches, []),
    "icoll_loop": (icoll_loop, []),
    "waitany_loop": (waitany_loop, []),
    "nic_burst": (nic_burst, []),
    "linear_alltoall": (linear_alltoall, []),
    "reverse_tags": (reverse_tags, []),
    "pair_flows": (pair_flows, ["--model", "hybrid", "--preset", "smpi", "--platform", FLAT, "--hostfile", "hosts"]),
    "big_comm": (big_comm, []),
}


def main():
    names = sys.argv[1:] or list(PATTERNS)
    print(f"{'pattern':16s} {'wall_s':>8s} {'load_s':>8s} {'peak_MiB':>9s}  checksum")
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "hosts"), "w") as f:
            f.write("node-0\nnode-1\n")
        for name in names:
            gen, args = PATTERNS[name]
            path = os.path.join(d, f"{name}.tit")
            with open(path, "w") as f:
                for line in gen():
                    f.write(line + "\n")
            start = time.perf_counter()
            out = subprocess.run([SIMPI, "replay", path] + args, cwd=d, capture_output=True, text=True)
            wall = time.perf_counter() - start
            if out.returncode != 0:
                sys.exit(f"{name}: simpi failed: {out.stderr.strip()[-400:]}")
            peak = re.search(r"peak memory\s+([0-9.]+) MiB", out.stdout)
            peak = float(peak.group(1)) if peak else float("nan")
            load = re.search(r"load ([0-9.]+) s", out.stdout)
            checksum = re.search(r"checksum\s+(\w+)", out.stdout)
            print(f"{name:16s} {wall:8.3f} {float(load.group(1)) if load else float('nan'):8.3f} "
                  f"{peak:9.0f}  {checksum.group(1) if checksum else '?'}", flush=True)
            os.remove(path)


if __name__ == "__main__":
    main()
