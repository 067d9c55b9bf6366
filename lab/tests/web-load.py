#!/usr/bin/env python3
"""One client of labd's pages for bench-web.sh: polls pages, or submits a job, over labd's unix
socket on one kept-alive connection (as a browser's open page does), for SECS seconds, one
request every POLL seconds, from the moment START (seconds since the epoch) on.  Prints
"PATH STATUS SECONDS" a request, the seconds from sending it to its last byte read; STATUS
"failed" when it failed twice, which bench-web.sh counts as a refused page.

  web-load.py SOCK SECS POLL START get PATH...
  web-load.py SOCK SECS POLL START post PATH FILE
  web-load.py FILE SECS POLL START fsync

fsync is the disk's own floor under a submission, which labd makes durable before it answers:
each time, 4 KiB written to FILE and fsync'd ("fsync 200 SECONDS" a line).
"""
import http.client
import os
import socket
import sys
import time


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("labd", timeout=30)
        self.unix_path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(self.unix_path)


def fetch(conn, method, path, body):
    t0 = time.perf_counter()
    conn.request(method, path, body=body,
                 headers={"Content-Type": "application/json"} if body else {})
    resp = conn.getresponse()
    resp.read()
    return resp.status, time.perf_counter() - t0


def fsync_probe(path, secs, poll):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    end = time.monotonic() + secs
    out = []
    while time.monotonic() < end:
        os.pwrite(fd, b"x" * 4096, 4096 * (len(out) % 256))
        t0 = time.perf_counter()
        os.fsync(fd)
        out.append(f"fsync 200 {time.perf_counter() - t0:.6f}")
        time.sleep(poll)
    os.close(fd)
    print("\n".join(out))


def main():
    sock, secs, poll, start, mode = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), \
        float(sys.argv[4]), sys.argv[5]
    if mode == "fsync":
        time.sleep(max(0.0, start - time.time()))
        fsync_probe(sock, secs, poll)
        return
    if mode == "post":
        paths = [sys.argv[6]]
        with open(sys.argv[7], "rb") as f:
            body = f.read()
    else:
        paths, body = sys.argv[6:], None
    time.sleep(max(0.0, start - time.time()))
    conn = UnixConnection(sock)
    end = time.monotonic() + secs
    i = 0
    out = []
    while time.monotonic() < end:
        p = paths[i % len(paths)]
        i += 1
        status, took = "failed", 0.0
        for _ in range(2):  # labd may have closed it (its idle timeout): once more, anew
            try:
                status, took = fetch(conn, "POST" if body else "GET", p, body)
                break
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = UnixConnection(sock)
        out.append(f"{p} {status} {took:.6f}")
        time.sleep(poll)
    print("\n".join(out))


if __name__ == "__main__":
    main()
