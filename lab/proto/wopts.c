#include "proto/wopts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"

void wopts_name(const char *name, char *buf, size_t len)
{
	if (len == 0)
		return;
	snprintf(buf, len, "%s", name);
	for (char *q = buf; *q; q++)
		*q = *q == '_' ? '-' : *q;
}

const struct workload_param *wopts_find(const struct workload_def *w, const char *opt)
{
	char name[WOPTS_NAME_LEN];

	for (size_t i = 0; i < w->nr_params; i++) {
		wopts_name(w->params[i].name, name, sizeof(name));
		if (strcmp(name, opt) == 0)
			return &w->params[i];
	}
	return NULL;
}

/* A whole decimal integer, optionally negative (the range check is workload_params'). */
static int wopts_integer(const char *s, long long *out)
{
	const char *d = s[0] == '-' ? s + 1 : s;
	char *end;

	if (!*d || strspn(d, "0123456789") != strlen(d))
		return -EINVAL;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno ? -ERANGE : 0;
}

/* "1,2,4" -> [1, 2, 4]; NULL when an element is not an integer (the caller keeps the string). */
static json_t *wopts_int_list(const char *s)
{
	_cleanup_json_ json_t *arr = json_array();
	_cleanup_free_ char *copy = strdup(s);
	char *p = copy;

	if (!arr || !copy || !*s)
		return NULL;
	for (;;) {
		char *comma = strchr(p, ',');
		long long v;

		if (comma)
			*comma = '\0';
		if (wopts_integer(p, &v) < 0 || json_array_append_new(arr, json_integer(v)) < 0)
			return NULL;
		if (!comma)
			break;
		p = comma + 1;
	}
	return TAKE_PTR(arr);
}

int wopts_set(json_t *raw, const struct workload_param *p, const char *arg)
{
	json_t *v = NULL;
	long long x;

	switch (p->type) {
	case WORKLOAD_PARAM_BOOL:
		v = json_true();
		break;
	case WORKLOAD_PARAM_INT:
		v = wopts_integer(arg, &x) == 0 ? json_integer(x) : json_string(arg);
		break;
	case WORKLOAD_PARAM_TASKS:
		if (strcmp(arg, "per-cpu") && strcmp(arg, "pow2"))
			v = wopts_int_list(arg);
		if (!v)
			v = json_string(arg);
		break;
	case WORKLOAD_PARAM_ENUM:
	case WORKLOAD_PARAM_STRING:
		v = json_string(arg);
		break;
	}
	/* Not valid UTF-8 makes json_string() fail: an empty string is as wrong, and refused. */
	if (!v)
		v = json_string("");
	return v && json_object_set_new(raw, p->name, v) == 0 ? 0 : -ENOMEM;
}

void wopts_path_option(const char *path, char *buf, size_t len)
{
	char name[WOPTS_NAME_LEN];
	size_t n = strcspn(path, ".[");

	snprintf(name, sizeof(name), "%.*s", (int)(n < sizeof(name) ? n : sizeof(name) - 1), path);
	for (char *q = name; *q; q++)
		*q = *q == '_' ? '-' : *q;
	snprintf(buf, len, "--%s", name);
}

static void wopts_choices(const char *const *c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; c[i] && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? "|" : "", c[i]);

		if (w < 0)
			return;
		used += (size_t)w;
	}
}

void wopts_arg(const struct workload_param *p, char *buf, size_t len)
{
	char ch[256];

	if (len == 0)
		return;
	buf[0] = '\0';
	switch (p->type) {
	case WORKLOAD_PARAM_ENUM:
		wopts_choices(p->choices, ch, sizeof(ch));
		snprintf(buf, len, "%s (default %s)", ch, p->choices[0]);
		break;
	case WORKLOAD_PARAM_INT:
		snprintf(buf, len, "%lld..%lld (default %lld)", p->min, p->max, p->def);
		break;
	case WORKLOAD_PARAM_TASKS:
		snprintf(buf, len, "N[,N...]|per-cpu|pow2 (default per-cpu)");
		break;
	case WORKLOAD_PARAM_STRING:
		snprintf(buf, len, "STRING (default %s)", p->def_str);
		break;
	case WORKLOAD_PARAM_BOOL:
		break;
	}
}

const char *wopts_string(const json_t *params, const char *name)
{
	return json_string_value(json_object_get(params, name));
}

long long wopts_int(const json_t *params, const char *name)
{
	return (long long)json_integer_value(json_object_get(params, name));
}

int wopts_bool(const json_t *params, const char *name)
{
	return json_is_true(json_object_get(params, name));
}

int wopts_enum(const struct workload_def *w, const json_t *params, const char *name)
{
	const char *s = json_string_value(json_object_get(params, name));

	for (size_t i = 0; s && i < w->nr_params; i++) {
		const struct workload_param *p = &w->params[i];

		if (p->type != WORKLOAD_PARAM_ENUM || strcmp(p->name, name))
			continue;
		for (int k = 0; p->choices[k]; k++)
			if (strcmp(p->choices[k], s) == 0)
				return k;
	}
	return -1;
}
