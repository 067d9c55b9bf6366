#!/usr/bin/python3
# Writes cases.json: inputs for lab/tests/test_verdict.c with expectations computed here,
# independently of lab/analysis/verdict.c, with Python's statistics module: per-boot means,
# pooled within-boot and between-boot CVs, Benjamini-Hochberg q-values (the textbook
# step-up, written out below), and boots-needed estimates.  Verdict cases are written by hand
# (their expected verdict is part of the input).  Run once by hand when cases change:
#   python3 lab/tests/data/verdict/make-expected.py > lab/tests/data/verdict/cases.json
import json, math, statistics as S

AGG = [
    # name, kind, [(boot, value), ...]
    ("one-boot-three-reps", "arithmetic", [(0, 10.0), (0, 11.0), (0, 12.0)]),
    ("three-boots-interleaved", "arithmetic",
     [(7, 10.0), (3, 20.0), (7, 12.0), (5, 30.0), (3, 22.0), (5, 29.0), (5, 31.0)]),
    ("rates-two-boots", "harmonic", [(1, 100.0), (1, 200.0), (2, 150.0), (2, 150.0)]),
    ("one-value-per-boot", "arithmetic", [(0, 1.0), (1, 2.0), (2, 4.0)]),
    ("rates-boot-noise-dominates", "harmonic",
     [(0, 1000.0), (0, 1001.0), (0, 999.0), (1, 1200.0), (1, 1199.0), (1, 1201.0)]),
]

def agg(kind, pairs):
    h = kind == "harmonic"
    order, by = [], {}
    for b, v in pairs:
        if b not in by:
            by[b] = []
            order.append(b)
        by[b].append(1 / v if h else v)
    means = [S.fmean(by[b]) for b in order]
    out_means = [1 / m if h else m for m in means]
    df = sum(len(by[b]) - 1 for b in order)
    ss = sum(sum((x - S.fmean(by[b])) ** 2 for x in by[b]) for b in order)
    grand = S.fmean([x for b in order for x in by[b]])
    within = math.sqrt(ss / df) / abs(grand) if df > 0 else None
    between = S.stdev(means) / abs(S.fmean(means)) if len(means) > 1 else None
    return {"means": out_means, "boots": len(order), "values": len(pairs),
            "cv_within": within, "cv_between": between}

FDR = [
    ("textbook", [0.01, 0.04, 0.03, 0.005, 0.5]),
    ("with-untested", [0.02, None, 0.001, None, 0.9, 0.04]),
    ("ties", [0.03, 0.03, 0.03]),
    ("all-large", [0.6, 0.8, 0.99]),
    ("single", [0.04]),
]

def bh(ps):
    idx = [i for i, p in enumerate(ps) if p is not None]
    m = len(idx)
    srt = sorted(idx, key=lambda i: (ps[i], i))
    q = [None] * len(ps)
    run = 1.0
    for k in range(m, 0, -1):
        i = srt[k - 1]
        run = min(run, ps[i] * m / k)
        q[i] = run
    return q

DECIDE = [
    # name, tested, change, lo, hi, q, threshold, expected
    ("untested", False, -10.0, None, None, None, 2.0, "insufficient-data"),
    ("inside-threshold", True, 0.3, -1.2, 1.8, 0.6, 2.0, "no-change"),
    ("significant-but-tiny", True, -0.5, -0.9, -0.1, 0.001, 2.0, "no-change"),
    ("clear-regression", True, -5.0, -7.0, -3.0, 0.0001, 2.0, "regression"),
    ("clear-improvement", True, 4.0, 2.5, 5.5, 0.002, 2.0, "improvement"),
    ("regression-not-after-fdr", True, -5.0, -9.0, -1.0, 0.08, 2.0, "inconclusive"),
    ("small-significant-wide", True, -1.0, -2.5, -0.2, 0.01, 2.0, "inconclusive"),
    # An A/A of icount boots measured here (3 + 3 boots, the boots' 1-task pft rates fall in
    # clusters ~0.6 % apart): significant, the point beyond the 1 % threshold, but the
    # interval reaches inside it: not yet a regression.
    ("beyond-threshold-interval-not", True, -1.12, -1.35, -0.89, 0.014, 1.0, "inconclusive"),
    ("interval-beyond-threshold", True, -2.1, -2.6, -1.6, 0.001, 1.0, "regression"),
    ("improvement-interval-not-beyond", True, 2.2, 0.5, 3.9, 0.01, 1.0, "inconclusive"),
    ("wide-interval", True, -10.0, -26.0, 15.0, 0.4, 2.0, "inconclusive"),
    ("unbounded-interval", True, 1.0, -3.0, "inf", 0.5, 2.0, "inconclusive"),
    ("zero-threshold-unchanged", True, 0.0, -0.1, 0.1, 1.0, 0.0, "inconclusive"),
    ("zero-threshold-change", True, -0.2, -0.3, -0.1, 0.001, 0.0, "regression"),
]

NEEDED = [
    # name, cv_a %, cv_b %, threshold %, have
    ("deterministic", 0.2, 0.2, 1.0, 3),
    ("mttcg-noise", 12.0, 12.0, 2.0, 4),
    ("mttcg-5pct", 12.0, 12.0, 5.0, 2),
    ("unknown-cv", None, 3.0, 2.0, 1),
    ("no-threshold", 1.0, 1.0, 0.0, 2),
    ("hopeless", 80.0, 80.0, 1.0, 4),
]

def needed(a, b, t, have):
    if a is None or b is None or t <= 0:
        return 0
    n = math.ceil((1.96 * math.sqrt(a * a + b * b) / (t / 2)) ** 2)
    if n > 1000:
        return 1001
    n = max(n, 2, have + 1)
    return 1001 if n > 1000 else n

def num(x):
    if x is None:
        return None
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x

print(json.dumps({
    "aggregate": [{"name": n, "kind": k, "boots": [b for b, _ in p], "values": [v for _, v in p],
                   "expect": agg(k, p)} for n, k, p in AGG],
    "fdr": [{"name": n, "p": p, "expect": bh(p)} for n, p in FDR],
    "decide": [{"name": n, "tested": t, "change_pct": c, "ci_lo_pct": num(lo), "ci_hi_pct": num(hi),
                "q": q, "threshold_pct": th, "expect": e}
               for n, t, c, lo, hi, q, th, e in DECIDE],
    "boots_needed": [{"name": n, "cv_a_pct": a, "cv_b_pct": b, "threshold_pct": t, "have": h,
                      "expect": needed(a, b, t, h)} for n, a, b, t, h in NEEDED],
}, indent=1, sort_keys=True))
