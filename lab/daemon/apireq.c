/* The request checks of labd's API that need no connection (apireq.h). */
#include "daemon/apireq.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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

int apireq_bearer_ok(const char *token, const char *header)
{
	const char *h = header;
	size_t n, m;
	unsigned char diff = 0;

	if (!token[0])
		return 1;
	if (!h || strncmp(h, "Bearer ", 7) != 0)
		return 0;
	h += 7;
	n = strlen(h);
	m = strlen(token);
	/* Constant time in the token's content. */
	for (size_t i = 0; i < m; i++)
		diff |= (unsigned char)(token[i] ^ (i < n ? h[i] : 0));
	return diff == 0 && n == m;
}

int apireq_length_over(const char *content_length, unsigned long long max)
{
	return content_length && strtoull(content_length, NULL, 10) > max;
}
