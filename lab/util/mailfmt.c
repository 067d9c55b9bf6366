/* RFC 5322 text: see mailfmt.h. */
#include "util/mailfmt.h"

#include <errno.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/text.h"

/* RFC 5322 2.1.1: a line SHOULD be at most 78 characters. */
#define HEADER_COLS 78

size_t mailfmt_cols(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += (*p & 0xc0) != 0x80;
	return n;
}

/* Columns of the n bytes at s. */
static size_t cols_n(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* The bytes of the longest prefix of s[0..n) of at most room columns, whole characters. */
static size_t fit_bytes(const char *s, size_t n, size_t room)
{
	size_t k = 0, c = 0;

	while (k < n && c < room) {
		k++;
		while (k < n && ((unsigned char)s[k] & 0xc0) == 0x80)
			k++;
		c++;
	}
	return k ? k : 1;
}

static int is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 0;
	return 1;
}

static int field_name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~' || *s == ':')
			return 0;
	return 1;
}

static void base64(struct strbuf *sb, const unsigned char *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char out[5] = { 0 };

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		out[0] = tab[v >> 18 & 63];
		out[1] = tab[v >> 12 & 63];
		out[2] = i + 1 < n ? tab[v >> 6 & 63] : '=';
		out[3] = i + 2 < n ? tab[v & 63] : '=';
		strbuf_append(sb, out);
	}
}

/* RFC 2047: encoded words of whole UTF-8 characters, at most 75 characters each (45 bytes
 * of text: 60 of base64 plus "=?UTF-8?B?" and "?="), one a line. */
static void encoded_words(struct strbuf *sb, const char *v)
{
	const unsigned char *p = (const unsigned char *)v;
	size_t len = strlen(v);

	while (len) {
		size_t take = 0, k;

		while (take < len && (k = text_utf8_len(p + take, len - take)) &&
		       take + k <= 45)
			take += k;
		if (!take)
			take = 1; /* not UTF-8: one byte on its own (the caller checked it is) */
		strbuf_append(sb, "=?UTF-8?B?");
		base64(sb, p, take);
		strbuf_append(sb, "?=");
		p += take;
		len -= take;
		if (len)
			strbuf_append(sb, "\n ");
	}
}

/* value folded at spaces: a fold is "\n" before the space (RFC 5322 3.2.2). */
static void folded(struct strbuf *sb, const char *value, size_t col)
{
	const char *p = value;

	while (*p) {
		const char *sp = strchr(p + 1, ' ');
		size_t word = sp ? (size_t)(sp - p) : strlen(p);

		if (p != value && *p == ' ' && col + word > HEADER_COLS) {
			strbuf_append(sb, "\n");
			col = 0;
		}
		strbuf_appendn(sb, p, word);
		col += word;
		p += word;
	}
}

int mailfmt_header(struct strbuf *sb, const char *name, const char *value)
{
	if (!field_name_ok(name) || text_has_control_chars(value) || !text_utf8_valid(value))
		return -EINVAL;
	strbuf_appendf(sb, "%s: ", name);
	if (is_ascii(value))
		folded(sb, value, strlen(name) + 2);
	else
		encoded_words(sb, value);
	strbuf_append(sb, "\n");
	return sb->err;
}

int mailfmt_address_ok(const char *s)
{
	const char *lt = strchr(s, '<'), *addr = lt ? lt + 1 : s, *at;
	size_t alen = lt ? strcspn(addr, ">") : strlen(s);

	if (!*s || text_has_control_chars(s) || !text_utf8_valid(s) || strlen(s) > 320)
		return 0;
	if (lt && (addr[alen] != '>' || addr[alen + 1] != '\0' || memchr(s, '>', (size_t)(lt - s))))
		return 0;
	if (!lt && strchr(s, '>'))
		return 0;
	at = memchr(addr, '@', alen);
	if (!at || at == addr || at == addr + alen - 1 || memchr(at + 1, '@', alen - (size_t)(at - addr) - 1))
		return 0;
	for (size_t i = 0; i < alen; i++)
		if (addr[i] <= ' ' || addr[i] > '~' || addr[i] == ',' || addr[i] == '<' ||
		    addr[i] == '"' || addr[i] == '(' || addr[i] == ')')
			return 0;
	return 1;
}

void mailfmt_fill(struct strbuf *sb, const char *text, const char *first, const char *indent,
		  size_t cols)
{
	const char *p = text, *lead = first ? first : indent;
	size_t col = 0;
	int line_open = 0;

	while (*p) {
		size_t word;

		if (*p == '\n') {
			/* a blank line in text ends a paragraph: kept */
			if (p[1] == '\n') {
				strbuf_append(sb, line_open ? "\n\n" : "\n");
				line_open = 0;
				lead = indent;
				p += 2;
				continue;
			}
			p++;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		word = strcspn(p, " \n");
		/* a word longer than a line: the most of it that fits a line of its own, cut
		 * after a ',' or '/' where one is (a JSON object, a path), else anywhere */
		if (cols_n(p, word) > cols - mailfmt_cols(indent)) {
			size_t room = cols - mailfmt_cols(indent), k = fit_bytes(p, word, room);
			size_t cut = k;

			while (cut >= room / 2 && p[cut - 1] != ',' && p[cut - 1] != '/')
				cut--;
			word = cut >= room / 2 && cut ? cut : k;
		}
		if (line_open && col + 1 + cols_n(p, word) > cols) {
			strbuf_append(sb, "\n");
			line_open = 0;
		}
		if (!line_open) {
			strbuf_append(sb, lead);
			col = mailfmt_cols(lead);
			lead = indent;
			line_open = 1;
		} else {
			strbuf_append(sb, " ");
			col++;
		}
		strbuf_appendn(sb, p, word);
		col += cols_n(p, word);
		p += word;
	}
	if (line_open)
		strbuf_append(sb, "\n");
}

/* ---- shell commands ------------------------------------------------------------------------ */

static int plain_word(const char *w)
{
	if (!*w)
		return 0;
	for (; *w; w++)
		if (!((*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z') || (*w >= '0' && *w <= '9') ||
		      strchr("_@%+=:,./-", *w)))
			return 0;
	return 1;
}

/* w quoted for the shell into sb; 1 when it may be cut with a backslash-newline (not inside
 * single quotes: a word with '!', which bash would expand inside double quotes). */
static int quote_word(struct strbuf *sb, const char *w)
{
	if (plain_word(w)) {
		strbuf_append(sb, w);
		return 1;
	}
	if (strchr(w, '!')) {
		strbuf_append(sb, "'");
		for (; *w; w++)
			strbuf_append(sb, *w == '\'' ? "'\\''" : (char[]){ *w, 0 });
		strbuf_append(sb, "'");
		return 0;
	}
	strbuf_append(sb, "\"");
	for (; *w; w++) {
		if (strchr("\"$`\\", *w))
			strbuf_append(sb, "\\");
		strbuf_appendn(sb, w, 1);
	}
	strbuf_append(sb, "\"");
	return 1;
}

/* A word longer than a line: cut into pieces of at most room columns, each but the last
 * followed by a backslash-newline (never between an escaping backslash and what it escapes,
 * nor inside a UTF-8 character); the pieces after the first start at column 0, since the
 * shell would keep any indentation as part of the word.  Returns the last piece's end column.
 * Every piece leaves 3 columns free: its backslash, or " \" after the last. */
static size_t cut_word(struct strbuf *sb, const char *q, size_t len, size_t col, size_t cols)
{
	size_t room = cols - col - 3;

	while (len) {
		size_t take = len <= room ? len : room;

		while (take < len && take > 1 && (((unsigned char)q[take] & 0xc0) == 0x80 ||
						  q[take - 1] == '\\'))
			take--;
		strbuf_appendn(sb, q, take);
		col += cols_n(q, take);
		q += take;
		len -= take;
		if (len) {
			strbuf_append(sb, "\\\n");
			col = 0;
			room = cols - 3;
		}
	}
	return col;
}

/* Columns of a word once quoted. */
static size_t shell_cols(const char *w)
{
	_cleanup_strbuf_ struct strbuf q = STRBUF_INIT;

	quote_word(&q, w);
	return q.buf ? cols_n(q.buf, q.len) : 0;
}

void mailfmt_shell(struct strbuf *sb, const char *const *argv, const char *indent, size_t cols)
{
	size_t ind = mailfmt_cols(indent), col = ind, fresh = ind + 2;

	strbuf_append(sb, indent);
	for (size_t i = 0; argv[i]; i++) {
		_cleanup_strbuf_ struct strbuf w = STRBUF_INIT;
		int cuttable = quote_word(&w, argv[i]);
		size_t wc = w.buf ? cols_n(w.buf, w.len) : 0, unit = wc;

		if (!w.buf)
			continue;
		/* An option and its value ("--boots 3") go on one line when a line holds them. */
		if (argv[i][0] == '-' && argv[i + 1] && argv[i + 1][0] != '-' &&
		    fresh + wc + 1 + shell_cols(argv[i + 1]) + 2 <= cols)
			unit += 1 + shell_cols(argv[i + 1]);
		/* " word", and " \" after it when more follows: a new line when it does not fit
		 * and would on a line of its own */
		if (i && col + 1 + unit + 2 > cols && (fresh + unit + 2 <= cols || col > fresh)) {
			strbuf_appendf(sb, " \\\n%s  ", indent);
			col = fresh;
		} else if (i) {
			strbuf_append(sb, " ");
			col++;
		}
		if (cuttable && col + wc + 2 > cols && cols > col + 8) {
			col = cut_word(sb, w.buf, w.len, col, cols);
			continue;
		}
		strbuf_append(sb, w.buf);
		col += wc;
	}
	strbuf_append(sb, "\n");
}

int mailfmt_mbox(const char *msg, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	int in_body = 0;

	strbuf_append(&sb, "From numalab Thu Jan  1 00:00:00 1970\n");
	for (const char *p = msg; *p;) {
		size_t n = strcspn(p, "\n");

		if (in_body && !strncmp(p, "From ", 5))
			strbuf_append(&sb, ">");
		if (!n)
			in_body = 1;
		strbuf_appendn(&sb, p, n + (p[n] == '\n'));
		p += n + (p[n] == '\n');
	}
	strbuf_append(&sb, "\n");
	return strbuf_take(&sb, out);
}
