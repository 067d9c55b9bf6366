#!/usr/bin/env python3
"""Hostile bundle archives for lab/tests/test_archive_hostile.sh (and seeds for fuzz_archive).

    make-hostile-archives.py OUTDIR [--max-member N] [--abs PATH]
    make-hostile-archives.py --fuzz-seeds OUTDIR

writes OUTDIR/NAME.tar.gz, one per case, and OUTDIR/cases.tsv: NAME, the exit status
`test_archive --extract` must give (2: refused), what its error must hold (the member as the
lab shows it: a control character as \\n or \\xHH), and its extra arguments.  --max-member is
the limit the too-big case is one byte over; --abs the path the absolute case names (a place
the test watches).  --fuzz-seeds writes the same archives framed as fuzz_archive reads its
input: a byte 1 then the file, and a byte 0 then the tar inside it, when small enough.
Standard library only: tarfile writes what the lab's reader must refuse.
"""
import gzip
import io
import random
import sys
import tarfile
import zlib

CASES = []


def case(name, status, expect, args=""):
    def register(fn):
        CASES.append((name, status, expect, args, fn))
        return fn
    return register


def member(name, data=b"pwned\n", kind=tarfile.REGTYPE, **kw):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    info.mode = 0o644
    for k, v in kw.items():
        setattr(info, k, v)
    return info, (io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def tar(members, fmt=tarfile.PAX_FORMAT):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
        for info, data in members:
            t.addfile(info, data)
    return buf.getvalue()


def gz(raw):
    return gzip.compress(raw, mtime=0)


def two_members():
    """A small file then 64 KiB that does not compress: a cut in the middle of the file lands
    in the second member's data."""
    rnd = random.Random(7)
    return gz(tar([member("first.txt", b"first\n"), member("big.bin", rnd.randbytes(65536))]))


@case("good", 0, "")
def good(opt):
    return gz(tar([member("report.json", b"{}\n"), member("run-0", kind=tarfile.DIRTYPE),
                   member("run-0/console.log", b"boot\n")]))


@case("dotdot", 2, "../x: \"..\" in the name")
def dotdot(opt):
    return gz(tar([member("ok.txt", b"ok\n"), member("../x")]))


@case("dotdot-nested", 2, "a/../../x: \"..\" in the name")
def dotdot_nested(opt):
    return gz(tar([member("a/../../x")]))


@case("absolute", 2, "{abs}: absolute name")
def absolute(opt):
    return gz(tar([member(opt["abs"])]))


@case("symlink-out", 2, "link: is a symbolic link")
def symlink_out(opt):
    return gz(tar([member("link", kind=tarfile.SYMTYPE, linkname="../../..")]))


@case("symlink-then-file", 2, "esc: is a symbolic link")
def symlink_then_file(opt):
    return gz(tar([member("esc", kind=tarfile.SYMTYPE, linkname=".."),
                   member("esc/through-the-link")]))


@case("hardlink", 2, "h: is a hard link")
def hardlink(opt):
    return gz(tar([member("f", b"f\n"), member("h", kind=tarfile.LNKTYPE, linkname="f")]))


@case("hardlink-out", 2, "h: is a hard link")
def hardlink_out(opt):
    return gz(tar([member("h", kind=tarfile.LNKTYPE, linkname="/etc/passwd")]))


@case("chardev", 2, "null: is a character device")
def chardev(opt):
    return gz(tar([member("null", kind=tarfile.CHRTYPE, devmajor=1, devminor=3)]))


@case("blockdev", 2, "sda: is a block device")
def blockdev(opt):
    return gz(tar([member("sda", kind=tarfile.BLKTYPE, devmajor=8, devminor=0)]))


@case("fifo", 2, "pipe: is a fifo")
def fifo(opt):
    return gz(tar([member("pipe", kind=tarfile.FIFOTYPE)]))


@case("too-big", 2, "big: {over} bytes, over the limit of {max_member} a member",
      "--max-member {max_member}")
def too_big(opt):
    return gz(tar([member("small", b"s\n"), member("big", b"b" * (opt["max_member"] + 1))]))


@case("too-many", 2, "m4096: more than 4096 members")
def too_many(opt):
    return gz(tar([member("m%04d" % i, b"") for i in range(4097)], tarfile.USTAR_FORMAT))


@case("duplicate", 2, "dup: duplicate member")
def duplicate(opt):
    return gz(tar([member("dup", b"one\n"), member("dup", b"two\n")]))


@case("parent-is-file", 2, "f/g: a parent of it is not a directory")
def parent_is_file(opt):
    return gz(tar([member("f", b"f\n"), member("f/g")]))


@case("truncated", 2, "big.bin: truncated or corrupt archive: the gzip stream stops early")
def truncated(opt):
    data = two_members()
    return data[:len(data) // 2]


@case("corrupt-gzip", 2, "corrupt")
def corrupt_gzip(opt):
    data = bytearray(two_members())
    for i in range(len(data) // 2, len(data) // 2 + 16):
        data[i] ^= 0x5A
    return bytes(data)


@case("crc", 2, "incorrect data check")
def crc(opt):
    data = bytearray(two_members())
    data[-8] ^= 1
    return bytes(data)


@case("not-gzip", 2, "corrupt gzip stream")
def not_gzip(opt):
    return tar([member("plain.txt", b"plain\n")])


@case("after-gzip", 2, "data after the gzip stream")
def after_gzip(opt):
    return two_members() + b"appended"


@case("newline-name", 2, "a\\nb: control character in the name")
def newline_name(opt):
    return gz(tar([member("a\nb")]))


@case("escape-name", 2, "\\x1b]0;owned\\x07: control character in the name")
def escape_name(opt):
    return gz(tar([member("\x1b]0;owned\x07")]))


@case("empty-name", 2, "empty name")
def empty_name(opt):
    return gz(tar([member("", b"")]))


@case("long-name", 2, "name longer than 255 bytes")
def long_name(opt):
    return gz(tar([member("n" * 300)]))


@case("pax-path", 2, "../pax-x: \"..\" in the name")
def pax_path(opt):
    info, data = member("innocent")
    info.pax_headers = {"path": "../pax-x"}
    return gz(tar([(info, data)]))


@case("gnu-longname", 2, "\"..\" in the name")
def gnu_longname(opt):
    return gz(tar([member("../" + "l" * 120)], tarfile.GNU_FORMAT))


def main(argv):
    seeds = "--fuzz-seeds" in argv
    args = [a for a in argv if a != "--fuzz-seeds"]
    opt = {"max_member": 1024, "abs": "/tmp/numalab-hostile-absolute"}
    if not args:
        sys.exit(__doc__)
    out = args[0]
    i = 1
    while i + 1 < len(args):
        key = {"--max-member": "max_member", "--abs": "abs"}.get(args[i])
        if key is None:
            sys.exit("unknown option " + args[i])
        opt[key] = int(args[i + 1]) if key == "max_member" else args[i + 1]
        i += 2
    rows = []
    for name, status, expect, extra, fn in CASES:
        data = fn(opt)
        if seeds:
            write(out, "seed-%s-gz" % name, b"\x01" + data)
            try:
                raw = gzip.decompress(data)
            except (OSError, EOFError, zlib.error):
                raw = data
            if len(raw) <= 65536:
                write(out, "seed-%s-tar" % name, b"\x00" + raw)
            continue
        write(out, name + ".tar.gz", data)
        fmt = dict(opt, over=opt["max_member"] + 1)
        rows.append("\t".join([name, str(status), expect.format(**fmt), extra.format(**fmt)]))
    if not seeds:
        with open(out + "/cases.tsv", "w") as f:
            f.write("\n".join(rows) + "\n")


def write(out, name, data):
    with open(out + "/" + name, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main(sys.argv[1:])
