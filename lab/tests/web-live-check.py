#!/usr/bin/python3
# Whether a page of labd follows itself live (lab/report/web.js): headless Chromium opens URL
# (lab/tests/cdp.py), reads the text of SELECTOR, creates the file TOUCH (which lets the test's
# stand-in `lab run` go on), and waits up to 40 s for that text to become WANT without the page
# being loaded again (web.js swaps what changed).  Exit 0 when it did; else 1, saying what was
# seen.
#   web-live-check.py URL SELECTOR TOUCH WANT
import json, os, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

url, selector, touch, want = sys.argv[1:5]
text = "(function(){var e=document.querySelector(%s);return e?e.textContent:null})()" % json.dumps(selector)
b = Browser()
try:
    b.open(url)
    before = b.wait(text, 20)
    marker = b.js("window.__loaded = Math.random()")
    open(touch, "w").close()
    end = time.time() + 40
    now = before
    while time.time() < end and now != want:
        time.sleep(0.25)
        now = b.js(text)
    same = b.js("window.__loaded") == marker
    print("before %r, after %r, the same page (not loaded again): %s" % (before, now, same))
    sys.exit(0 if now == want and same else 1)
finally:
    b.close()
