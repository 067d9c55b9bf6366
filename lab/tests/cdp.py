# A small client of Chromium's DevTools protocol on a pipe (--remote-debugging-pipe: no port,
# no websocket library), for the web tests (web-live-check.py, web-form-check.py): headless
# Chromium started with the flags this machine needs, a page opened, calls and JavaScript.
import json, os, subprocess, sys, tempfile, time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class Browser:
    def __init__(self):
        r3, w3 = os.pipe()  # Chromium reads commands on its fd 3
        r4, w4 = os.pipe()  # and answers on its fd 4
        profile = tempfile.mkdtemp(prefix="web-cdp-")
        self.p = subprocess.Popen(
            ["chromium"] + FLAGS + ["--user-data-dir=" + profile, "--remote-debugging-pipe",
                                    "about:blank"],
            pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(r3, 3), os.dup2(w4, 4)),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r3)
        os.close(w4)
        self.out = os.fdopen(w3, "wb")
        self.inp = os.fdopen(r4, "rb")
        self.buf = b""
        self.seq = 0
        self.session = None

    def call(self, method, params=None, session=None):
        self.seq += 1
        msg = {"id": self.seq, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.out.write(json.dumps(msg).encode() + b"\0")
        self.out.flush()
        while True:
            while b"\0" not in self.buf:
                chunk = os.read(self.inp.fileno(), 65536)
                if not chunk:
                    sys.exit("chromium went away")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\0", 1)
            m = json.loads(line)
            if m.get("id") == self.seq:
                if "error" in m:
                    sys.exit("%s: %s" % (method, m["error"]))
                return m["result"]

    def open(self, url):
        target = self.call("Target.createTarget", {"url": url})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Runtime.enable", None, self.session)

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True},
                      self.session)
        return r["result"].get("value")

    def wait(self, expr, seconds):
        """Until the expression is truthy (its value), or None after seconds."""
        end = time.time() + seconds
        while time.time() < end:
            try:
                v = self.js(expr)
            except SystemExit:
                v = None  # a page between two loads
            if v:
                return v
            time.sleep(0.2)
        return None

    def close(self):
        self.p.kill()
        self.p.wait()
