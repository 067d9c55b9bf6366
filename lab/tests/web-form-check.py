#!/usr/bin/python3
# An alert triaged on labd's alerts page as a person would: headless Chromium opens URL
# (lab/tests/cdp.py), chooses STATE in alert ID's form, types NOTE and WHO, clicks its button,
# and waits for the page the form leads back to.  Prints where it landed and the alert's row.
# Exit 0 when the row then shows STATE; else 1.
#   web-form-check.py URL ID STATE NOTE WHO
import json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Browser  # noqa: E402

url, aid, state, note, who = sys.argv[1:6]
form = "document.querySelector('form[action=\"/ui/alerts/%s\"]')" % aid
fill = ("(function(){var f=%s; if(!f) return false;"
        "f.querySelector('select[name=state]').value=%s;"
        "f.querySelector('input[name=note]').value=%s;"
        "f.querySelector('input[name=by]').value=%s;"
        "window.__before=1; f.querySelector('button').click(); return true})()"
        % (form, json.dumps(state), json.dumps(note), json.dumps(who)))
row = "(function(){var r=document.getElementById('alert-%s');return r&&!window.__before?" \
      "r.querySelector('.state').textContent:null})()" % aid
b = Browser()
try:
    b.open(url)
    if not b.wait(form + " !== null", 20):
        sys.exit("no form for alert %s on %s" % (aid, url))
    b.js(fill)
    shown = b.wait(row, 20)
    print("landed on %s; alert %s shows %r" % (b.js("location.pathname + location.search"), aid, shown))
    sys.exit(0 if shown == state else 1)
finally:
    b.close()
