#!/usr/bin/python3
# Writes cases.json: inputs for lab/tests/test_stats.c with expectations computed
# independently of lab/analysis/stats.c (and of GSL) by SciPy (Debian's python3-scipy 1.10):
# means by numpy and scipy.stats.hmean, p-values by scipy.stats.ttest_ind(equal_var=False),
# t quantiles by scipy.stats.t.ppf.  Run once by hand when cases change:
#   /usr/bin/python3 lab/tests/data/stats/make-expected.py > lab/tests/data/stats/cases.json
# Harmonic cases follow the method documented in lab/analysis/stats.h: statistics of the
# reciprocals mapped back to rate units.  Not run by the tests (SciPy is not a test dependency).
import json, math, sys
import numpy as np
import scipy.stats as st

LEVEL = 0.95
CASES = [
    ("shift-5-vs-5", "arithmetic", [10.1, 9.8, 10.3, 10.0, 9.9], [11.2, 10.9, 11.5, 11.0, 11.3]),
    ("unequal-n-and-var", "arithmetic", [1, 2, 3, 4, 5, 6, 7, 8], [2.5, 3.5, 9.0]),
    ("identical", "arithmetic", [5, 6, 7], [5, 6, 7]),
    ("overlapping-noise", "arithmetic", [0.591, 0.612, 0.574, 0.603, 0.588, 0.620],
     [0.597, 0.584, 0.611, 0.606, 0.579, 0.615]),
    ("negative-values", "arithmetic", [-3.5, -2.0, -4.25, -3.0], [-1.0, -2.5, -0.75, -1.5]),
    ("rates-10pct-down", "harmonic", [1.0e5, 1.1e5, 0.95e5, 1.05e5], [0.9e5, 0.92e5, 0.88e5, 0.91e5]),
    ("rates-wide-unbounded", "harmonic", [1, 100], [1, 2]),
    ("rates-equal", "harmonic", [88209.14, 110812.52, 97000.0], [88209.14, 110812.52, 97000.0]),
    ("single-value", "arithmetic", [42.0], [43.0]),
    ("constant-sides", "arithmetic", [3, 3, 3], [4, 4, 4]),
]

def num(x):
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if isinstance(x, float) and math.isnan(x):
        return None
    return float(x)

def summary(x, kind):
    x = np.asarray(x, dtype=float)
    n = len(x)
    if kind == "harmonic":
        r = 1 / x
        m = r.mean()
        mean = float(st.hmean(x))
        if n < 2:
            return dict(n=n, mean=mean, stddev=None, cv=None, ci=[None, None])
        s = r.std(ddof=1)
        h = st.t.ppf(1 - (1 - LEVEL) / 2, n - 1) * s / math.sqrt(n)
        hi = 1 / (m - h) if m > h else math.inf
        return dict(n=n, mean=mean, stddev=num(mean * mean * s), cv=num(s / m),
                    ci=[num(1 / (m + h)), num(hi)])
    mean = float(x.mean())
    if n < 2:
        return dict(n=n, mean=mean, stddev=None, cv=None, ci=[None, None])
    s = x.std(ddof=1)
    # scipy's interval is NaN for zero spread; the interval of a constant sample is a point.
    lo, hi = (mean, mean) if s == 0 else st.t.interval(LEVEL, n - 1, loc=mean, scale=s / math.sqrt(n))
    return dict(n=n, mean=mean, stddev=num(s), cv=num(s / abs(mean)) if mean else None,
                ci=[num(lo), num(hi)])

def welch(a, b, kind):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if len(a) < 2 or len(b) < 2:
        return None
    ta, tb = (1 / a, 1 / b) if kind == "harmonic" else (a, b)
    sa, sb = ta.var(ddof=1) / len(ta), tb.var(ddof=1) / len(tb)
    d = tb.mean() - ta.mean()
    if sa + sb == 0:
        t = 0.0 if d == 0 else math.copysign(math.inf, d)
        df, p, lo, hi = len(a) + len(b) - 2, 1.0 if d == 0 else 0.0, d, d
    else:
        res = st.ttest_ind(tb, ta, equal_var=False)
        t, p = float(res.statistic), float(res.pvalue)
        df = (sa + sb) ** 2 / (sa ** 2 / (len(ta) - 1) + sb ** 2 / (len(tb) - 1))
        h = st.t.ppf(1 - (1 - LEVEL) / 2, df) * math.sqrt(sa + sb)
        lo, hi = d - h, d + h
    if kind == "harmonic":
        ma = ta.mean()
        d, lo, hi = 1 / (ma + d) - 1 / ma, 1 / (ma + hi) - 1 / ma, \
            (1 / (ma + lo) - 1 / ma) if ma + lo > 0 else math.inf
        t = -t
    return dict(diff=num(d), ci=[num(lo), num(hi)], t=num(t), df=num(df), p=num(p))

out = []
for name, kind, a, b in CASES:
    out.append(dict(name=name, kind=kind, a=a, b=b,
                    expect=dict(a=summary(a, kind), b=summary(b, kind), welch=welch(a, b, kind))))
json.dump(out, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
