#include "util/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int strbuf_fail(struct strbuf *sb, int err)
{
	if (!sb->err)
		sb->err = err;
	return sb->err;
}

/* Make room for `extra` more bytes plus the NUL. */
static int strbuf_reserve(struct strbuf *sb, size_t extra)
{
	size_t need, ncap;
	char *n;

	if (sb->err)
		return sb->err;
	if (extra > SIZE_MAX - sb->len - 1)
		return strbuf_fail(sb, -ENOMEM);
	need = sb->len + extra + 1;
	if (need <= sb->cap)
		return 0;
	ncap = sb->cap ? sb->cap : 256;
	while (ncap < need)
		ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
	n = realloc(sb->buf, ncap);
	if (!n)
		return strbuf_fail(sb, -ENOMEM);
	sb->buf = n;
	sb->cap = ncap;
	return 0;
}

int strbuf_appendn(struct strbuf *sb, const char *s, size_t n)
{
	int r = strbuf_reserve(sb, n);

	if (r < 0)
		return r;
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
	return 0;
}

int strbuf_append(struct strbuf *sb, const char *s)
{
	return strbuf_appendn(sb, s, strlen(s));
}

int strbuf_appendf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n, r;

	if (sb->err)
		return sb->err;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return strbuf_fail(sb, -EINVAL);
	r = strbuf_reserve(sb, (size_t)n);
	if (r < 0)
		return r;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 when it is not one.  Rejects
 * overlong forms, surrogates and code points above U+10FFFF. */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

int strbuf_append_xml(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (sb->err)
		return sb->err;
	/* Check first so a refused string leaves nothing half-written. */
	for (const unsigned char *q = p; *q;) {
		size_t n = utf8_seq_len(q);

		if (n == 0 || (*q < 0x20 && *q != '\t' && *q != '\n' && *q != '\r') || *q == 0x7f)
			return strbuf_fail(sb, -EINVAL);
		q += n;
	}
	while (*p) {
		size_t run = strcspn((const char *)p, "&<>'\"\t\n\r");
		const char *ent = NULL;

		if (run && strbuf_appendn(sb, (const char *)p, run) < 0)
			return sb->err;
		p += run;
		switch (*p) {
		case '\0':
			continue;
		case '&': ent = "&amp;"; break;
		case '<': ent = "&lt;"; break;
		case '>': ent = "&gt;"; break;
		case '\'': ent = "&apos;"; break;
		case '"': ent = "&quot;"; break;
		case '\t': ent = "&#9;"; break;  /* character references survive attribute */
		case '\n': ent = "&#10;"; break; /* value normalisation; raw ones would not */
		default: ent = "&#13;"; break;
		}
		if (strbuf_append(sb, ent) < 0)
			return sb->err;
		p++;
	}
	return 0;
}

int strbuf_take(struct strbuf *sb, char **out)
{
	int r = sb->err;

	if (r < 0) {
		strbuf_free(sb);
		return r;
	}
	if (!sb->buf) {
		r = strbuf_reserve(sb, 0);
		if (r < 0) {
			strbuf_free(sb);
			return r;
		}
		sb->buf[0] = '\0';
	}
	*out = sb->buf;
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return 0;
}

void strbuf_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	sb->err = 0;
}

int strbuf_append_csv(struct strbuf *sb, const char *s, const char *sep)
{
	const char *q;

	if (!strpbrk(s, ",\"\r\n")) {
		strbuf_append(sb, s);
		return strbuf_append(sb, sep);
	}
	strbuf_append(sb, "\"");
	for (; (q = strchr(s, '"')); s = q + 1) {
		strbuf_appendn(sb, s, (size_t)(q - s + 1));
		strbuf_append(sb, "\"");
	}
	strbuf_append(sb, s);
	strbuf_append(sb, "\"");
	return strbuf_append(sb, sep);
}
