#!/usr/bin/env python3
"""The projection's model against the contention model's measured curve (not a test: it prints
what it finds).  configs/seeds/README.md, "The projection against the contention model", says
what is checked and the tolerance, fixed before the run.

Usage: lab/tests/projection-check.py COUNTS QUANTUM [LAB] [--label L] [--control C]
  COUNTS   report of configs/lock-insns-read.json (tcg, the lock-instruction plugin)
  QUANTUM  report of configs/projection-check.json (the contention model)
  LAB      the lab binary (build/lab)
  --label    the contended series, in both reports (no-split-pmd-ptlock)
  --control  the series that must scale, or the check is void (baseline)
The second check, a hold of known length: COUNTS of configs/lock-insns-hold.json, QUANTUM of
configs/projection-hold.json, --label hold --control hold-0.

S comes from COUNTS through `lab project --from` (its instructions inside the lock per
acquisition).  Z comes from QUANTUM's own 1-task run: under shift=0 a lone vCPU's guest
nanosecond is one instruction, so the window per acquisition is elapsed_s * 1e9 / faults.
Prediction A is `lab project --no-transfer` of S and Z (checked here against the same MVA
solved in this script); prediction B holds each contended acquisition half a round longer
(S + Q/2).  Speed-ups are of mib_per_s, harmonic means over every boot and repetition."""
import argparse
import json
import subprocess

SITE = "do_huge_pmd_anonymous_page+"
TOL = 0.25
HPAGE = 2 << 20   # one fault each 2 MiB (the job reads one byte of each)


def mva(z, s, nmax):
    """Exact MVA of the machine-repairman model: X(n) for n = 1..nmax."""
    q, xs = 0.0, []
    for n in range(1, nmax + 1):
        r = s * (1 + q)
        x = n / (z + r)
        q = x * r
        xs.append(x)
    return xs


def series(report, label):
    """{tasks: [mib_per_s...]}, {tasks: [elapsed_s...]} of label's memscale results, and the
    faults a task takes (its region / 2 MiB)."""
    rates, els, faults = {}, {}, None
    for run in report["runs"]:
        if run.get("status") != "ok" or run["kernel"].get("label") != label:
            continue
        for wl in run["workloads"]:
            if wl["name"] != "memscale":
                continue
            for r in wl["results"]:
                rates.setdefault(r["tasks"], []).append(r["metrics"]["mib_per_s"]["value"])
                els.setdefault(r["tasks"], []).append(r["metrics"]["elapsed_s"]["value"])
                faults = r["info"]["bytes_per_task"] // HPAGE
    return rates, els, faults


def hmean(v):
    return len(v) / sum(1 / x for x in v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("counts")
    ap.add_argument("quantum")
    ap.add_argument("lab", nargs="?", default="build/lab")
    ap.add_argument("--label", default="no-split-pmd-ptlock")
    ap.add_argument("--control", default="baseline")
    args = ap.parse_args()
    counts, quantum, lab, label = args.counts, args.quantum, args.lab, args.label
    rep = json.load(open(f"{quantum}/report.json" if not quantum.endswith(".json") else quantum))
    q = rep["runs"][0]["host"]["timing"].get("quantum", 1000)
    out = subprocess.run([lab, "project", "--from", counts, "--label", label, "--site", SITE,
                          "--json", "--topology", "4s-64c", "--draws", "1"],
                         capture_output=True, text=True, check=True)
    s = json.loads(out.stdout)["inputs"]["insn_inside"]
    rates, els, faults = series(rep, label)
    base_rates, _, _ = series(rep, args.control)
    tasks = sorted(rates)
    t1 = sum(els[1]) / len(els[1]) * 1e9 / faults
    z = t1 - s
    nmax = max(tasks)
    chk = subprocess.run([lab, "project", "--inside", str(s), "--outside", str(z),
                          "--no-transfer", "--topology", "4s-64c", "--to", str(nmax), "--json",
                          "--draws", "1"], capture_output=True, text=True, check=True)
    lab_sp = [p["speedup_p50"] for p in json.loads(chk.stdout)["points"]]
    xa = mva(z, s, nmax)
    xb = mva(z, s + q / 2, nmax)
    x1 = 1 / (z + s)
    sp_a = [x / x1 for x in xa]
    sp_b = [x / x1 for x in xb]
    sp_b[0] = 1.0  # one CPU never waits for a turn
    assert all(abs(a - b) <= 1e-6 * b for a, b in zip(sp_a, lab_sp)), "lab project differs"
    m1 = hmean(rates[1])
    b1 = hmean(base_rates[1]) if 1 in base_rates else None
    print(f"S = {s:.1f} instructions inside the lock per acquisition (plugin, tcg)")
    print(f"T1 = {t1:.0f} instructions per acquisition (quantum, 1 task: elapsed "
          f"{sum(els[1]) / len(els[1]) * 1e3:.4f} ms / {faults} faults), Z = T1 - S = {z:.0f}")
    print(f"Q = {q}; prediction A: plateau (Z+S)/S = {(z + s) / s:.2f}; "
          f"prediction B (S + Q/2 = {s + q / 2:.0f}): plateau {(z + s) / (s + q / 2):.2f}")
    print(f"{'tasks':>5} {'measured':>9} {'A':>7} {'A err':>7} {'B':>7} {'B err':>7} "
          f"{args.control:>9} {'boots':>5}")
    worst_a = worst_b = worst_base = 0.0
    for n in tasks:
        m = hmean(rates[n]) / m1
        a, b = sp_a[n - 1], sp_b[n - 1]
        ea, eb = m / a - 1, m / b - 1
        worst_a, worst_b = max(worst_a, abs(ea)), max(worst_b, abs(eb))
        base = hmean(base_rates[n]) / b1 if b1 and n in base_rates else float("nan")
        if base == base:
            worst_base = max(worst_base, abs(base / n - 1))
        print(f"{n:5d} {m:9.2f} {a:7.2f} {ea * 100:+6.1f}% {b:7.2f} {eb * 100:+6.1f}% "
              f"{base:9.2f} {len(rates[n]):5d}")
    pm = max(hmean(rates[n]) / m1 for n in tasks)
    pa, pb = (z + s) / s, (z + s) / (s + q / 2)
    print(f"plateau: measured {pm:.2f}; A {pa:.2f} ({(pm / pa - 1) * 100:+.1f} %); "
          f"B {pb:.2f} ({(pm / pb - 1) * 100:+.1f} %)")
    for name, p, w in (("A", pa, worst_a), ("B", pb, worst_b)):
        ok = abs(pm / p - 1) <= TOL and w <= TOL
        print(f"prediction {name}: {'holds' if ok else 'fails'} (plateau {(pm / p - 1) * 100:+.1f} %, "
              f"worst point {w * 100:.1f} %, tolerance {TOL * 100:.0f} %)")
    print(f"{args.control}: worst |speed-up / n - 1| {worst_base * 100:.1f} % "
          f"({'within' if worst_base <= TOL else 'beyond'} {TOL * 100:.0f} %: the check is "
          f"{'valid' if worst_base <= TOL else 'void'})")


if __name__ == "__main__":
    main()
