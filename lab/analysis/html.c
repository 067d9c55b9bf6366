/* HTML escaping for the dashboard: see html.h. */
#include "analysis/html.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/cleanup.h"
#include "util/text.h"

void html_escape(struct strbuf *sb, const char *s)
{
	const char *start = s;

	if (!s)
		return;
	for (; *s; s++) {
		const char *rep = NULL;
		unsigned char c = (unsigned char)*s;
		size_t n;

		/* A valid multi-byte character as it is; a byte of none (a guest's console, a
		 * file name) as U+FFFD, so that the page stays UTF-8 and no byte can start a
		 * sequence that swallows the markup after it.  The string ends in a NUL, which
		 * no sequence takes: 4 bytes are never read beyond it. */
		if (c >= 0x80) {
			n = text_utf8_len((const unsigned char *)s, 4);
			if (n > 1) {
				s += n - 1;
				continue;
			}
			rep = "\xef\xbf\xbd";
		}
		switch (c) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default:
			if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
				rep = "\xef\xbf\xbd";
		}
		if (!rep)
			continue;
		strbuf_appendn(sb, start, (size_t)(s - start));
		strbuf_append(sb, rep);
		start = s + 1;
	}
	strbuf_appendn(sb, start, (size_t)(s - start));
}

void html_script_json(struct strbuf *sb, const char *json)
{
	const char *start = json, *s = json;

	for (; *s; s++) {
		if (*s != '<' && *s != '>' && *s != '&')
			continue;
		strbuf_appendn(sb, start, (size_t)(s - start));
		strbuf_appendf(sb, "\\u%04x", (unsigned)*s);
		start = s + 1;
	}
	strbuf_appendn(sb, start, (size_t)(s - start));
}

void html_escapef(struct strbuf *sb, const char *fmt, ...)
{
	_cleanup_free_ char *t = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->err = sb->err ? sb->err : -ENOMEM;
		return;
	}
	html_escape(sb, t);
}
