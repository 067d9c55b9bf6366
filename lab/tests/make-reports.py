#!/usr/bin/python3
# Writes synthetic numalab.report/1 reports for the tests and benchmarks of `lab compare` and
# `lab report`: OUT/r-NNN/report.json, shaped like what `lab run` writes (they validate against
# reports/report.schema.json), with metric values drawn around fixed bases so that the
# differences between sets are known.  Python standard library only; deterministic per --seed.
#
#   make-reports.py OUT [--reports N] [--runs R] [--repetitions K] [--tasks 1,2,4,8]
#                   [--metrics M] [--variant LABEL[,LABEL2]] [--factor METRIC=F ...] [--factor-on L]
#                   [--noise REL] [--seed S] [--start 2026-11-01T00:00:00Z] [--step-hours H]
#                   [--fail-run STATUS] [--schema S] [--workload-param K=V] [--topology S,D,C,T]
#
# --variant A,B writes both variants into each report, runs interleaved A B A B (kernel.label
# and kernel.variant set); one label sets it for all runs; none leaves only kernel.release.
# --metrics beyond the 4 named ones adds m000.. metrics (alternately a rate and a time).
# --factor scales one metric's base value for every run (e.g. faults_per_s=0.9), or with
# --factor-on LABEL for that variant's runs only.
# --fail-run makes the last run of each report fail with that status (panic, hang, ...).
import argparse
import datetime
import json
import os
import random

BASE = [  # name, unit, better, base value at 1 task, growth per doubling of tasks
    ("faults_per_s", "faults/s", "higher", 1.0e6, 1.7),
    ("sys_s", "s", "lower", 0.5, 1.1),
    ("wall_max_s", "s", "lower", 0.6, 1.15),
    ("page_faults", "faults", "lower", 16384.0, 1.0),
]


def metric_defs(n):
    defs = list(BASE[:n])
    for i in range(max(0, n - len(BASE))):
        if i % 2 == 0:
            defs.append(("m%03d" % i, "ops/s", "higher", 1000.0 * (1 + i % 7), 1.5))
        else:
            defs.append(("m%03d" % i, "s", "lower", 0.1 * (1 + i % 5), 1.05))
    return defs


def topology(sockets, dies, cores, threads):
    vcpus = sockets * dies * cores * threads
    per = vcpus // sockets
    nodes = [{"id": i, "cpus": list(range(i * per, (i + 1) * per)), "memory_mib": 512}
             for i in range(sockets)]
    dist = [[10 if a == b else 20 for b in range(sockets)] for a in range(sockets)]
    observed = {"nodes": [dict(n, managed_mib=480) for n in nodes], "distances": dist}
    return vcpus, {"requested": {"sockets": sockets, "dies": dies, "cores": cores,
                                 "threads": threads, "vcpus": vcpus, "nodes": nodes,
                                 "distances": dist},
                   "observed": observed, "match": True, "mismatches": []}


def host_obj(a):
    host = {"accel": "tcg", "accel_reason": "synthetic", "qemu_version": "10.0.2",
            "libvirt_version": "11.3.0", "uri": "qemu:///embed"}
    if a.timing:
        # As lab/core/runreport.c writes it (the texts are not read back).
        host["timing"] = {"model": a.timing, "key": a.timing, "title": "synthetic",
                          "deterministic": a.timing == "icount", "measures": "synthetic",
                          "cannot": "synthetic", "reason": "synthetic",
                          "qemu_args": ["-icount", "shift=0,sleep=off"]
                          if a.timing == "icount" else []}
    return host


def run_obj(a, rng, index, repeat, label, defs, tasks, topo, failed_status):
    factors = dict(a.factor) if not a.factor_on or a.factor_on == label else {}
    results = []
    for t in tasks:
        for rep in range(a.repetitions):
            metrics = {}
            for name, unit, better, base, growth in defs:
                doublings = (t.bit_length() - 1)
                v = base * growth ** doublings * factors.get(name, 1.0)
                v *= 1 + rng.gauss(0, a.noise)
                metrics[name] = {"value": round(v, 6), "unit": unit, "better": better}
            results.append({"tasks": t, "repetition": rep, "metrics": metrics,
                            "info": {"pages": 16384}})
    status = failed_status or "ok"
    params = {"mode": "threads", "memory_mib": 64, "tasks": tasks, "thp": False,
              "repetitions": a.repetitions}
    for kv in a.workload_param:
        k, v = kv.split("=", 1)
        params[k] = json.loads(v)
    kernel = {"image": "/boot/vmlinuz-synthetic", "release": "6.12.0-synthetic",
              "cmdline": "lpj=4000000"}
    if label:
        kernel.update(label=label, variant=label)
    if a.image_sha256:
        kernel["image_sha256"] = a.image_sha256
    return {
        "index": index, "repeat": repeat, "status": status,
        "reason": "all workloads completed" if status == "ok" else "synthetic %s" % status,
        "end": "stopped",
        "host": host_obj(a),
        "kernel": kernel,
        "topology": topo,
        "workloads": [{"name": "pft", "params": params, "status": "ok", "exit": 0,
                       "wall_s": 1.0, "stderr": "", "info": {"page_size": 4096},
                       "results": results}],
        "timings": {"boot_s": 8.0, "first_workload_s": 8.1, "workload_s": 1.0,
                    "shutdown_s": 0.2, "total_s": 9.5},
        "console": "run-%d/console.log" % index,
        "console_excerpt": ("Kernel panic - not syncing: synthetic <script>alert(1)</script>"
                            if status == "panic" else None),
        "guest": {"agent": "numalab-agent/1", "hello": True, "done": status == "ok",
                  "bad_lines": 0, "error": ""},
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--reports", type=int, default=1)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--repetitions", type=int, default=1)
    p.add_argument("--tasks", default="1,2,4,8")
    p.add_argument("--metrics", type=int, default=4)
    p.add_argument("--variant", default="")
    p.add_argument("--factor", action="append", default=[],
                   type=lambda s: (s.split("=")[0], float(s.split("=")[1])))
    p.add_argument("--factor-on", default="", help="apply --factor to this variant's runs only")
    p.add_argument("--noise", type=float, default=0.02)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", default="2026-11-01T00:00:00Z")
    p.add_argument("--step-hours", type=float, default=24)
    p.add_argument("--fail-run", default="")
    p.add_argument("--schema", default="numalab.report/1")
    p.add_argument("--workload-param", action="append", default=[])
    p.add_argument("--topology", default="4,1,2,1")
    p.add_argument("--timing", default="", help="record host.timing of this model (icount, "
                   "tcg, kvm); default: none, as reports before timing models")
    p.add_argument("--image-sha256", default="",
                   help="record kernel.image_sha256 (what booted: the history pairs a "
                   "kernel's points by it for a learned threshold)")
    p.add_argument("--job-threshold", default="",
                   help='record job.threshold: "learned" or a number of %%')
    a = p.parse_args()
    rng = random.Random(a.seed)
    tasks = [int(x) for x in a.tasks.split(",")]
    defs = metric_defs(a.metrics)
    labels = [x for x in a.variant.split(",") if x] or [None]
    _, topo = topology(*[int(x) for x in a.topology.split(",")])
    start = datetime.datetime.strptime(a.start, "%Y-%m-%dT%H:%M:%SZ")
    for r in range(a.reports):
        created = start + datetime.timedelta(hours=a.step_hours * r)
        runs = []
        for i in range(a.runs * len(labels)):
            failed = a.fail_run if (a.fail_run and i == a.runs * len(labels) - 1) else None
            runs.append(run_obj(a, rng, i, i // len(labels), labels[i % len(labels)], defs,
                                tasks, topo, failed))
        worst = a.fail_run if a.fail_run else "ok"
        doc = {"schema": a.schema, "id": created.strftime("%Y%m%d-%H%M%S") + "-synthetic",
               "created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
               "job": {"name": "synthetic", "file": "configs/synthetic.json", "repeats": a.runs},
               "status": worst, "runs": runs}
        if a.job_threshold:
            doc["job"]["threshold"] = (a.job_threshold if a.job_threshold == "learned"
                                       else float(a.job_threshold))
        d = os.path.join(a.out, "r-%03d" % r)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "report.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)


main()
