#!/usr/bin/env python3
"""Differential fuzz of non-blocking requests against SimGrid 3.32's replay.

Random TIT traces of 2 to 8 ranks made of phases: every rank posts its isends and irecvs
of the phase in random order (with computes and `test`s of its requests in between),
then waits for them (`wait` one by one in random order, with more tests, or `waitall`);
some phases end with a barrier, bcast or allreduce. Each trace is replayed by SimGrid
(`smpirun -replay`) and by simpi (`--model hybrid --preset smpi`, same algorithms), and
their makespans are compared (SimGrid prints 6 decimals: 5e-7 s plus a part per million
pass). Prints the differing seeds and a summary.

What this exercises: request keys and their order, SMPI's MPI_Test costs (a count of
failed tests shared by all ranks, docs/models.md), and waits on requests a test found
complete. SimGrid aborts on some traces (a wait after a test found the last request of
every key complete: its store is then empty); those are counted apart.

Usage: bench/smpi-replay/fuzz_requests.py FIRST_SEED COUNT
Environment: SIMPI (the binary; default target/release/simpi); SG_PRECISION, SimGrid's
surf/precision (default its own, 1e-9; 1e-12 takes its 1 ns tolerance out, which merges
sub-nanosecond computes with the tests around them).
"""
import json, os, random, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SIMPI = os.environ.get("SIMPI", os.path.join(ROOT, "target", "release", "simpi"))
PLAT = os.path.join(ROOT, "bench", "smpi", "platforms", "flat.xml")
COLL = [("bcast", "binomial", "binomial_tree"), ("allreduce", "rdb", "rdb"), ("barrier", "bruck", "ompi_bruck")]
SIZES = [8, 64, 1000, 20000, 70000, 300000]


def gen(seed):
    """Per-rank trace lines of seed `seed`."""
    rnd = random.Random(seed)
    p = rnd.choice([2, 3, 4, 5, 6, 8])
    lines = {r: [f"{r} init"] for r in range(p)}
    for ph in range(rnd.randint(1, 12)):
        # One size per key in a phase: same-key messages match in order, whatever sizes.
        sizes, msgs = {}, []
        for _ in range(rnd.randint(1, 3 * p)):
            s, t = rnd.sample(range(p), 2)
            tag = rnd.choice([0, 1, 2, ph, 100 + ph * 7 + rnd.randint(0, 3)])
            msgs.append((s, t, tag, sizes.setdefault((s, t, tag), rnd.choice(SIZES))))
        for r in range(p):
            ops = [("isend", t, tag, size, (s, t, tag)) for (s, t, tag, size) in msgs if s == r]
            ops += [("irecv", s, tag, size, (s, t, tag)) for (s, t, tag, size) in msgs if t == r]
            rnd.shuffle(ops)
            out, keys = lines[r], []
            for kind, peer, tag, size, key in ops:
                out.append(f"{r} {kind} {peer} {tag} {size} 0")
                keys.append(key)
                if rnd.random() < 0.3:
                    out.append(f"{r} compute {rnd.choice([1e3, 1e5, 1e6])}")
                if rnd.random() < 0.2:
                    k = rnd.choice(keys)
                    out.append(f"{r} test {k[0]} {k[1]} {k[2]}")
            if rnd.random() < 0.3 and keys:
                out.append(f"{r} waitall {len(keys)}")
            else:
                rnd.shuffle(keys)
                for k in keys:
                    out.append(f"{r} wait {k[0]} {k[1]} {k[2]}")
                    if rnd.random() < 0.15:
                        out.append(f"{r} test {k[0]} {k[1]} {k[2]}")
                    if rnd.random() < 0.2:
                        out.append(f"{r} compute {rnd.choice([1e3, 1e5, 1e6])}")
        if rnd.random() < 0.3:
            coll = rnd.choice(["barrier", f"bcast {rnd.choice([8, 5000, 100000])} 0 0",
                               f"allreduce {rnd.choice([8, 5000, 100000])} 10 0"])
            for r in range(p):
                lines[r].append(f"{r} {coll}")
    return [lines[r] + [f"{r} finalize"] for r in range(p)]


def replay(d, p):
    """(SimGrid's makespan or None, simpi's)."""
    sg = ["smpirun", "-np", str(p), "-platform", PLAT, "-hostfile", "hostfile", "-replay", "trace.txt"]
    sg += [f"--cfg=smpi/{op}:{g}" for op, _, g in COLL]
    if os.environ.get("SG_PRECISION"):
        sg.append(f"--cfg=surf/precision:{os.environ['SG_PRECISION']}")
    o = subprocess.run(sg, cwd=d, capture_output=True, text=True, timeout=300)
    m = re.findall(r"Simulation time ([0-9.e+-]+)", o.stdout + o.stderr)
    sp = [SIMPI, "replay", "trace.txt", "--model", "hybrid", "--preset", "smpi", "--platform", PLAT,
          "--hostfile", "hostfile", "--json"] + [a for op, s, _ in COLL for a in ("--coll", f"{op}={s}")]
    o2 = subprocess.run(sp, cwd=d, capture_output=True, text=True, timeout=300)
    if o2.returncode != 0:
        sys.exit(f"simpi failed in {d}: {o2.stderr[-500:]}")
    return (float(m[-1]) if m else None), json.loads(o2.stdout)["makespan_ps"] / 1e12


def main():
    first, count = int(sys.argv[1]), int(sys.argv[2])
    same = differ = aborted = 0
    worst = 0.0
    work = tempfile.mkdtemp(prefix="simpi-fuzz-req-")
    for seed in range(first, first + count):
        ranks = gen(seed)
        d = os.path.join(work, f"case{seed}")
        os.makedirs(d)
        with open(os.path.join(d, "trace.txt"), "w") as idx:
            for r, lines in enumerate(ranks):
                with open(os.path.join(d, f"rank-{r}.txt"), "w") as f:
                    f.write("\n".join(lines) + "\n")
                idx.write(f"rank-{r}.txt\n")
        with open(os.path.join(d, "hostfile"), "w") as f:
            f.write("".join(f"node-{r}\n" for r in range(len(ranks))))
        sg, sp = replay(d, len(ranks))
        if sg is None:
            aborted += 1
        elif abs(sg - sp) <= 5e-7 + 1e-6 * sg:
            same += 1
        else:
            differ += 1
            worst = max(worst, abs(sp - sg) / sg)
            print(f"seed {seed}: SimGrid {sg:.6f} s, simpi {sp:.9f} s ({(sp - sg) / sg:+.2e})", flush=True)
            continue
        shutil.rmtree(d)
    print(f"{same} same, {differ} different (worst {worst:.2e} relative), {aborted} SimGrid aborted; "
          f"differing cases kept in {work}")


if __name__ == "__main__":
    main()
