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
