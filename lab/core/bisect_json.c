/* The bisection as one JSON document (schema BISECT_SCHEMA): one converter from the structs in
 * bisect.h.  Unknown numbers (NAN) and infinite ones are null: JSON has neither.  What the
 * engine does not hold, lab/regress/bisect.c adds to the document it writes: each step's
 * directory, the series, params, host, cost, and a named culprit's "culprit_deltas" or
 * "culprit_deltas_absent" (reports/SCHEMA.md). */
#include "core/bisect.h"

#include <errno.h>
#include <math.h>

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Empty means none: null. */
static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

/* {"sha", "subject", "index"}, or null for BISECT_NONE. */
static json_t *commit_json(const struct bisect *b, size_t i)
{
	if (i == BISECT_NONE)
		return json_null();
	return json_pack("{s:s, s:s, s:I}", "sha", b->commits[i].sha, "subject",
			 b->commits[i].subject, "index", (json_int_t)i);
}

static json_t *samples_json(const struct bisect_step *s)
{
	json_t *a = json_array();

	for (size_t i = 0; a && s->samples && i < s->n; i++)
		if (json_array_append_new(a, num(s->samples[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *step_json(const struct bisect *b, size_t k)
{
	const struct bisect_step *s = &b->steps[k];
	int ok = s->outcome == BISECT_OUTCOME_OK;

	return json_pack("{s:I, s:s, s:s, s:o, s:o, s:I, s:s, s:o, s:s, s:s, s:I, s:o, s:o, "
			 "s:o, s:o, s:o, s:o, s:o, s:b}",
			 "step", (json_int_t)k + 1, "phase", bisect_phase_name(s->phase),
			 "role", bisect_role_name(s->role), "commit", commit_json(b, s->commit),
			 "reverted", commit_json(b, s->role == BISECT_ROLE_REVERT
						    ? b->result.culprit : BISECT_NONE),
			 "try", (json_int_t)s->try, "outcome", bisect_outcome_name(s->outcome),
			 "class", ok ? json_string(bisect_class_name(s->class)) : json_null(),
			 "verdict", bisect_mark_name(s->verdict), "reason", s->reason,
			 "n", (json_int_t)s->n, "mean", num(s->mean), "ci_lo", num(s->ci_lo),
			 "ci_hi", num(s->ci_hi), "change_pct", num(s->change_pct),
			 "samples", samples_json(s), "kernel_key", str_or_null(s->kernel_key),
			 "text_sha256", str_or_null(s->text_sha256),
			 "text_identical", s->text_identical);
}

/* The range answer: the commits the first bad one may be, oldest first. */
static json_t *range_json(const struct bisect *b)
{
	json_t *a;

	if (b->result.answer != BISECT_ANSWER_RANGE)
		return json_null();
	a = json_array();
	for (size_t i = b->result.first; a && i <= b->result.last; i++)
		if (json_array_append_new(a, commit_json(b, i)) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

int bisect_to_json(const struct bisect *b, json_t **out)
{
	json_t *steps = json_array();

	for (size_t i = 0; steps && i < b->n_steps; i++)
		if (json_array_append_new(steps, step_json(b, i)) < 0) {
			json_decref(steps);
			steps = NULL;
		}
	*out = json_pack("{s:s, s:{s:o, s:I, s:b}, s:I, s:o, s:o, s:s, s:o, s:o, s:o, s:s, "
			 "s:s, s:o}",
			 "schema", BISECT_SCHEMA,
			 "config", "threshold_pct", num(b->cfg.threshold_pct),
			 "max_tries", (json_int_t)b->cfg.max_tries,
			 "check_revert", b->cfg.check_revert,
			 "commits", (json_int_t)b->n, "good", commit_json(b, 0),
			 "bad", commit_json(b, b->n - 1), "phase", bisect_phase_name(b->phase),
			 "answer", b->result.answer == BISECT_ANSWER_NONE
				   ? json_null() : json_string(bisect_answer_name(b->result.answer)),
			 "culprit", commit_json(b, b->result.culprit), "range", range_json(b),
			 "revert", bisect_revert_name(b->result.revert),
			 "reason", b->result.reason, "steps", steps);
	return *out ? 0 : -ENOMEM;
}
