#include "util/text.h"
#include <string.h>

int text_has_control_chars(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

void text_clean_copy(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src[i] && i + 1 < len; i++)
		dst[i] = (unsigned char)src[i] < 0x20 || src[i] == 0x7f ? '?' : src[i];
	/* Cut: back off to the start of the sequence the cut went through (continuation bytes
	 * are 10xxxxxx). */
	if (src[i])
		while (i > 0 && ((unsigned char)src[i] & 0xc0) == 0x80)
			i--;
	dst[i] = '\0';
}

size_t text_utf8_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t need;
	unsigned char lo = 0x80, hi = 0xBF;

	if (c >= 0x01 && c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		need = 1;
	else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		if (c == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		if (c == 0xF0)
			lo = 0x90; /* overlong */
		if (c == 0xF4)
			hi = 0x8F; /* > U+10FFFF */
	} else
		return 0;
	if (need >= avail)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i <= need; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return need + 1;
}

void text_utf8_sanitize(char *s, size_t len)
{
	unsigned char *u = (unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t k = text_utf8_len(u + i, len - i);

		if (k == 0) {
			u[i++] = '?';
			continue;
		}
		i += k;
	}
}

int text_utf8_valid(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0, k; i < n; i += k)
		if (!(k = text_utf8_len((const unsigned char *)s + i, n - i)))
			return 0;
	return 1;
}

/* Optimal string alignment over three rows of the table; the lengths are bounded, so the
 * rows live on the stack. */
unsigned text_distance(const char *a, const char *b)
{
	unsigned rows[3][TEXT_DISTANCE_MAX + 2], *pp = rows[0], *p = rows[1], *c = rows[2];
	size_t la = strlen(a), lb = strlen(b);

	if (la > TEXT_DISTANCE_MAX || lb > TEXT_DISTANCE_MAX)
		return TEXT_DISTANCE_MAX + 1;
	for (size_t j = 0; j <= lb; j++)
		p[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned *t;

		c[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned sub = p[j - 1] + (a[i - 1] != b[j - 1]);
			unsigned del = p[j] + 1, ins = c[j - 1] + 1;
			unsigned m = sub < del ? sub : del;

			m = m < ins ? m : ins;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < m)
				m = pp[j - 2] + 1;
			c[j] = m;
		}
		t = pp, pp = p, p = c, c = t;
	}
	return p[lb];
}

const char *text_nearest(const char *name, const char *const *cands, size_t n)
{
	const char *best = NULL;
	unsigned bd = 3, len = (unsigned)strlen(name);

	for (size_t i = 0; i < n; i++) {
		unsigned d = text_distance(name, cands[i]);

		/* one edit in a word of 3 or more, two in one of 6 or more: "nice" is not "name" */
		if (d && d < bd && d * 3 <= len)
			bd = d, best = cands[i];
	}
	return best;
}

const char *text_last_line(char *out)
{
	char *e, *s;

	if (!out)
		return "";
	e = out + strlen(out);
	while (e > out && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' '))
		*--e = '\0';
	s = strrchr(out, '\n');
	return s ? s + 1 : out;
}
