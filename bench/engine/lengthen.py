#!/usr/bin/env python3
"""Makes a TIT trace K times longer: each rank's lines between its first (`init`) and
last (`finalize`) line are repeated K times, as if the benchmark ran K times as many
iterations. Used to check that replay memory does not grow with a trace's length.

Usage: lengthen.py TRACE_DIR K OUT_DIR
  TRACE_DIR holds trace.txt (an index of per-rank files) and its files; OUT_DIR gets
  trace.txt, the lengthened files, and copies of hostfile, platform.xml and
  algorithms.txt if present.
"""
import os
import shutil
import sys


def main():
    src, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(os.path.join(out, "files"), exist_ok=True)
    index = [l.strip() for l in open(os.path.join(src, "trace.txt")) if l.strip()]
    entries = []
    for i, name in enumerate(index):
        path = name if os.path.isabs(name) else os.path.join(src, name)
        lines = open(path).read().splitlines()
        head, body, tail = lines[:1], lines[1:-1], lines[-1:]
        dst = os.path.join(out, "files", f"rank-{i}.txt")
        with open(dst, "w") as f:
            f.write("\n".join(head + body * k + tail) + "\n")
        entries.append(os.path.join("files", f"rank-{i}.txt"))
    with open(os.path.join(out, "trace.txt"), "w") as f:
        f.write("\n".join(entries) + "\n")
    for extra in ("hostfile", "platform.xml", "algorithms.txt"):
        if os.path.exists(os.path.join(src, extra)):
            shutil.copy(os.path.join(src, extra), out)


if __name__ == "__main__":
    main()
