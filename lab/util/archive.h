/* The lab's bundle archives: gzip-compressed POSIX (pax) tar files, written reproducibly
 * (archive.c) and read as untrusted input (archive_extract.c: a bundle comes from another
 * machine, or from anyone).  The prefix is arc_, not archive_: that one is libarchive's, which
 * this wraps.  All return 0 or a negative errno; nothing is printed.
 *
 * A reader refuses anything but regular files and directories with safe relative names, so
 * that extracting never writes outside its directory, and checks the gzip stream's CRC and
 * length itself: libarchive reads a bundle with a flipped data byte, a wrong CRC or one cut at
 * a member's end as if it were whole. */
#pragma once
#include <stddef.h>

#include "util/error.h"

#define ARC_MAX_MEMBERS 4096u
#define ARC_MAX_MEMBER (64u << 20)
#define ARC_MAX_TOTAL (512u << 20)
/* Longest member name, in bytes (a whole path, not a component). */
#define ARC_MAX_NAME 255u

/* What a reader takes at most: members, bytes of one member, bytes of all members.  A field
 * that is 0 takes its default (ARC_MAX_*), so a caller sets only the one it cares about. */
struct arc_limits {
	size_t members, member_bytes, total_bytes;
};

/* 1 when name is a safe relative member name: not empty, at most ARC_MAX_NAME bytes of
 * printable ASCII, not absolute, no "." or ".." component and no empty one ("a//b", "a/").
 * Pure. */
int arc_name_ok(const char *name);
/* Why name is not one (e.g. "absolute name"), or NULL when it is. */
const char *arc_name_problem(const char *name);

/* Writing: members are regular files only, mode 0644, mtime 0, uid/gid 0 with the names
 * "numalab", in the order added, and the gzip header has no timestamp: the same members give
 * the same bytes.  The archive is written to PATH.tmp and renamed to path on close, so path
 * is never half an archive. */
struct arc_writer;

int arc_writer_open(const char *path, struct arc_writer **w);
/* -EINVAL: a name arc_name_ok() refuses; -EEXIST: a name added already, or a file where a
 * member needs a directory ("a" and "a/b"): what a reader would refuse is never written. */
int arc_writer_add(struct arc_writer *w, const char *name, const void *data, size_t len);
/* src_path's bytes as member name; -EFBIG when it holds more than max bytes. */
int arc_writer_add_file(struct arc_writer *w, const char *name, const char *src_path,
			size_t max);
/* 0: the archive is complete and at path.  w is freed whatever the outcome (on an error the
 * temporary file is removed). */
int arc_writer_close(struct arc_writer *w);
/* Nothing written: the temporary file removed, w freed.  NULL is allowed. */
void arc_writer_abort(struct arc_writer *w);

/* Every member of the archive at path into dir, which is created (its parent must exist; an
 * empty directory there is replaced, anything else refused with -EEXIST).  Refused (-EINVAL;
 * err: the archive as file, the member as path, why as msg): a name arc_name_ok() refuses (a
 * directory member may end in one "/"), a duplicate, a member that is neither a regular file
 * nor a directory (symlinks, hard links, devices, fifos), a file where a directory is needed,
 * more members or bytes than lim (NULL: the defaults) allows, an archive that is truncated or
 * corrupt (the gzip CRC and length checked) or has data after its gzip stream.  Files are
 * made 0644 and directories 0755 (less the umask) with O_EXCL, and no symlink is ever followed
 * below dir (O_NOFOLLOW at every component), even one made by someone else meanwhile.  On any
 * error dir is removed, so nothing is left; other errors are a negative errno, err filled. */
int arc_extract(const char *path, const char *dir, const struct arc_limits *lim,
		struct lab_error *err);
