#!/usr/bin/env python3
"""From a distributions file (simpi bench), two files of point masses: every histogram
replaced by its smallest time, and by its mean (buckets counted at their midpoints), as
the deterministic predictions PEVPM's paper sets beside its Monte Carlo one.

    point_masses.py IN.dist MIN.dist MEAN.dist
"""
import sys

src, min_out, mean_out = sys.argv[1:4]
unit, hists, cur = None, {}, None
for line in open(src):
    w = line.split("#")[0].split()
    if not w:
        continue
    if w[0] == "unit":
        unit = w[1]
    elif w[0] == "dist":
        cur = (int(w[1]), int(w[2]))
        hists[cur] = []
    elif w[0] == "bucket":
        hists[cur].append((float(w[1]), float(w[2]), int(w[3])))
for path, pick in ((min_out, "min"), (mean_out, "mean")):
    with open(path, "w") as f:
        f.write(f"# point masses ({pick}) of {src}\nunit {unit}\n")
        for (size, level), b in sorted(hists.items()):
            if pick == "min":
                v = min(lo for lo, hi, c in b if c > 0)
            else:
                v = sum((lo + hi) / 2 * c for lo, hi, c in b) / sum(c for _, _, c in b)
            f.write(f"dist {size} {level}\nbucket {v!r} {v * (1 + 1e-9)!r} 1\n")
