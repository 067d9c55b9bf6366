#include "core/cpio.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CPIO_MAGIC "070701"
#define CPIO_HDR_LEN 110 /* magic + 13 fields of 8 hex digits */
#define CPIO_NAME_MAX 4095
#define CPIO_TRAILER "TRAILER!!!"
#define CPIO_FIELD_MAX 0xffffffffUL

static int buf_reserve(struct cpio_buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	unsigned char *p;

	if (more > SIZE_MAX - b->len)
		return -ENOMEM;
	if (b->len + more <= b->cap)
		return 0;
	while (cap < b->len + more) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

/* Caller reserved the space. */
static void buf_put(struct cpio_buf *b, const void *p, size_t n)
{
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void buf_pad(struct cpio_buf *b, size_t align)
{
	while (b->len % align)
		b->data[b->len++] = 0;
}

/* Strip the leading "/" and refuse names the kernel would mis-handle or that escape the root. */
static int check_path(const char *path, const char **out)
{
	const char *p = path, *seg;
	size_t n;

	if (!path)
		return -EINVAL;
	while (*p == '/')
		p++;
	n = strlen(p);
	if (n == 0 || n > CPIO_NAME_MAX || p[n - 1] == '/')
		return -EINVAL;
	for (seg = p;; seg += n + 1) {
		n = strcspn(seg, "/");
		if (n == 0 || (n == 1 && seg[0] == '.') || (n == 2 && !strncmp(seg, "..", 2)))
			return -EINVAL;
		if (!seg[n])
			break;
	}
	*out = p;
	return 0;
}

/* Combine permission bits with the entry's type; refuse a conflicting type in mode. */
static int full_mode(unsigned mode, unsigned type, unsigned *out)
{
	if (mode & ~(unsigned)(S_IFMT | 07777))
		return -EINVAL;
	if ((mode & S_IFMT) && (mode & S_IFMT) != type)
		return -EINVAL;
	*out = type | (mode & 07777);
	return 0;
}

struct entry {
	const char *name;
	unsigned mode, nlink, rmajor, rminor;
	int trailer; /* inode 0, as GNU cpio and the kernel's gen_init_cpio write it */
	const void *data;
	size_t size;
};

static int put_entry(struct cpio_buf *b, const struct entry *e)
{
	size_t namesize = strlen(e->name) + 1;
	char hdr[CPIO_HDR_LEN + 1];
	unsigned ino;
	int r;

	/* Every header field is 8 hex digits. */
	if (e->size > CPIO_FIELD_MAX)
		return -EFBIG;
	if (!e->trailer && b->next_ino >= CPIO_FIELD_MAX)
		return -EOVERFLOW;
	ino = e->trailer ? 0 : (unsigned)++b->next_ino;
	snprintf(hdr, sizeof(hdr), "%s%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 CPIO_MAGIC, ino, e->mode, 0u, 0u, e->nlink, 0u /* mtime */, (unsigned)e->size,
		 0u, 0u /* dev */, e->rmajor, e->rminor, (unsigned)namesize, 0u /* check */);
	/* header + name + up to 3 pad, data + up to 3 pad */
	r = buf_reserve(b, CPIO_HDR_LEN + namesize + 3 + e->size + 3);
	if (r < 0)
		return r;
	buf_put(b, hdr, CPIO_HDR_LEN);
	buf_put(b, e->name, namesize);
	buf_pad(b, 4);
	buf_put(b, e->data, e->size);
	buf_pad(b, 4);
	return 0;
}

static int add(struct cpio_buf *b, const char *path, unsigned mode, unsigned type,
	       struct entry *e)
{
	int r;

	if (!b || b->finished)
		return -EINVAL;
	r = check_path(path, &e->name);
	if (r == 0)
		r = full_mode(mode, type, &e->mode);
	return r < 0 ? r : put_entry(b, e);
}

int cpio_add_file(struct cpio_buf *b, const char *path, unsigned mode, const void *data,
		  size_t len)
{
	struct entry e = { .nlink = 1, .data = data, .size = len };

	if (len && !data)
		return -EINVAL;
	return add(b, path, mode, S_IFREG, &e);
}

int cpio_add_dir(struct cpio_buf *b, const char *path, unsigned mode)
{
	struct entry e = { .nlink = 2 };

	return add(b, path, mode, S_IFDIR, &e);
}

int cpio_add_node(struct cpio_buf *b, const char *path, unsigned mode, unsigned major,
		  unsigned minor)
{
	struct entry e = { .nlink = 1, .rmajor = major, .rminor = minor };
	unsigned type = mode & S_IFMT;

	if (type != S_IFCHR && type != S_IFBLK)
		return -EINVAL;
	return add(b, path, mode, type, &e);
}

int cpio_add_symlink(struct cpio_buf *b, const char *path, const char *target)
{
	struct entry e = { .nlink = 1, .data = target, .size = target ? strlen(target) : 0 };

	if (!target || !target[0])
		return -EINVAL;
	return add(b, path, 0777, S_IFLNK, &e);
}

int cpio_finish(struct cpio_buf *b)
{
	struct entry e = { .name = CPIO_TRAILER, .nlink = 1, .trailer = 1 };
	int r;

	if (!b || b->finished)
		return -EINVAL;
	r = put_entry(b, &e);
	if (r == 0)
		r = buf_reserve(b, 512);
	if (r < 0)
		return r;
	buf_pad(b, 512);
	b->finished = 1;
	return 0;
}

void cpio_buf_free(struct cpio_buf *b)
{
	if (!b)
		return;
	free(b->data);
	memset(b, 0, sizeof(*b));
}
