#include "rt_perfstat.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"
#include "util/fs.h"

int rt_perfstat_wrap(char ***argv, const json_t *events, const char *out_file)
{
	size_t n = 0, i, k = 0;
	char **old = *argv, **nv, *list;
	json_t *e;

	if (!json_is_array(events) || json_array_size(events) == 0)
		return -EINVAL;
	if (access(RT_PERF_BIN, X_OK) < 0)
		return 0;
	while (old[n])
		n++;
	nv = calloc(n + 10, sizeof(char *));
	list = calloc(json_array_size(events), 65);
	if (!nv || !list) {
		free(nv);
		free(list);
		return -ENOMEM;
	}
	json_array_foreach(events, i, e) {
		if (i)
			strcat(list, ",");
		strncat(list, json_string_value(e), 64);
	}
	/* rt_argv_free frees every string: each must be our own copy. */
	const char *pre[] = { RT_PERF_BIN, "stat", "-x", ",", "-o", out_file, "-e", list, "--" };

	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!(nv[k++] = strdup(pre[i])))
			goto oom;
	for (i = 0; i < n; i++)
		nv[k++] = old[i];
	nv[k] = NULL;
	free(old);
	free(list);
	*argv = nv;
	return 1;
oom:
	for (i = 0; i < k; i++)
		free(nv[i]);
	free(nv);
	free(list);
	return -ENOMEM;
}

/* One CSV line: "VALUE,UNIT,EVENT,RUNTIME,PCT,METRIC,METRIC-UNIT"; VALUE may be
 * "<not supported>" or "<not counted>". */
static void parse_line(char *line, json_t *counters, json_t *unsupported)
{
	char *f[3], *p = line, *end;
	double v;

	for (int i = 0; i < 3; i++) {
		f[i] = p;
		p = strchr(p, ',');
		if (!p && i < 2)
			return;
		if (p)
			*p++ = '\0';
	}
	if (!f[2][0] || strlen(f[2]) > 64 || strlen(f[1]) > 16)
		return;
	rt_utf8_sanitize(f[2], strlen(f[2]));
	rt_utf8_sanitize(f[1], strlen(f[1]));
	if (f[0][0] == '<') {
		json_array_append_new(unsupported, json_string(f[2]));
		return;
	}
	v = strtod(f[0], &end);
	if (end == f[0] || *end || !isfinite(v))
		return;
	json_object_set_new(counters, f[2],
			    json_pack("{s:f,s:s}", "value", v, "unit", f[1][0] ? f[1] : "count"));
}

json_t *rt_perfstat_parse(const char *text)
{
	json_t *counters = json_object(), *unsupported = json_array();
	char *copy = strdup(text ? text : ""), *save = NULL;
	unsigned lines = 0;

	if (!copy || !counters || !unsupported) {
		free(copy);
		json_decref(counters);
		json_decref(unsupported);
		return NULL;
	}
	for (char *l = strtok_r(copy, "\n", &save); l && lines < 4 * RT_PERF_MAX_EVENTS;
	     l = strtok_r(NULL, "\n", &save)) {
		if (l[0] == '#' || !l[0])
			continue;
		lines++;
		parse_line(l, counters, unsupported);
	}
	free(copy);
	return json_pack("{s:o,s:o}", "counters", counters, "unsupported", unsupported);
}

json_t *rt_perfstat_result(int wrapped, const char *out_file)
{
	_cleanup_free_ char *text = NULL;
	char why[256];
	int r;

	if (!wrapped)
		return json_pack("{s:s}", "error", "perf is not in the image (" RT_PERF_BIN ")");
	r = fs_read_file(out_file, RT_PERF_OUT_MAX, &text, NULL);
	if (r < 0) {
		snprintf(why, sizeof(why), "perf stat wrote no counters (%s: %s); see stderr",
			 out_file, strerror(-r));
		return json_pack("{s:s}", "error", why);
	}
	return rt_perfstat_parse(text);
}
