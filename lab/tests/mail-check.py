#!/usr/bin/env python3
"""Checks a mail of `lab mail` (or an mbox of one) as its reader would: Python's email package
parses it; the subject holds what it must; every body line is at most 72 columns; and, given
the bisection's bisect.json, the reproduce command read back by bash is `lab bisect start`
with the bisection's own job, variant, ends, metric and timing.  Exit 0, or 1 with the reason.
usage: mail-check.py MAIL|MBOX SUBJECT-PART [BISECT.json]"""
import email
import email.policy
import json
import mailbox
import subprocess
import sys


def fail(why):
    print(f"mail-check: {why}")
    sys.exit(1)


path, want = sys.argv[1], sys.argv[2]
raw = open(path, "rb").read()
if raw.startswith(b"From "):
    msgs = list(mailbox.mbox(path))
    if len(msgs) != 1:
        fail(f"{len(msgs)} messages in the mbox, not 1")
    msg = email.message_from_bytes(msgs[0].as_bytes(), policy=email.policy.default)
else:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
for h in ("From", "Subject", "Date", "Message-ID"):
    if not msg[h]:
        fail(f"no {h}: header")
if want not in str(msg["Subject"]):
    fail(f"subject {msg['Subject']!r} lacks {want!r}")
if msg.get_content_type() != "text/plain":
    fail(f"content type {msg.get_content_type()}")
body = msg.get_content()
for n, line in enumerate(body.split("\n"), 1):
    if len(line) > 72:
        fail(f"body line {n} is {len(line)} columns: {line!r}")
if len(sys.argv) > 3:
    b = json.load(open(sys.argv[3]))
    p = b["params"]
    f = b.get("followed") or p["series"]
    lines = body.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("To reproduce it")) + 2
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    block = "\n".join(lines[start:end]).replace("build/lab", "args", 1)
    out = subprocess.run(["bash", "-c", 'args() { printf "%s\\0" "$@"; }\n' + block],
                         capture_output=True, check=True).stdout.decode().split("\0")[:-1]
    want_args = ["bisect", "start", p["job_file"], "--variant", p["variant_file"] or p["variant"],
                 "--good", p["good"]["commit"], "--bad", p["bad"]["commit"], "--metric",
                 f'{f["workload"]}.{f["metric"]}']
    if out[:len(want_args)] != want_args:
        fail(f"the reproduce command reads back as {out}, not {want_args} ...")
    if "--timing" not in out or out[out.index("--timing") + 1] != p["timing"]:
        fail(f"the reproduce command's timing is not {p['timing']}: {out}")
print(f"mail-check: {msg['Subject']}; {len(body.splitlines())} body lines")
