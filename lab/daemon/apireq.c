/* The request checks of labd's API that need no connection (apireq.h). */
#include "daemon/apireq.h"

#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/alerts.h"
#include "util/text.h"

int apireq_id(const char *s, size_t len, int64_t *id)
{
	int64_t v = 0;

	if (len == 0 || len > 18)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	if (v <= 0)
		return -EINVAL;
	*id = v;
	return 0;
}

int apireq_number(const char *v, int64_t def, int64_t *out)
{
	*out = def;
	if (!v)
		return 0;
	if (strcmp(v, "0") == 0)
		return *out = 0, 0;
	return apireq_id(v, strlen(v), out);
}

int apireq_job_path(const char *rest, int64_t *id, const char **sub)
{
	const char *slash = strchr(rest, '/');
	size_t idlen = slash ? (size_t)(slash - rest) : strlen(rest);

	*sub = slash ? slash + 1 : "";
	return apireq_id(rest, idlen, id);
}

int apireq_token_eq(const char *token, const char *given)
{
	size_t n, m;
	unsigned char diff = 0;

	if (!token[0])
		return 1;
	if (!given)
		return 0;
	n = strlen(given);
	m = strlen(token);
	/* Constant time in the token's content. */
	for (size_t i = 0; i < m; i++)
		diff |= (unsigned char)(token[i] ^ (i < n ? given[i] : 0));
	return diff == 0 && n == m;
}

int apireq_bearer_ok(const char *token, const char *header)
{
	if (!token[0])
		return 1;
	if (!header || strncmp(header, "Bearer ", 7) != 0)
		return 0;
	return apireq_token_eq(token, header + 7);
}

int apireq_length_over(const char *content_length, unsigned long long max)
{
	return content_length && strtoull(content_length, NULL, 10) > max;
}

int apireq_alert(const struct json_t *cj, struct apireq_alert *out, char *msg, size_t len)
{
	static const char *const keys[] = { "state", "note", "by", "commit" };
	json_t *j = (json_t *)cj, *v;
	const char *k;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j))
		return snprintf(msg, len, "body: must be a JSON object"), -EINVAL;
	json_object_foreach(j, k, v) {
		size_t i = 0;

		while (i < 4 && strcmp(k, keys[i]))
			i++;
		if (i == 4)
			return snprintf(msg, len, "%.64s: unknown key (state, note, by, commit)", k),
			       -EINVAL;
		if (!json_is_string(v) || text_has_control_chars(json_string_value(v)))
			return snprintf(msg, len, "%s: must be a string without control characters",
					k), -EINVAL;
	}
	out->state = alert_state_from_name(json_string_value(json_object_get(j, "state")));
	if (out->state < 0)
		return snprintf(msg, len, "state: must be new, acknowledged, invalid or fixed"),
		       -EINVAL;
	out->note = json_string_value(json_object_get(j, "note"));
	out->by = json_string_value(json_object_get(j, "by"));
	out->commit = json_string_value(json_object_get(j, "commit"));
	if (out->state == ALERT_FIXED && !out->commit)
		return snprintf(msg, len, "commit: needed when the state is fixed"), -EINVAL;
	return 0;
}

int apireq_cookie(const char *header, const char *name, char *out, size_t len)
{
	size_t nl = strlen(name);

	for (const char *p = header; p && *p;) {
		size_t vl;

		while (*p == ' ' || *p == ';')
			p++;
		vl = strcspn(p, ";");
		if (vl > nl && !strncmp(p, name, nl) && p[nl] == '=') {
			if (vl - nl - 1 >= len)
				return -E2BIG;
			memcpy(out, p + nl + 1, vl - nl - 1);
			out[vl - nl - 1] = 0;
			return 0;
		}
		p += vl;
	}
	return -ENOENT;
}

int apireq_cookie_safe(const char *s)
{
	for (; *s; s++)
		if (*s <= 0x20 || *s >= 0x7f || *s == '"' || *s == ',' || *s == ';' || *s == '\\')
			return 0;
	return 1;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int apireq_form(const char *body, size_t len, const char *name, char *out, size_t outlen)
{
	size_t nl = strlen(name), i = 0;

	while (i < len) {
		size_t end = i, o = 0;

		while (end < len && body[end] != '&')
			end++;
		if (end - i > nl && !memcmp(body + i, name, nl) && body[i + nl] == '=') {
			for (size_t k = i + nl + 1; k < end; k++) {
				int c = (unsigned char)body[k];

				if (c == '+') {
					c = ' ';
				} else if (c == '%') {
					int hi = k + 2 < end ? hexval(body[k + 1]) : -1;
					int lo = k + 2 < end ? hexval(body[k + 2]) : -1;

					if (hi < 0 || lo < 0)
						return -EINVAL;
					c = hi * 16 + lo;
					k += 2;
				}
				if (c < 0x20 || c == 0x7f)
					return -EINVAL;
				if (o + 1 >= outlen)
					return -E2BIG;
				out[o++] = (char)c;
			}
			out[o] = 0;
			return 0;
		}
		i = end + 1;
	}
	return -ENOENT;
}

int apireq_same_origin(const char *origin, const char *host)
{
	return origin && host && host[0] && !strncmp(origin, "http://", 7) &&
	       !strcmp(origin + 7, host);
}
