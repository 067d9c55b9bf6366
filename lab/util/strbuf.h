/* A small growable string buffer for building text (XML, reports).
 *
 * Errors are sticky: after the first failed append every later append is a no-op and
 * strbuf_take() returns that error, so builders can append freely and check once. */
#pragma once
#include <stddef.h>

struct strbuf {
	char *buf;  /* NUL-terminated when non-NULL */
	size_t len; /* bytes used, excluding the NUL */
	size_t cap; /* bytes allocated */
	int err;    /* 0 or the first negative errno */
};

#define STRBUF_INIT {.buf = NULL, .len = 0, .cap = 0, .err = 0}

int strbuf_append(struct strbuf *sb, const char *s);
int strbuf_appendn(struct strbuf *sb, const char *s, size_t n);
int strbuf_appendf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append s escaped for XML text or attribute values (& < > ' ").  Refuses (-EINVAL) strings
 * XML 1.0 cannot carry: control characters other than tab/newline/CR, DEL, and invalid UTF-8. */
int strbuf_append_xml(struct strbuf *sb, const char *s);
/* s as one CSV field (RFC 4180): quoted, its quotes doubled, when it holds a comma, a quote
 * or a line break; then sep (",", or "\r\n" after a row's last field). */
int strbuf_append_csv(struct strbuf *sb, const char *s, const char *sep);
/* Hand the string to the caller (never NULL on success, "" when empty) and reset sb; on a sticky
 * error free the buffer and return the error. */
int strbuf_take(struct strbuf *sb, char **out);
void strbuf_free(struct strbuf *sb);

static inline void cleanup_strbuf(struct strbuf *sb)
{
	strbuf_free(sb);
}
#define _cleanup_strbuf_ __attribute__((cleanup(cleanup_strbuf)))
