#!/usr/bin/env python3
"""How much a replay moves when a TIT trace's computation moves by a few nanoseconds.

Copies the trace with every `compute` amount shifted by a uniform draw in
[-AMP, +AMP] flops (nanoseconds at the trace's 1 Gf), replays each copy with
`simpi replay`, and prints the spread of the makespans against the unperturbed one.
A model whose answer jumps on differences far below any tracer's clock cannot make
two traces of one run agree closely (docs/formats.md, liballprof traces).

  bench/allprof/perturb.py TIT_INDEX AMP SEEDS -- SIMPI_REPLAY_ARGS...
  bench/allprof/perturb.py tests/golden/allprof/osu_alltoall/tit/index.txt 10 20 \
      -- target/release/simpi replay --model loggops
"""
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile


def makespan_ms(cmd, index):
    out = subprocess.run(cmd + [index], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("makespan"):
            value, unit = line.split()[1:3]
            scale = {"s": 1e3, "ms": 1.0, "us": 1e-3, "ns": 1e-6}[unit]
            return float(value) * scale
    raise SystemExit(f"no makespan in the output of {' '.join(cmd)}")


def perturbed_copy(index, dst_dir, rng, amp):
    """Copies the directory of `index` to `dst_dir` and shifts the computation of
    every rank file the index lists (paths relative to the index's directory)."""
    src_dir = os.path.dirname(os.path.abspath(index))
    shutil.copytree(src_dir, dst_dir, dirs_exist_ok=True)
    with open(index) as f:
        ranks = [line.strip() for line in f if line.strip()]
    for rel in ranks:
        path = os.path.join(dst_dir, rel)
        with open(path) as f:
            lines = f.readlines()
        with open(path, "w") as out:
            for line in lines:
                fields = line.split()
                if len(fields) >= 3 and fields[1] == "compute":
                    fields[2] = repr(max(0.0, float(fields[2]) + rng.uniform(-amp, amp)))
                    line = " ".join(fields) + "\n"
                out.write(line)


def main():
    if "--" not in sys.argv or sys.argv.index("--") != 4:
        raise SystemExit(__doc__)
    index, amp, seeds = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    cmd = sys.argv[5:]
    base = makespan_ms(cmd, index)
    spans = []
    for seed in range(1, seeds + 1):
        with tempfile.TemporaryDirectory() as d:
            perturbed_copy(index, d, random.Random(seed), amp)
            spans.append(makespan_ms(cmd, os.path.join(d, os.path.basename(index))))
    near = sum(abs(v - base) / base <= 0.01 for v in spans)
    print(
        f"unperturbed {base:.3f} ms; +-{amp:g} ns, {seeds} seeds: min {min(spans):.3f} "
        f"median {statistics.median(spans):.3f} max {max(spans):.3f} ms; "
        f"within 1 %: {near} of {seeds}"
    )


if __name__ == "__main__":
    main()
