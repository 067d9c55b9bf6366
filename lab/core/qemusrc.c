/* The contention model's QEMU: its source in apt's index and the key of a build.  Pure. */
#include "core/qemusrc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/sha256.h"
#include "util/strbuf.h"

static int is_hex64(const char *s)
{
	if (strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

static int is_orig(const char *name)
{
	return ends_with(name, ".orig.tar.xz") || ends_with(name, ".orig.tar.gz") ||
	       ends_with(name, ".orig.tar.bz2");
}

/* One "'URL' NAME SIZE SHA256:HEX" line into out; 1 when it is the orig tarball, 0 when it is
 * another file, -EINVAL when malformed. */
static int parse_line(const char *line, size_t len, struct qemusrc_file *out)
{
	char buf[2048], *url, *end, *name, *size, *sum, *save = NULL;

	if (len == 0 || line[0] != '\'')
		return 0; /* apt's other output ("Need to get ...") */
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, len);
	buf[len] = '\0';
	url = buf + 1;
	end = strchr(url, '\'');
	if (!end)
		return -EINVAL;
	*end = '\0';
	name = strtok_r(end + 1, " \t", &save);
	size = strtok_r(NULL, " \t", &save);
	sum = strtok_r(NULL, " \t", &save);
	if (!name || !size || !sum || strtok_r(NULL, " \t", &save))
		return -EINVAL;
	if (!is_orig(name))
		return 0;
	if ((strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) || strchr(name, '/') ||
	    strncmp(sum, "SHA256:", 7) || !is_hex64(sum + 7) || strlen(url) >= sizeof(out->url) ||
	    strlen(name) >= sizeof(out->name))
		return -EINVAL;
	errno = 0;
	out->size = strtoull(size, &end, 10);
	if (errno || *end || end == size)
		return -EINVAL;
	snprintf(out->url, sizeof(out->url), "%s", url);
	snprintf(out->name, sizeof(out->name), "%s", name);
	snprintf(out->sha256, sizeof(out->sha256), "%s", sum + 7);
	return 1;
}

int qemusrc_parse_uris(const char *text, struct qemusrc_file *out)
{
	if (!text || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	while (*text) {
		size_t len = strcspn(text, "\n");
		int r = parse_line(text, len, out);

		if (r != 0)
			return r < 0 ? r : 0;
		text += len + (text[len] == '\n');
	}
	return -ENOENT;
}

/* Inputs are single lines: a newline inside one would let two inputs collide. */
static int line(struct strbuf *sb, const char *name, const char *value)
{
	if (!value || strchr(value, '\n'))
		return -EINVAL;
	return strbuf_appendf(sb, "%s %s\n", name, value);
}

int qemusrc_key(const struct qemusrc_input *in, char out[65])
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;
	int r;

	if (!in || !out || in->nr_patches > QEMUSRC_MAX_PATCHES || !in->orig_sha256 ||
	    !is_hex64(in->orig_sha256))
		return -EINVAL;
	r = line(&sb, "key", "numalab.qemu-build/1");
	if (r == 0)
		r = line(&sb, "version", in->version);
	if (r == 0)
		r = line(&sb, "orig", in->orig_sha256);
	for (unsigned i = 0; r == 0 && i < in->nr_patches; i++)
		r = is_hex64(in->patch_sha256[i]) ? line(&sb, "patch", in->patch_sha256[i]) : -EINVAL;
	for (unsigned i = 0; r == 0 && i < in->nr_configure; i++)
		r = line(&sb, "configure", in->configure[i]);
	if (r == 0)
		r = line(&sb, "compiler", in->compiler);
	if (r == 0)
		r = strbuf_take(&sb, &text);
	if (r < 0)
		return r;
	return sha256_hex(text, strlen(text), out);
}
