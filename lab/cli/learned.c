/* Learned thresholds of noise from the history index (cli/learned.h). */
#include "cli/learned.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/sequential.h"
#include "cli/cli.h"
#include "history/history.h"
#include "util/cleanup.h"
#include "util/statedir.h"

/* The timing model key of key's series: its first variant's. */
static const char *key_timing(const struct series_set *s, size_t key)
{
	for (size_t v = 0; v < s->nr_variants; v++)
		if (series_get(s, key, v))
			return series_variant_timing(&s->variants[v]);
	return NULL;
}

static int learn_key(struct history *h, const struct series_set *s, size_t key,
		     const char *const *own, struct history_noise *pts)
{
	const struct series_what *g = &s->groups[s->keys[key].group];
	const char *timing = key_timing(s, key);
	struct history_key k = { .tasks = s->keys[key].tasks, .params = g->params_text };
	struct lab_error err = { 0 };
	int r;

	if (!timing)
		return 0;
	snprintf(k.topology, sizeof(k.topology), "%s", g->topology);
	snprintf(k.workload, sizeof(k.workload), "%s", g->workload);
	snprintf(k.metric, sizeof(k.metric), "%s", g->metric);
	if ((r = history_noise_points(h, &k, timing, own, s->nr_reports, pts, &err)) < 0)
		return r;
	if (noise_learn(pts->p, pts->n, &s->learned[key]) < 0)
		memset(&s->learned[key], 0, sizeof(s->learned[key]));
	return 0;
}

int cli_learned_fill(struct series_set *s, int use)
{
	_cleanup_free_ struct history_noise *pts = malloc(sizeof(*pts));
	_cleanup_free_ char **own = calloc(s->nr_reports + 1, sizeof(*own));
	struct lab_error err = { 0 };
	struct history *h = NULL;
	char dir[PATH_MAX], db[PATH_MAX + 16], msg[1400];
	int r = 0;

	if (!pts || !own || !(s->learned = calloc(s->nr_keys + 1, sizeof(*s->learned))))
		return -ENOMEM;
	s->use_learned = use;
	statedir_default(dir, sizeof(dir));
	snprintf(db, sizeof(db), "%s/%s", dir, HISTORY_DB_NAME);
	if (access(db, F_OK) < 0) {
		if (use)
			cli_err("warning: no history index at %s: no series has a learned "
				"threshold, the fixed one decides", db);
		return 0;
	}
	if ((r = history_open(db, 0, &h, &err)) < 0) {
		error_format(&err, msg, sizeof(msg));
		if (use)
			cli_err("warning: %s: the fixed threshold decides", msg);
		return r == -ENOMEM ? r : 0;
	}
	/* The index keeps paths made absolute: a comparison never learns from itself. */
	for (size_t i = 0; i < s->nr_reports; i++)
		own[i] = realpath(s->reports[i].file, NULL);
	for (size_t k = 0; r == 0 && k < s->nr_keys; k++)
		r = learn_key(h, s, k, (const char *const *)own, pts);
	for (size_t i = 0; i < s->nr_reports; i++)
		free(own[i]);
	history_close(h);
	if (r < 0 && r != -ENOMEM) {
		if (use)
			cli_err("warning: the history index %s could not be read (%s): the fixed "
				"threshold decides", db, strerror(-r));
		memset(s->learned, 0, (s->nr_keys + 1) * sizeof(*s->learned));
		r = 0;
	}
	return r;
}

void cli_report_threshold(const struct series_set *s, double *pct, int *learned)
{
	for (size_t i = 0; i < s->nr_reports; i++) {
		const json_t *t = json_object_get(json_object_get(s->reports[i].doc, "job"),
						  "threshold");

		if (json_is_string(t) && !strcmp(json_string_value(t), "learned")) {
			*learned = 1;
			return;
		}
		if (json_is_number(t) && json_number_value(t) > 0 && json_number_value(t) <= 100) {
			*pct = json_number_value(t);
			return;
		}
	}
}

void cli_report_sequential(struct series_set *s)
{
	for (size_t i = 0; i < s->nr_reports; i++) {
		const json_t *q = json_object_get(json_object_get(s->reports[i].doc, "job"),
						  "sequential");
		const json_t *k = json_object_get(q, "looks");

		if (json_is_integer(k) && json_integer_value(k) >= 1 &&
		    json_integer_value(k) <= SEQ_MAX_LOOKS) {
			s->seq_looks = (unsigned)json_integer_value(k);
			s->seq_alpha = seq_look_alpha(s->seq_looks);
			return;
		}
	}
}
