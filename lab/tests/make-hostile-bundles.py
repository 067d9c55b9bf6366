#!/usr/bin/env python3
"""Hostile bundles for lab/tests/test_bundle_hostile.sh: what `lab rerun` must refuse.

    make-hostile-bundles.py OUTDIR

writes OUTDIR/NAME.tar.gz, one per case, and OUTDIR/cases.tsv: NAME and what the error must
hold.  Each starts from a well-formed bundle (a manifest listing job.json and report.json with
their sha256) and breaks one thing: a member altered after its hash was taken, one not listed,
one listed but absent, no manifest, a manifest that is not JSON or lists an unsafe name, a path
out of the tree, a symlink, a member over the reader's limit, the archive cut short, not gzip.
The last case is well formed but made by another lab commit: refused without --this-lab.
Standard library only.
"""
import gzip
import hashlib
import io
import json
import os
import sys
import tarfile

JOB = b'{"name": "hostile", "kernel": {"variant": "kernels/x.json"}, "repeats": 1}\n'
REPORT = b'{"id": "20261207-000000-hostile", "schema": "numalab.report/1", "runs": []}\n'


def sha(b):
    return hashlib.sha256(b).hexdigest()


def manifest(members, commit="0000000deadb"):
    return json.dumps({
        "schema": "numalab.bundle/1", "created": "2026-12-07T00:00:00Z",
        "lab": {"version": "0.0", "commit": commit},
        "report": {"id": "20261207-000000-hostile", "model": "quantum", "quantum": 1000,
                   "runs": 0, "repeats": 1},
        "seeds": [], "notes": [],
        "members": [{"path": p, "sha256": sha(b), "bytes": len(b), "what": "x"}
                    for p, b in members]}, sort_keys=True).encode()


def tar(path, entries):
    """entries: (name, bytes) for files, (name, None, linkname) for symlinks."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for e in entries:
            info = tarfile.TarInfo(e[0])
            info.mode = 0o644
            if e[1] is None:
                info.type, info.linkname = tarfile.SYMTYPE, e[2]
                t.addfile(info)
            else:
                info.size = len(e[1])
                t.addfile(info, io.BytesIO(e[1]))
    data = gzip.compress(buf.getvalue(), mtime=0)
    with open(path, "wb") as f:
        f.write(data)
    return data


GOOD = [("job.json", JOB), ("report.json", REPORT)]


def main(out):
    os.makedirs(out, exist_ok=True)
    cases = []

    def add(name, says, entries=None, raw=None):
        p = os.path.join(out, name + ".tar.gz")
        if raw is not None:
            open(p, "wb").write(raw)
        else:
            tar(p, entries)
        cases.append((name, says))

    m = manifest(GOOD)
    add("altered-member", "job.json: its bytes hash to",
        [("MANIFEST.json", m), ("job.json", JOB.replace(b"1}", b"9}")), ("report.json", REPORT)])
    add("unlisted-member", "extra.sh: not listed in MANIFEST.json",
        [("MANIFEST.json", m)] + GOOD + [("extra.sh", b"rm -rf /\n")])
    add("listed-missing", "kernels/x.json: listed in MANIFEST.json but not in the archive",
        [("MANIFEST.json", manifest(GOOD + [("kernels/x.json", b"{}")]))] + GOOD)
    add("no-manifest", "MANIFEST.json: missing", GOOD)
    add("manifest-not-json", "MANIFEST.json", [("MANIFEST.json", b"{not json")] + GOOD)
    bad = json.loads(m)
    bad["members"][0]["path"] = "../job.json"
    add("manifest-traversal", "members[0].path: not a safe member name",
        [("MANIFEST.json", json.dumps(bad).encode())] + GOOD)
    add("member-traversal", "../escaped", [("MANIFEST.json", m)] + GOOD +
        [("../escaped", b"x")])
    add("member-absolute", "absolute", [("MANIFEST.json", m)] + GOOD + [("/tmp/abs-x", b"x")])
    add("member-symlink", "symlink", [("MANIFEST.json", m)] + GOOD +
        [("kernels", None, "/etc")])
    add("member-huge", "huge.bin", [("MANIFEST.json", m)] + GOOD +
        [("huge.bin", bytes(65 << 20))])
    whole = tar(os.path.join(out, "whole.tar.gz"), [("MANIFEST.json", m)] + GOOD)
    os.unlink(os.path.join(out, "whole.tar.gz"))
    add("truncated", "truncated", raw=whole[:len(whole) // 2])
    add("not-gzip", "", raw=b"PK\x03\x04 this is a zip, not a bundle\n")
    add("other-lab", "made by lab 0.0 (commit 0000000deadb)", [("MANIFEST.json", m)] + GOOD)
    with open(os.path.join(out, "cases.tsv"), "w") as f:
        for name, says in cases:
            f.write(f"{name}\t{says}\n")


if __name__ == "__main__":
    main(sys.argv[1])
