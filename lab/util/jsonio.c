#include "util/jsonio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/fs.h"

int jsonio_load_buf(const char *buf, size_t len, json_t **out, struct lab_error *err)
{
	json_error_t je;
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);

	if (!j)
		return error_set(err, "", "invalid JSON at line %d column %d: %s", je.line,
				 je.column, je.text);
	*out = j;
	return 0;
}

int jsonio_load_file(const char *path, size_t max, json_t **out, struct lab_error *err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	error_set_file(err, path);
	r = fs_read_file(path, max, &buf, &len);
	if (r == -EFBIG)
		return error_set(err, "", "file larger than %zu bytes", max);
	if (r < 0) {
		error_set(err, "", "cannot read: %s", strerror(-r));
		return r;
	}
	return jsonio_load_buf(buf, len, out, err);
}

int jsonio_load_string(const char *s, json_t **out, struct lab_error *err)
{
	return jsonio_load_buf(s, strlen(s), out, err);
}

int jsonio_load_doc(const char *text, size_t len, size_t max, const char *schema, json_t **out,
		    struct lab_error *err)
{
	json_error_t je;
	json_t *j;
	const char *s;

	*out = NULL;
	if (len > max)
		return error_set(err, "", "more than %zu bytes", max);
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return error_set(err, "", "not JSON: %s (line %d)", je.text, je.line);
	s = json_string_value(json_object_get(j, "schema"));
	if (!json_is_object(j) || !s || strcmp(s, schema)) {
		json_decref(j);
		return error_set(err, "schema", "must be \"%s\"", schema);
	}
	*out = j;
	return 0;
}

char *jsonio_dumps(const json_t *j)
{
	return json_dumps(j, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10));
}

int jsonio_write_file(const char *path, const json_t *j)
{
	_cleanup_free_ char *s = jsonio_dumps(j);
	size_t len;

	if (!s)
		return -ENOMEM;
	len = strlen(s);
	/* json_dumps leaves room only for the NUL; add the newline by hand. */
	char *t = realloc(s, len + 2);

	if (!t)
		return -ENOMEM;
	s = t;
	s[len] = '\n';
	s[len + 1] = '\0';
	return fs_write_atomic(path, s, len + 1);
}
