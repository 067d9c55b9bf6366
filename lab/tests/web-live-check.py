#!/usr/bin/python3
# Whether a page of labd follows itself live (lab/report/web.js): headless Chromium opens URL
# over the DevTools protocol on a pipe (--remote-debugging-pipe: no port, no websocket
# library), reads the text of SELECTOR, creates the file TOUCH (which lets the test's stand-in
# `lab run` go on), and waits up to 40 s for that text to become WANT without the page being
# loaded again (web.js swaps what changed).  Exit 0 when it did; else 1, saying what was seen.
#   web-live-check.py URL SELECTOR TOUCH WANT
import json, os, subprocess, sys, tempfile, time

url, selector, touch, want = sys.argv[1:5]
r3, w3 = os.pipe()  # Chromium reads commands on its fd 3
r4, w4 = os.pipe()  # and answers on its fd 4
profile = tempfile.mkdtemp(prefix="web-live-")
p = subprocess.Popen(
    ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
     "--disable-background-networking", "--disable-component-update", "--disable-sync",
     "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"],
    pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(r3, 3), os.dup2(w4, 4)),
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(r3)
os.close(w4)
out = os.fdopen(w3, "wb")
inp = os.fdopen(r4, "rb")
buf = b""
seq = 0


def call(method, params=None, session=None):
    global seq, buf
    seq += 1
    msg = {"id": seq, "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    out.write(json.dumps(msg).encode() + b"\0")
    out.flush()
    while True:
        while b"\0" not in buf:
            chunk = os.read(inp.fileno(), 65536)
            if not chunk:
                sys.exit("chromium went away")
            buf += chunk
        line, buf = buf.split(b"\0", 1)
        m = json.loads(line)
        if m.get("id") == seq:
            if "error" in m:
                sys.exit("%s: %s" % (method, m["error"]))
            return m["result"]


def text(session):
    expr = "(function(){var e=document.querySelector(%s);return e?e.textContent:null})()" % json.dumps(selector)
    r = call("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session)
    return r["result"].get("value")


try:
    target = call("Target.createTarget", {"url": url})["targetId"]
    session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    call("Runtime.enable", None, session)
    end = time.time() + 20
    before = None
    while time.time() < end and before is None:
        before = text(session)
        time.sleep(0.2)
    marker = call("Runtime.evaluate", {"expression": "window.__loaded = Math.random()", "returnByValue": True}, session)["result"]["value"]
    open(touch, "w").close()
    end = time.time() + 40
    now = before
    while time.time() < end and now != want:
        time.sleep(0.25)
        now = text(session)
    same = call("Runtime.evaluate", {"expression": "window.__loaded", "returnByValue": True}, session)["result"].get("value") == marker
    print("before %r, after %r, the same page (not loaded again): %s" % (before, now, same))
    sys.exit(0 if now == want and same else 1)
finally:
    p.kill()
    p.wait()
