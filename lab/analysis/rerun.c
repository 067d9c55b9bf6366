/* A report against its re-run, figure by figure (analysis/rerun.h).  Pure. */
#include "analysis/rerun.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* The NUMA cost model's counts a run's figures include (reports/SCHEMA.md, numa_cost). */
static const char *const numa_counts[] = {
	"charged", "accesses", "transfers_local", "transfers_remote", "invalidations",
	"forwarded", "directory_full", "lines", "stall_failed", NULL,
};

static void number_text(const json_t *v, char *buf, size_t len)
{
	if (json_is_integer(v)) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(buf, len, "%.15g", json_real_value(v));
		if (strtod(buf, NULL) != json_real_value(v)) /* the digits that tell them apart */
			snprintf(buf, len, "%.17g", json_real_value(v));
	} else {
		snprintf(buf, len, "%s", v ? "(not a number)" : "(absent)");
	}
}

/* One figure: equal, or the first difference said in d->first with where. */
static int figure(struct rerun_diff *d, const char *where, const json_t *a, const json_t *b)
{
	char x[48], y[48], pct[48] = "";

	d->figures++;
	if (json_equal((json_t *)a, (json_t *)b) || (!a && !b))
		return 0;
	if (!d->identical)
		return 1;
	number_text(a, x, sizeof(x));
	number_text(b, y, sizeof(y));
	if (json_is_number(a) && json_is_number(b) && json_number_value(a) != 0)
		snprintf(pct, sizeof(pct), " (%+.4g %%)",
			 100.0 * (json_number_value(b) - json_number_value(a)) /
				 fabs(json_number_value(a)));
	snprintf(d->first, sizeof(d->first), "%s: %s, then %s%s", where, x, y, pct);
	d->identical = 0;
	return 1;
}

static void results(struct rerun_diff *d, const char *run, const json_t *wa, const json_t *wb)
{
	const json_t *ra = json_object_get(wa, "results"), *rb = json_object_get(wb, "results");
	const json_t *r, *v;
	const char *m;
	size_t i;
	char where[400];

	json_array_foreach(ra, i, r) {
		const json_t *s = json_array_get(rb, i);

		json_object_foreach((json_t *)json_object_get(r, "metrics"), m, v) {
			snprintf(where, sizeof(where), "%s, %s %lld tasks %s", run,
				 str(wa, "name"), (long long)json_integer_value(
					 json_object_get(r, "tasks")), m);
			figure(d, where, json_object_get(v, "value"),
			       json_object_get(json_object_get(json_object_get(s, "metrics"), m),
					       "value"));
		}
	}
	if (json_array_size(ra) != json_array_size(rb)) {
		_cleanup_json_ json_t *x = json_integer((json_int_t)json_array_size(ra));
		_cleanup_json_ json_t *y = json_integer((json_int_t)json_array_size(rb));

		snprintf(where, sizeof(where), "%s, %s: how many results", run, str(wa, "name"));
		figure(d, where, x, y);
	}
	json_object_foreach((json_t *)json_object_get(json_object_get(wa, "perf_stat"), "counters"),
			    m, v) {
		snprintf(where, sizeof(where), "%s, %s perf counter %s", run, str(wa, "name"), m);
		figure(d, where, json_object_get(v, "value"),
		       json_object_get(json_object_get(json_object_get(json_object_get(
					       wb, "perf_stat"), "counters"), m), "value"));
	}
}

static void one_run(struct rerun_diff *d, const json_t *a, const json_t *b)
{
	const json_t *wa = json_object_get(a, "workloads"), *w;
	const json_t *na = json_object_get(a, "numa_cost"), *nb = json_object_get(b, "numa_cost");
	char run[160], where[240];
	size_t i;

	snprintf(run, sizeof(run), "run %lld (kernel %s, seed %lld)",
		 (long long)json_integer_value(json_object_get(a, "index")),
		 str(json_object_get(a, "kernel"), "label"),
		 (long long)json_integer_value(json_object_get(a, "seed")));
	if (strcmp(str(a, "status"), str(b, "status")) && d->identical) {
		snprintf(d->first, sizeof(d->first), "%s: status %s, then %s (%s)", run,
			 str(a, "status"), str(b, "status"), str(b, "reason"));
		d->identical = 0;
	}
	json_array_foreach(wa, i, w)
		results(d, run, w, json_array_get(json_object_get(b, "workloads"), i));
	for (i = 0; na && numa_counts[i]; i++) {
		snprintf(where, sizeof(where), "%s, NUMA cost model %s", run, numa_counts[i]);
		figure(d, where, json_object_get(na, numa_counts[i]),
		       json_object_get(nb, numa_counts[i]));
	}
}

/* What ran differently, as far as the reports say. */
static void inputs(struct rerun_diff *d, const json_t *a, const json_t *b)
{
	static const char *const kernel_keys[] = {"image_sha256", "config_sha256", NULL};
	const json_t *ka = json_object_get(a, "kernel"), *kb = json_object_get(b, "kernel");
	const json_t *ta = json_object_get(json_object_get(a, "host"), "timing");
	const json_t *tb = json_object_get(json_object_get(b, "host"), "timing");
	size_t n = strlen(d->inputs);

	for (int k = 0; kernel_keys[k]; k++)
		if (*str(ka, kernel_keys[k]) && *str(kb, kernel_keys[k]) &&
		    strcmp(str(ka, kernel_keys[k]), str(kb, kernel_keys[k])) &&
		    !strstr(d->inputs, str(ka, "label")))
			n += (size_t)snprintf(d->inputs + n, n < sizeof(d->inputs) ?
					      sizeof(d->inputs) - n : 0,
					      "%skernel %s: %s %.12s, then %.12s", n ? "; " : "",
					      str(ka, "label"), kernel_keys[k],
					      str(ka, kernel_keys[k]), str(kb, kernel_keys[k]));
	if (n < sizeof(d->inputs) && *str(ta, "qemu_build") &&
	    strcmp(str(ta, "qemu_build"), str(tb, "qemu_build")) && !strstr(d->inputs, "QEMU"))
		snprintf(d->inputs + n, sizeof(d->inputs) - n, "%sthe QEMU build %.12s, then %.12s",
			 n ? "; " : "", str(ta, "qemu_build"), str(tb, "qemu_build"));
}

int rerun_compare(const json_t *orig, const json_t *again, struct rerun_diff *d)
{
	const json_t *ra = json_object_get(orig, "runs"), *rb = json_object_get(again, "runs");
	const json_t *la = json_object_get(orig, "lab"), *lb = json_object_get(again, "lab");
	size_t n = json_array_size(ra) < json_array_size(rb) ? json_array_size(ra)
							      : json_array_size(rb);

	memset(d, 0, sizeof(*d));
	d->identical = 1;
	for (size_t i = 0; i < n; i++) {
		const json_t *a = json_array_get(ra, i), *b = json_array_get(rb, i);

		if (strcmp(str(json_object_get(a, "kernel"), "label"),
			   str(json_object_get(b, "kernel"), "label")) ||
		    !json_equal(json_object_get(a, "seed"), json_object_get(b, "seed"))) {
			snprintf(d->first, sizeof(d->first), "run %zu: kernel %s seed %lld, then "
				 "kernel %s seed %lld: not a re-run of the same boots", i,
				 str(json_object_get(a, "kernel"), "label"),
				 (long long)json_integer_value(json_object_get(a, "seed")),
				 str(json_object_get(b, "kernel"), "label"),
				 (long long)json_integer_value(json_object_get(b, "seed")));
			d->identical = 0;
			return -EINVAL;
		}
		one_run(d, a, b);
		inputs(d, a, b);
		d->runs++;
	}
	if (strcmp(str(la, "commit"), str(lb, "commit")) && strlen(d->inputs) < 400) {
		size_t k = strlen(d->inputs);

		snprintf(d->inputs + k, sizeof(d->inputs) - k, "%sthe lab %s %s, then %s %s",
			 k ? "; " : "", str(la, "version"), str(la, "commit"), str(lb, "version"),
			 str(lb, "commit"));
	}
	return 0;
}
