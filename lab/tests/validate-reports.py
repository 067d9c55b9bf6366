#!/usr/bin/python3
# Validates reports against reports/report.schema.json (JSON Schema draft 2020-12), with
# Debian's python3-jsonschema (a test dependency only; the lab itself does not need it).
#   validate-reports.py FILE...        each FILE is a report.json
#   validate-reports.py --run FILE...  each FILE is one RUN object (as lab/tests/golden/report-run-*.json)
# Prints "ok FILE" or every error with its JSON path; exit 0 when all are valid, 1 when one is
# not, 2 on usage errors.  Run it with /usr/bin/python3: another python3 on PATH may lack the module.
import json
import os
import sys

from jsonschema import Draft202012Validator

here = os.path.dirname(os.path.abspath(__file__))
schema_path = os.path.join(here, "..", "..", "reports", "report.schema.json")


def path_of(err):
    out = ""
    for p in err.absolute_path:
        out += "[%d]" % p if isinstance(p, int) else ("." if out else "") + str(p)
    return out or "(top)"


def main(argv):
    run_mode = bool(argv) and argv[0] == "--run"
    files = argv[1:] if run_mode else argv
    if not files:
        print("usage: validate-reports.py [--run] FILE...", file=sys.stderr)
        return 2
    with open(schema_path) as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    if run_mode:
        validator = validator.evolve(schema=schema["$defs"]["run"])
    bad = 0
    for name in files:
        try:
            with open(name) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("not ok %s: %s" % (name, e))
            bad += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if not errors:
            print("ok %s" % name)
            continue
        bad += 1
        for e in errors[:20]:
            msg = e.message if len(e.message) <= 200 else e.message[:160] + "..."
            print("not ok %s: %s: %s (%s)" % (name, path_of(e), msg, e.validator))
    return 1 if bad else 0


sys.exit(main(sys.argv[1:]))
