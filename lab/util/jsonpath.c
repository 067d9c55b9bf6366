#include "util/jsonpath.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

void jsonpath_key(char *buf, size_t len, const char *prefix, const char *key)
{
	if (len == 0)
		return;
	snprintf(buf, len, "%s%s%s", prefix, prefix[0] ? "." : "", key);
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

void jsonpath_index(char *buf, size_t len, const char *prefix, size_t i)
{
	snprintf(buf, len, "%s[%zu]", prefix, i);
}

int jsonpath_check_keys(const json_t *obj, const char *prefix, const char *const *allowed,
			struct lab_error *err)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v) {
		const char *const *a = allowed;
		char p[JSONPATH_LEN];

		while (*a && strcmp(*a, key) != 0)
			a++;
		if (!*a) {
			size_t n = 0;
			const char *near;

			while (allowed[n])
				n++;
			near = text_nearest(key, allowed, n);
			jsonpath_key(p, sizeof(p), prefix, key);
			return near ? error_set(err, p, "unknown key (did you mean \"%s\"?)", near)
				    : error_set(err, p, "unknown key");
		}
	}
	return 0;
}

int jsonpath_check_object(const json_t *v, const char *path, const char *const *allowed,
			  struct lab_error *err)
{
	if (!json_is_object(v))
		return error_set(err, path, "must be an object");
	return jsonpath_check_keys(v, path, allowed, err);
}
