#!/usr/bin/env python3
"""The NUMA cost model's THP read-fault check (not a test: it prints what it finds).
configs/seeds/README.md, "The NUMA cost model: predictions fixed before the runs", says what is
predicted and the bounds, written before the run.

Usage: lab/tests/numa-check.py NUMA PLAIN [--label L] [--control C]
  NUMA   report of configs/numa-read-check.json (quantum with wsm-ex-4s)
  PLAIN  report of configs/projection-check.json (plain quantum), same seeds
  --label    the series with the shared lock (no-split-pmd-ptlock)
  --control  the series with private locks (baseline)

Speed-ups are of mib_per_s over the same kernel's 1 task, harmonic means over every boot and
repetition.  P1: the label's speed-up at the most tasks is at most half of plain quantum's,
the control's within 25 % of plain quantum's.  P2: with x = cache-line transfers per fault and
c = charged / transfers, both from the plugin's windows of the label at the most tasks, the
label's plateau lies between T1' / (H + x c) and T1' / (H + 2 c): H the effective hold plain
quantum measured (T1 / plateau, the same job), T1' the 1-task window per fault under the
model."""
import argparse
import json

HPAGE = 2 << 20


def hmean(v):
    return len(v) / sum(1 / x for x in v)


def series(report, label):
    """{tasks: [mib_per_s]}, {tasks: [elapsed_s]}, faults a task, {tasks: [(window, run)]}."""
    rates, els, wins, faults = {}, {}, {}, None
    for run in report["runs"]:
        if run.get("status") != "ok" or run["kernel"].get("label") != label:
            continue
        nc = {w["id"]: w for w in (run.get("numa_cost") or {}).get("windows", [])}
        for wl in run["workloads"]:
            if wl["name"] != "memscale":
                continue
            for r in wl["results"]:
                t = r["tasks"]
                rates.setdefault(t, []).append(r["metrics"]["mib_per_s"]["value"])
                els.setdefault(t, []).append(r["metrics"]["elapsed_s"]["value"])
                faults = r["info"]["bytes_per_task"] // HPAGE
                w = nc.get(r["info"].get("lock_insn_window"))
                if w:
                    wins.setdefault(t, []).append(w)
    return rates, els, faults, wins


def speedups(rates):
    one = hmean(rates[1])
    return {t: hmean(v) / one for t, v in sorted(rates.items())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("numa")
    ap.add_argument("plain")
    ap.add_argument("--label", default="no-split-pmd-ptlock")
    ap.add_argument("--control", default="baseline")
    a = ap.parse_args()
    numa, plain = (json.load(open(p)) for p in (a.numa, a.plain))
    key = numa["runs"][0]["host"]["timing"]["key"]
    print(f"model {key}; plain {plain['runs'][0]['host']['timing']['key']}")
    nl, nel, faults, wins = series(numa, a.label)
    pl, pel, _, _ = series(plain, a.label)
    nc, _, _, _ = series(numa, a.control)
    pc, _, _, _ = series(plain, a.control)
    sn, sp, cn, cp = speedups(nl), speedups(pl), speedups(nc), speedups(pc)
    print("| tasks | no-split, plain | no-split, NUMA | baseline, plain | baseline, NUMA |")
    print("|---|---|---|---|---|")
    for t in sorted(sn):
        print(f"| {t} | {sp[t]:.2f} | {sn[t]:.2f} | {cp[t]:.2f} | {cn[t]:.2f} |")
    top = max(sn)
    p1 = sn[top] <= sp[top] / 2 and abs(cn[top] / cp[top] - 1) <= 0.25
    print(f"P1: no-split at {top} tasks {sn[top]:.2f} against plain {sp[top]:.2f} "
          f"(at most {sp[top] / 2:.2f}); baseline {cn[top]:.2f} against {cp[top]:.2f} "
          f"(within 25 %): {'holds' if p1 else 'fails'}")
    t1 = sum(pel[1]) / len(pel[1]) * 1e9 / faults
    t1n = sum(nel[1]) / len(nel[1]) * 1e9 / faults
    hold = t1 / max(sp.values())
    w = wins.get(top, [])
    tr = sum(x["transfers_local"] + x["transfers_remote"] for x in w)
    ch = sum(x["charged"] for x in w)
    fw = sum(x.get("forwarded") or 0 for x in w)
    n_faults = faults * top * len(w)
    if not tr or not n_faults:
        print("P2: no plugin windows for the most tasks: cannot be checked")
        return
    x, c = tr / n_faults, ch / tr
    lo, hi = t1n / (hold + x * c), t1n / (hold + 2 * c)
    plat = max(sn.values())
    print(f"T1 {t1:.0f} (plain), T1' {t1n:.0f} (NUMA) instruction-times a fault; effective hold "
          f"{hold:.0f}; at {top} tasks {x:.2f} transfers a fault, {c:.0f} charged a transfer "
          f"({fw / tr if tr else 0:.0f} of it forwarded), {ch / n_faults:.0f} charged a fault")
    print(f"P2: plateau {plat:.2f} within [{lo:.2f}, {hi:.2f}]: "
          f"{'holds' if lo <= plat <= hi else 'fails'}")


if __name__ == "__main__":
    main()
