/* Bundle archives read: util/archive.h's arc_extract.  The archive is untrusted; the rules are
 * the header's. */
#include "util/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util/cleanup.h"
#include "util/fs.h"

#define CHUNK (64u << 10)
/* Uncompressed bytes a reader takes beyond its members' data: a member's headers (ustar, a
 * pax header for a long name) are a few KiB, the end and its padding one record.  A gzip bomb
 * stops there, whatever libarchive skips. */
#define HEADER_ALLOWANCE 4096u
#define END_ALLOWANCE (1u << 20)

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* The gzip layer, inflated here (zlib checks the CRC and the length at its end) and handed to
 * libarchive as a plain tar stream: libarchive's own gzip reader checks neither. */
struct gz_src {
	int fd, zinit, ended;
	z_stream z;
	uint64_t out, out_max;
	int sys;       /* a negative errno when the file could not be read */
	char why[160]; /* why the stream was refused */
	unsigned char in[CHUNK], buf[CHUNK];
};

static la_ssize_t gz_fail(struct gz_src *s, int sys, const char *why)
{
	s->sys = sys;
	snprintf(s->why, sizeof(s->why), "%s", why);
	return -1;
}

static la_ssize_t gz_read(struct archive *a, void *ud, const void **buf)
{
	struct gz_src *s = ud;
	size_t n;
	int r;

	(void)a;
	*buf = s->buf;
	s->z.next_out = s->buf;
	s->z.avail_out = sizeof(s->buf);
	while (s->z.avail_out == sizeof(s->buf) && !s->ended) {
		if (s->z.avail_in == 0) {
			ssize_t k = read(s->fd, s->in, sizeof(s->in));

			if (k < 0 && errno != EINTR)
				return gz_fail(s, -errno, strerror(errno));
			if (k == 0)
				return gz_fail(s, 0, "the gzip stream stops early");
			s->z.next_in = s->in;
			s->z.avail_in = k > 0 ? (uInt)k : 0;
			continue;
		}
		r = inflate(&s->z, Z_NO_FLUSH);
		s->ended = r == Z_STREAM_END;
		/* A second gzip member, or anything else: not what a writer wrote. */
		if (s->ended && (s->z.avail_in > 0 || read(s->fd, s->in, 1) != 0))
			return gz_fail(s, 0, "data after the gzip stream");
		if (!s->ended && r != Z_OK) {
			snprintf(s->why, sizeof(s->why), "corrupt gzip stream (%s)",
				 s->z.msg ? s->z.msg : "unknown error");
			return -1;
		}
	}
	n = sizeof(s->buf) - s->z.avail_out;
	if ((s->out += n) > s->out_max)
		return gz_fail(s, 0, "more uncompressed bytes than the limits allow");
	return (la_ssize_t)n;
}

struct extract {
	struct archive *a;
	struct gz_src *src;
	int root;        /* the target directory */
	struct arc_limits lim;
	size_t members;
	uint64_t total;  /* data bytes so far */
	char last[64];   /* the last member's name as shown, for an error between members */
	struct lab_error *err;
};

/* name as an error shows it: a control character or non-ASCII byte as \n, \t or \xHH, and
 * "..." when it is cut. */
static void show_name(const char *name, char *out, size_t len)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t o = 0;

	for (; *p && o + 8 < len; p++) {
		if (*p >= 0x20 && *p < 0x7f && *p != '\\')
			out[o++] = (char)*p;
		else if (*p == '\n' || *p == '\t')
			o += (size_t)snprintf(out + o, len - o, "\\%c", *p == '\n' ? 'n' : 't');
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", *p);
	}
	snprintf(out + o, len - o, "%s", *p ? "..." : "");
}

/* err filled (member, which may be NULL, as its path); returns r. */
__attribute__((format(printf, 4, 5))) static int say(struct lab_error *err, int r,
						     const char *member, const char *fmt, ...)
{
	char shown[sizeof(err->path)];
	va_list ap;

	show_name(member ? member : "", shown, sizeof(shown));
	va_start(ap, fmt);
	error_setv(err, shown, fmt, ap);
	va_end(ap);
	return r;
}

/* A read that failed in member (NULL: between members): what the gzip layer or libarchive said. */
static int broken(struct extract *x, const char *member)
{
	const char *why = x->src->why[0] ? x->src->why : archive_error_string(x->a);

	why = why ? why : "unknown error";
	if (x->src->sys)
		return say(x->err, x->src->sys, member, "cannot read the archive: %s", why);
	if (member || !x->last[0])
		return say(x->err, -EINVAL, member, "truncated or corrupt archive: %s", why);
	return say(x->err, -EINVAL, NULL, "truncated or corrupt archive after %s: %s", x->last, why);
}

/* The directory that will hold name's last component (*last), opened below root one component
 * at a time with O_NOFOLLOW (made 0755 where missing): a symlink on the way is never followed,
 * whoever made it.  A descriptor, or a negative errno. */
static int open_parent(int root, const char *name, const char **last)
{
	int fd = fcntl(root, F_DUPFD_CLOEXEC, 0), next, e;
	const char *c = name, *slash;

	for (*last = name; fd >= 0 && (slash = strchr(c, '/')); c = slash + 1, fd = next) {
		char comp[ARC_MAX_NAME + 1];

		snprintf(comp, sizeof(comp), "%.*s", (int)(slash - c), c);
		/* Refused by name already; here too, as this walk is what keeps writes below root. */
		if (!strcmp(comp, "..") || !strcmp(comp, ".") || !comp[0])
			next = (errno = EINVAL, -1);
		else if (mkdirat(fd, comp, 0755) < 0 && errno != EEXIST)
			next = -1;
		else
			next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		e = errno;
		close(fd);
		if (next < 0)
			return -e;
		*last = slash + 1;
	}
	return fd < 0 ? -errno : fd;
}

static int copy_data(struct extract *x, int fd, const char *name)
{
	unsigned char buf[CHUNK];
	uint64_t got = 0;
	la_ssize_t k;
	int r;

	while ((k = archive_read_data(x->a, buf, sizeof(buf))) > 0) {
		got += (uint64_t)k;
		x->total += (uint64_t)k;
		if (got > x->lim.member_bytes)
			return say(x->err, -EINVAL, name, "over the limit of %zu bytes a member",
				   x->lim.member_bytes);
		if (x->total > x->lim.total_bytes)
			return say(x->err, -EINVAL, name,
				   "brings the archive over its limit of %zu bytes", x->lim.total_bytes);
		if ((r = fs_write_all(fd, buf, (size_t)k)) < 0)
			return say(x->err, r, name, "cannot write: %s", strerror(-r));
	}
	return k < 0 ? broken(x, name) : 0;
}

static const char *kind_of(struct archive_entry *e)
{
	unsigned type = archive_entry_filetype(e);

	if (archive_entry_hardlink(e))
		return "a hard link";
	if (archive_entry_symlink(e) || type == AE_IFLNK)
		return "a symbolic link";
	return type == AE_IFREG || type == AE_IFDIR ? NULL :
	       type == AE_IFCHR ? "a character device" : type == AE_IFBLK ? "a block device" :
	       type == AE_IFIFO ? "a fifo" : type == AE_IFSOCK ? "a socket" : "of an unknown type";
}

static int extract_member(struct extract *x, struct archive_entry *e, int warned)
{
	const char *raw = archive_entry_pathname(e), *kind, *why, *last;
	int is_dir = archive_entry_filetype(e) == AE_IFDIR, r;
	uint64_t size = archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0;
	_cleanup_close_ int parent = -1, fd = -1;
	_cleanup_free_ char *name = NULL;
	struct stat st;

	if (!raw && !(raw = archive_entry_pathname_utf8(e)))
		return say(x->err, -EINVAL, NULL, "the name of member %zu cannot be read",
			   x->members + 1);
	show_name(raw, x->last, sizeof(x->last));
	if (++x->members > x->lim.members)
		return say(x->err, -EINVAL, raw, "more than %zu members", x->lim.members);
	if ((kind = kind_of(e)))
		return say(x->err, -EINVAL, raw,
			   "is %s: only regular files and directories are allowed", kind);
	if (!(name = strdup(raw)))
		return -ENOMEM;
	/* A directory's name may end in "/" (GNU tar writes "dir/"). */
	if (is_dir && name[0] && name[strlen(name) - 1] == '/')
		name[strlen(name) - 1] = '\0';
	if ((why = arc_name_problem(name)))
		return say(x->err, -EINVAL, raw, "%s", why);
	if (warned)
		return say(x->err, -EINVAL, raw, "unclear header: %s", archive_error_string(x->a));
	if (!is_dir && size > x->lim.member_bytes)
		return say(x->err, -EINVAL, raw, "%llu bytes, over the limit of %zu a member",
			   (unsigned long long)size, x->lim.member_bytes);
	if (!is_dir && sat_add(x->total, size) > x->lim.total_bytes)
		return say(x->err, -EINVAL, raw, "brings the archive over its limit of %zu bytes",
			   x->lim.total_bytes);
	/* What is there already says which rule the member breaks: the walk refuses a parent
	 * that is not a directory, O_EXCL and mkdir a name that is taken. */
	if ((parent = open_parent(x->root, name, &last)) < 0)
		return parent == -ENOTDIR || parent == -ELOOP ?
			say(x->err, -EINVAL, raw, "a parent of it is not a directory") :
			say(x->err, parent, raw, "cannot create its directory: %s", strerror(-parent));
	if (is_dir && mkdirat(parent, last, 0755) == 0)
		return 0;
	if (!is_dir && (fd = openat(parent, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC, 0644)) >= 0) {
		if ((r = copy_data(x, fd, raw)) < 0)
			return r;
		return close(TAKE_FD(fd)) < 0 ?
			say(x->err, -errno, raw, "cannot write: %s", strerror(errno)) : 0;
	}
	if (errno != EEXIST)
		return say(x->err, -errno, raw, "cannot create: %s", strerror(errno));
	if (fstatat(parent, last, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		/* A directory may come again, or after a member below it: it holds nothing. */
		return is_dir ? 0 : say(x->err, -EINVAL, raw, "a directory of that name is there");
	return say(x->err, -EINVAL, raw, "%s",
		   is_dir ? "a file of that name is there" : "duplicate member");
}

int arc_extract(const char *path, const char *dir, const struct arc_limits *lim,
		struct lab_error *err)
{
	struct extract x = { .root = -1, .err = err };
	struct archive_entry *e;
	int r = -ENOMEM, h;

	x.lim.members = lim && lim->members ? lim->members : ARC_MAX_MEMBERS;
	x.lim.member_bytes = lim && lim->member_bytes ? lim->member_bytes : ARC_MAX_MEMBER;
	x.lim.total_bytes = lim && lim->total_bytes ? lim->total_bytes : ARC_MAX_TOTAL;
	error_set_file(err, path);
	/* An empty directory is replaced (rmdir refuses any other), so dir is always this call's
	 * own, and an error removes it. */
	if (rmdir(dir) < 0 && errno != ENOENT)
		return say(err, errno == ENOTEMPTY || errno == EEXIST ? -EEXIST : -errno, NULL,
			   "%s is not an empty directory: %s", dir, strerror(errno));
	if (mkdir(dir, 0755) < 0)
		return say(err, -errno, NULL, "cannot create %s: %s", dir, strerror(errno));
	if ((x.root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		r = say(err, -errno, NULL, "cannot open %s: %s", dir, strerror(errno));
		goto cleanup;
	}
	if (!(x.src = calloc(1, sizeof(*x.src))))
		goto cleanup;
	x.src->out_max = sat_add(sat_add(x.lim.total_bytes, END_ALLOWANCE),
				 x.lim.members > UINT64_MAX / HEADER_ALLOWANCE ? UINT64_MAX :
				 (uint64_t)x.lim.members * HEADER_ALLOWANCE);
	if ((x.src->fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC)) < 0) {
		r = say(err, -errno, NULL, "cannot open: %s", strerror(errno));
		goto cleanup;
	}
	/* 16 + window bits: a gzip header and trailer, not zlib's. */
	if (!(x.src->zinit = inflateInit2(&x.src->z, 16 + MAX_WBITS) == Z_OK) ||
	    !(x.a = archive_read_new()))
		goto cleanup;
	/* tar alone: no other format or filter of libarchive's is reached by a bundle. */
	if (archive_read_support_format_tar(x.a) != ARCHIVE_OK ||
	    archive_read_open(x.a, x.src, NULL, gz_read, NULL) != ARCHIVE_OK) {
		r = broken(&x, NULL);
		goto cleanup;
	}
	while ((h = archive_read_next_header(x.a, &e)) != ARCHIVE_EOF) {
		r = h == ARCHIVE_OK || h == ARCHIVE_WARN ? extract_member(&x, e, h == ARCHIVE_WARN) :
							    broken(&x, NULL);
		if (r < 0)
			goto cleanup;
	}
	/* libarchive stops at the end marker, or at a member's end when there is none: only the
	 * gzip stream's own end says the archive is whole. */
	for (r = 0; !x.src->ended && r == 0;) {
		const void *p;

		if (gz_read(x.a, x.src, &p) < 0)
			r = broken(&x, NULL);
	}
cleanup:
	if (x.a)
		archive_read_free(x.a);
	if (x.src && x.src->zinit)
		inflateEnd(&x.src->z);
	if (x.src && x.src->fd >= 0)
		close(x.src->fd);
	free(x.src);
	if (x.root >= 0)
		close(x.root);
	if (r < 0)
		fs_rm_rf(dir);
	return r;
}
