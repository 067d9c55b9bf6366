#!/usr/bin/env python3
# bench-record.py OUT PART STAMP LOG [FAILED]: puts what benchmark part PART printed (the file
# LOG) into OUT (BENCHMARKS.md) as its section "## PART", replacing that part's section of an
# earlier run and keeping the other parts' sections as they were, so that each section says
# the run it came from (STAMP: date, commit, host, load).  FAILED: the part failed; its
# section says so (its figures were left out by the part itself: lab/tests/benchlib.sh).
import re
import sys

HEAD = """# Benchmarks

Written by `make bench` (lab/tests/bench.sh); do not edit.  Each section is one part's output
from one run, stamped with when, which commit, on which host and at what load it was measured.
Ratios are measured within that one run; a part run alone replaces only its own section
(`BENCH_PARTS="model" make bench`).  Timings are figures, never pass/fail.
"""

out, part, stamp, log = sys.argv[1:5]
failed = len(sys.argv) > 5 and sys.argv[5] == "failed"
try:
    text = open(out).read()
except FileNotFoundError:
    text = HEAD
body = open(log, errors="replace").read().rstrip("\n").replace("```", "'''")
section = "## %s\n\n%s%s\n\n```\n%s\n```\n" % (
    part, stamp, "\n\n**This part failed**: its failed runs' figures were left out (see below)."
    if failed else "", body)
# sections: "## NAME" up to the next "## " or the end
parts = re.split(r"(?m)^(?=## )", text)
head, sections = parts[0], parts[1:]
names = [s.split("\n", 1)[0][3:].strip() for s in sections]
if part in names:
    sections[names.index(part)] = section
else:
    sections.append(section)
order = "run compare kernel image boot verdict parallel seeds model bisect labd reliability pool".split()
sections.sort(key=lambda s: order.index(s.split("\n", 1)[0][3:].strip())
              if s.split("\n", 1)[0][3:].strip() in order else len(order))
with open(out + ".tmp", "w") as f:
    f.write(head.rstrip("\n") + "\n\n" + "\n".join(s.rstrip("\n") + "\n" for s in sections))
import os
os.replace(out + ".tmp", out)
