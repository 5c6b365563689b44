#!/usr/bin/env python3
"""bench/noise: compares the makespans of LogGOPSim's runs and simpi's replications.

Usage: stats.py LOGGOPSIM_FILE SIMPI_JSON
LOGGOPSIM_FILE holds one makespan (ns) per line, one per LogGOPSim seed; SIMPI_JSON is
`simpi replay --replications N --json` output. Prints both samples' mean, standard
deviation, 95 % interval of the mean (Student t), the 2.5-97.5 % range of the runs,
whether simpi's mean lies inside LogGOPSim's interval of the mean, and Welch's test of
equal means. Student's t is computed here from the regularized incomplete beta function
(a continued fraction), independently of simpi's own statistics.
"""
import json
import math
import sys


def betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)), -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """Regularized incomplete beta I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    return betainc(df / 2, 0.5, df / (df + t * t))


def t_quantile_975(df):
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_two_sided_p(mid, df) > 0.05:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def describe(xs):
    xs = sorted(xs)
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    half = t_quantile_975(n - 1) * sd / math.sqrt(n) if n > 1 else 0.0
    # 2.5 and 97.5 % of the runs, linear interpolation between order statistics.
    def pct(q):
        pos = q * (n - 1)
        i = int(pos)
        return xs[i] if i + 1 >= n else xs[i] + (pos - i) * (xs[i + 1] - xs[i])
    return dict(n=n, mean=mean, sd=sd, lo=mean - half, hi=mean + half, p025=pct(0.025), p975=pct(0.975), min=xs[0], max=xs[-1])


def main():
    lgs = [float(l) for l in open(sys.argv[1]) if l.strip()]
    sim_json = json.load(open(sys.argv[2]))
    sim = [x / 1000.0 for x in sim_json["makespans_ps"]]
    a, b = describe(lgs), describe(sim)
    print(f"{'':10} {'runs':>5} {'mean ns':>12} {'sd ns':>9} {'95% CI of mean':>25} {'2.5-97.5% of runs':>23} {'min':>9} {'max':>9}")
    for name, s in (("LogGOPSim", a), ("simpi", b)):
        print(f"{name:10} {s['n']:5d} {s['mean']:12.1f} {s['sd']:9.1f} {s['lo']:12.1f}-{s['hi']:<12.1f} {s['p025']:11.1f}-{s['p975']:<11.1f} {s['min']:9.0f} {s['max']:9.0f}")
    # simpi's own interval, from simpi's JSON, beside this script's.
    print(f"simpi's own 95% CI of the mean: {sim_json['makespan_ci95_ps'][0] / 1000:.1f}-{sim_json['makespan_ci95_ps'][1] / 1000:.1f} ns")
    inside = a["lo"] <= b["mean"] <= a["hi"]
    print(f"simpi's mean inside LogGOPSim's 95% CI of the mean: {'yes' if inside else 'NO'}")
    inside_runs = a["p025"] <= b["mean"] <= a["p975"]
    print(f"simpi's mean inside the 2.5-97.5% range of LogGOPSim's runs: {'yes' if inside_runs else 'NO'}")
    va, vb = a["sd"] ** 2 / a["n"], b["sd"] ** 2 / b["n"]
    if va + vb > 0:
        t = (b["mean"] - a["mean"]) / math.sqrt(va + vb)
        df = (va + vb) ** 2 / ((va**2 / (a["n"] - 1) if a["n"] > 1 else 0) + (vb**2 / (b["n"] - 1) if b["n"] > 1 else 0))
        print(f"Welch's t = {t:.3f} on {df:.1f} df: p = {t_two_sided_p(t, df):.3f} (equal means not rejected at 5%: {'yes' if t_two_sided_p(t, df) > 0.05 else 'NO'})")
    else:
        print("both samples are constant: means " + ("equal" if a["mean"] == b["mean"] else "DIFFER"))
    return 0 if inside else 1


if __name__ == "__main__":
    sys.exit(main())
