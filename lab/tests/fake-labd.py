#!/usr/bin/env python3
"""A stand-in for labd's HTTP API on a unix socket, for the client tests (test_labd_cli.sh).

It speaks the API of the labd brief (GET /v1/health, POST/GET /v1/jobs, GET /v1/jobs/ID,
POST /v1/jobs/ID/cancel, GET /v1/events, GET /v1/jobs/ID/report) from memory, and plays each
job's life as a script: a long poll of /v1/events that finds nothing new moves the running
job on by one event (started, progress, run-started, run-ended, ..., done), so a follow ends
quickly and in a known order.  A job whose "name" holds "panic" has its last run end in a
panic; a job with a "repeats" that is not a positive integer is refused (400, path
"repeats"), as labd would.  Job 999's answer is 5 MiB (too large for the client), job 998's
is not JSON.  Usage: fake-labd.py SOCKET (removes SOCKET first, serves until killed)."""
import json
import os
import socketserver
import sys
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlparse

jobs = {}
events = []


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def log(job, type_, data=None):
    events.append({"seq": len(events) + 1, "time": now(), "job": job, "type": type_,
                   "data": data})


def script(j):
    """The events of a job's life after "accepted", in order."""
    n = j["runs_planned"]
    panic = "panic" in j["name"]
    out = [("started", None)]
    for i in range(1, n + 1):
        status = "panic" if panic and i == n else "ok"
        out += [("run-started", {"index": i - 1, "total": n}),
                ("progress", {"msg": "run %d/%d: booting guest" % (i, n)}),
                ("progress", {"msg": "run %d/%d: %s" % (i, n, status)}),
                ("run-ended", {"index": i - 1, "total": n, "status": status,
                               "reason": "kernel panic" if status != "ok" else ""})]
    out.append(("done", {"state": "done", "exit": 3 if panic else 0, "error": None}))
    return out


def step():
    """The oldest job not ended moves on by one event."""
    for j in sorted(jobs.values(), key=lambda x: x["id"]):
        if j["state"] in ("queued", "running") and j["_script"]:
            type_, data = j["_script"].pop(0)
            if type_ == "started":
                j["state"], j["started"] = "running", now()
            elif type_ == "run-ended":
                j["runs_done"] += 1
                j["_runs"].append(data["status"])
            elif type_ == "done":
                j["state"], j["ended"], j["exit"] = data["state"], now(), data["exit"]
            log(j["id"], type_, data)
            return


def public(j, with_job):
    out = {k: v for k, v in j.items() if not k.startswith("_") and k != "job"}
    if with_job:
        out["job"] = j["job"]
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, code, body, ctype="application/json"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def error(self, code, msg, path=None):
        self.answer(code, {"error": msg, "path": path})

    def job_of(self, parts):
        if len(parts) < 3 or not parts[2].isdigit() or int(parts[2]) not in jobs:
            self.error(404, "no such job")
            return None
        return jobs[int(parts[2])]

    def do_GET(self):
        u = urlparse(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        parts = u.path.strip("/").split("/")
        if u.path == "/v1/health":
            return self.answer(200, {"ok": True, "version": "fake", "state_dir": "/x",
                                     "counts": {}, "worker": {"job": None}})
        if u.path == "/v1/jobs":
            st = q.get("state")
            if st and st not in ("queued", "running", "done", "failed", "cancelled"):
                return self.error(400, "unknown state \"%s\"" % st, None)
            out = [public(j, False) for j in sorted(jobs.values(), key=lambda x: -x["id"])
                   if not st or j["state"] == st]
            return self.answer(200, {"jobs": out[:int(q.get("limit", 1000))]})
        if u.path == "/v1/events":
            return self.events(q)
        if parts[:2] == ["v1", "jobs"] and len(parts) == 3 and parts[2] == "999":
            return self.answer(200, {"pad": "x" * (5 << 20)})
        if parts[:2] == ["v1", "jobs"] and len(parts) == 3 and parts[2] == "998":
            return self.answer(200, b"<html>not json</html>", "text/html")
        j = self.job_of(parts)
        if not j:
            return
        if len(parts) == 3:
            return self.answer(200, public(j, True))
        if len(parts) == 4 and parts[3] == "report":
            if not j["_runs"]:
                return self.error(404, "no report yet")
            bad = [s for s in j["_runs"] if s != "ok"]
            return self.answer(200, {"status": bad[0] if bad else "ok",
                                     "runs": [{"status": s} for s in j["_runs"]]})
        self.error(404, "unknown path")

    def events(self, q):
        since, job, wait = int(q.get("since", 0)), int(q.get("job", 0)), float(q.get("timeout", 0))

        def mine():
            return [e for e in events if e["seq"] > since and (not job or e["job"] == job)]
        if not mine() and wait > 0:
            step()
        self.answer(200, {"events": mine(), "last": len(events)})

    def do_POST(self):
        parts = urlparse(self.path).path.strip("/").split("/")
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if parts == ["v1", "jobs"]:
            return self.submit(body)
        j = self.job_of(parts)
        if not j:
            return
        if len(parts) != 4 or parts[3] != "cancel":
            return self.error(404, "unknown path")
        if j["state"] in ("done", "failed", "cancelled"):
            return self.error(409, "job %d already ended (%s)" % (j["id"], j["state"]))
        log(j["id"], "cancel")
        if j["state"] == "queued":
            j["state"], j["ended"], j["_script"] = "cancelled", now(), []
        else:
            j["cancel_requested"] = True
            j["_script"] = [("done", {"state": "cancelled", "exit": 3, "error": None})]
        self.answer(200, {"id": j["id"], "state": j["state"], "cancel_requested": True})

    def submit(self, body):
        try:
            job = json.loads(body)
        except ValueError:
            return self.error(400, "not JSON")
        reps = job.get("repeats", 2)
        if not isinstance(reps, int) or reps < 1:
            return self.error(400, "must be a positive integer", "repeats")
        i = len(jobs) + 1
        jobs[i] = {"id": i, "name": job.get("name", ""), "state": "queued", "created": now(),
                   "started": None, "ended": None, "out_dir": "/var/lib/numalab/labd/jobs/%d/report" % i,
                   "runs_planned": reps, "runs_done": 0, "exit": None, "error": None,
                   "cancel_requested": False, "job": job, "_runs": []}
        jobs[i]["_script"] = script(jobs[i])
        log(i, "accepted")
        self.answer(201, {"id": i, "state": "queued"})


class Server(socketserver.UnixStreamServer):
    """One request at a time: the tests' clients come one after the other."""

    def handle_error(self, request, client_address):
        pass  # a client that hung up on a large answer, as the test wants

    def get_request(self):
        sock, _ = super().get_request()
        return sock, ("local", 0)


if __name__ == "__main__":
    path = sys.argv[1]
    if os.path.exists(path):
        os.unlink(path)
    Server(path, Handler).serve_forever()
