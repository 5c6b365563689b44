#!/usr/bin/env python3
"""Replay cost of request loops with no blocking call in between, against SimGrid.

Two synthetic TIT traces on two ranks, ROUNDS rounds each (default 10,000 and 100,000):

* tags:    rank 0 `isend 1 k 8` + `wait`, rank 1 `irecv 0 k 8` + `wait`, a new tag k
           every round (requests under keys that never repeat; rank 1's unexpected
           queue holds thousands of eager messages);
* waitall: both ranks `irecv`, `isend`, `waitall` with one tag.

Neither has a compute or a blocking call, so nothing resets the frontier of what the
next call waits for. Prints, per trace and size, simpi's wall time (LogGOPS and
hybrid/smpi), SimGrid's (`smpirun -replay`, if installed) and both simulated times.
Times grow linearly with the rounds when every step is constant-time.

Usage: bench/smpi-replay/waitloops.py [ROUNDS...]   (SIMPI=binary, default target/release)
"""
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIMPI = os.environ.get("SIMPI", os.path.join(ROOT, "target", "release", "simpi"))
PLATFORM = os.path.join(ROOT, "bench", "smpi", "platforms", "flat.xml")


def write_trace(d, kind, rounds):
    """Writes the per-rank files and the index; returns the index path."""
    files = []
    for r in range(2):
        o = 1 - r
        lines = [f"{r} init"]
        for k in range(rounds):
            if kind == "tags":
                op = f"isend {o}" if r == 0 else f"irecv {o}"
                lines.append(f"{r} {op} {k} 8 0")
                lines.append(f"{r} wait 0 1 {k}")
            else:
                lines += [f"{r} irecv {o} 3 8 0", f"{r} isend {o} 3 8 0", f"{r} waitall 2"]
        lines.append(f"{r} finalize")
        path = os.path.join(d, f"{kind}{rounds}-{r}.txt")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        files.append(path)
    index = os.path.join(d, f"{kind}{rounds}.txt")
    with open(index, "w") as f:
        f.write("\n".join(files) + "\n")
    return index


def timed(cmd, cwd):
    start = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {out.stderr.strip()[-500:]}")
    return took, out.stdout + out.stderr


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000]
    have_sg = subprocess.run(["sh", "-c", "command -v smpirun"], capture_output=True).returncode == 0
    print(f"{'trace':10s} {'rounds':>8s} {'loggops_s':>10s} {'hybrid_s':>10s} {'simgrid_s':>10s} "
          f"{'simpi_sim_s':>12s} {'sg_sim_s':>10s}")
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "hostfile"), "w") as f:
            f.write("node-0\nnode-1\n")
        for kind in ("tags", "waitall"):
            for n in sizes:
                index = write_trace(d, kind, n)
                lg, _ = timed([SIMPI, "replay", index], d)
                hy, out = timed([SIMPI, "replay", index, "--model", "hybrid", "--preset", "smpi",
                                 "--platform", PLATFORM, "--hostfile", "hostfile"], d)
                sim = re.search(r"makespan\s+([0-9.]+) (\w+)", out)
                scale = {"s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[sim.group(2)]
                sp_sim = float(sim.group(1)) * scale
                sg, sg_sim = float("nan"), float("nan")
                if have_sg:
                    sg, out = timed(["smpirun", "-np", "2", "-platform", PLATFORM, "-hostfile", "hostfile",
                                     "-replay", index], d)
                    m = re.search(r"Simulation time ([0-9.e+-]+)", out)
                    sg_sim = float(m.group(1)) if m else float("nan")
                print(f"{kind:10s} {n:8d} {lg:10.3f} {hy:10.3f} {sg:10.3f} {sp_sim:12.6f} {sg_sim:10.6f}",
                      flush=True)


if __name__ == "__main__":
    main()
