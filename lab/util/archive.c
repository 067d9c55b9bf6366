/* Bundle archives: the names a member may have, and writing (reading: archive_extract.c). */
#include "util/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/fs.h"

const char *arc_name_problem(const char *name)
{
	size_t n = strlen(name);

	if (n == 0)
		return "empty name";
	if (n > ARC_MAX_NAME)
		return "name longer than 255 bytes";
	if (name[0] == '/')
		return "absolute name";
	for (const char *p = name; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return "control character in the name";
		/* A name the locale would convert differently could not be checked as read. */
		if ((unsigned char)*p > 0x7f)
			return "non-ASCII byte in the name";
	}
	for (const char *c = name;; c++) {
		size_t len = strcspn(c, "/");

		if (len == 2 && c[0] == '.' && c[1] == '.')
			return "\"..\" in the name";
		/* "a/./b" and "a//b" are "a/b" again: one file, two names. */
		if (len == 0 || (len == 1 && c[0] == '.'))
			return "empty or \".\" component in the name";
		if (!*(c += len))
			return NULL;
	}
}

int arc_name_ok(const char *name)
{
	return name && !arc_name_problem(name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* key added to the set: 1 when it was there already, or -ENOMEM. */
static int set_add(void **set, const char *key)
{
	char *k = strdup(key);
	char **node = k ? tsearch(k, set, cmp_str) : NULL;

	if (!node || *node != k)
		free(k);
	return !node ? -ENOMEM : *node != k;
}

/* name into the set of a writer's names: a file as itself, each of its parents as "dir/", so
 * that a file and a directory of one name meet.  -EEXIST for what a reader would refuse: a
 * duplicate, a file where a directory is or the other way round. */
static int names_add(void **set, const char *name)
{
	size_t n = strlen(name);
	_cleanup_free_ char *key = malloc(n + 2);
	int r;

	if (!key)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (name[i] != '/')
			continue;
		memcpy(key, name, i);
		key[i] = '\0';
		if (tfind(key, set, cmp_str))
			return -EEXIST;
		if ((r = set_add(set, strcat(key, "/"))) < 0)
			return r;
	}
	memcpy(key, name, n + 1);
	if (tfind(strcat(key, "/"), set, cmp_str))
		return -EEXIST;
	key[n] = '\0';
	return (r = set_add(set, key)) < 0 ? r : r ? -EEXIST : 0;
}

static int la_error(struct archive *a)
{
	return archive_errno(a) > 0 ? -archive_errno(a) : -EIO;
}

struct arc_writer {
	struct archive *a;
	char *path, *tmp;
	int fd;
	int aborted; /* libarchive's free still flushes: into nothing, then */
	int err;     /* sticky: an archive a write failed in must not be renamed into place */
	void *names; /* names_add() */
};

/* libarchive's output, into the file.  Not archive_write_open_fd(): an archive given up on
 * must still be closed (archive_write_fail() would leak zlib's state), its end written to
 * nothing rather than to a descriptor that may be closed. */
static la_ssize_t writer_write(struct archive *a, void *ud, const void *buf, size_t len)
{
	struct arc_writer *w = ud;
	int r = w->aborted ? 0 : fs_write_all(w->fd, buf, len);

	if (r < 0) {
		archive_set_error(a, -r, "%s", strerror(-r));
		return -1;
	}
	return (la_ssize_t)len;
}

static void writer_free(struct arc_writer *w, int remove_tmp)
{
	w->aborted = 1;
	if (w->a)
		archive_write_free(w->a);
	if (w->fd >= 0)
		close(w->fd);
	if (remove_tmp)
		unlink(w->tmp);
	tdestroy(w->names, free);
	free(w->path);
	free(w->tmp);
	free(w);
}

void arc_writer_abort(struct arc_writer *w)
{
	if (w)
		writer_free(w, w->fd >= 0);
}

int arc_writer_open(const char *path, struct arc_writer **out)
{
	struct arc_writer *w = calloc(1, sizeof(*w));
	int r = -ENOMEM;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->fd = -1;
	if (!(w->path = strdup(path)) || asprintf(&w->tmp, "%s.tmp", path) < 0) {
		w->tmp = NULL;
		goto fail;
	}
	w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		r = -errno;
		goto fail;
	}
	/* pax restricted: plain ustar headers, a pax header only for a name ustar cannot hold.
	 * No gzip timestamp: it would make every archive's bytes differ.  The last block not
	 * padded: zeros after the gzip stream are not gzip (a reader refuses them). */
	if (!(w->a = archive_write_new()))
		goto fail;
	if (archive_write_set_format_pax_restricted(w->a) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(w->a) != ARCHIVE_OK ||
	    archive_write_set_filter_option(w->a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(w->a, 1) != ARCHIVE_OK ||
	    archive_write_open(w->a, w, NULL, writer_write, NULL) != ARCHIVE_OK) {
		r = la_error(w->a);
		goto fail;
	}
	*out = w;
	return 0;
fail:
	arc_writer_abort(w);
	return r;
}

int arc_writer_add(struct arc_writer *w, const char *name, const void *data, size_t len)
{
	struct archive_entry *e;
	int r;

	if (w->err)
		return w->err;
	if (!arc_name_ok(name))
		return -EINVAL;
	if ((r = names_add(&w->names, name)) < 0)
		return r;
	if (!(e = archive_entry_new()))
		return -ENOMEM;
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_mtime(e, 0, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_uname(e, "numalab");
	archive_entry_set_gname(e, "numalab");
	r = archive_write_header(w->a, e) == ARCHIVE_OK ? 0 : la_error(w->a);
	for (const char *p = data; r == 0 && len > 0;) {
		la_ssize_t k = archive_write_data(w->a, p, len);

		if (k <= 0)
			r = k < 0 ? la_error(w->a) : -EIO;
		else
			p += k, len -= (size_t)k;
	}
	archive_entry_free(e);
	return r < 0 ? (w->err = r) : 0;
}

int arc_writer_add_file(struct arc_writer *w, const char *name, const char *src_path,
			size_t max)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = fs_read_file(src_path, max, &buf, &len);

	return r < 0 ? r : arc_writer_add(w, name, buf, len);
}

int arc_writer_close(struct arc_writer *w)
{
	int r = w->err;

	if (r == 0 && archive_write_close(w->a) != ARCHIVE_OK)
		r = la_error(w->a);
	if (close(TAKE_FD(w->fd)) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(w->tmp, w->path) < 0)
		r = -errno;
	writer_free(w, r < 0);
	return r;
}
