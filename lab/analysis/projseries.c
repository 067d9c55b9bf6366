/* The projections of a lock-counted report's series: see projseries.h. */
#include "analysis/projseries.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/projinput.h"
#include "util/cleanup.h"

static json_t *measured_json(const struct projinput *pi, const struct projseries_opts *o)
{
	char from[300];

	if (pi->window_t1 > 0)
		snprintf(from, sizeof(from), "the 1-task window of %s: %.0f instructions an "
			 "acquisition", o->window_from, pi->window_t1);
	else
		snprintf(from, sizeof(from), "the plugin's count (a lower bound: a rep string "
			 "instruction counts once)");
	return json_pack("{s:s, s:I, s:I, s:f, s:f, s:f, s:s, s:I, s:I, s:I}", "site", pi->site,
			 "tasks", (json_int_t)pi->tasks, "boots", (json_int_t)pi->boots,
			 "acquisitions", pi->acquisitions, "insn_inside", pi->inside,
			 "insn_outside", pi->outside, "outside_from", from, "shared_tasks",
			 (json_int_t)pi->shared_tasks, "shared_locks", (json_int_t)pi->shared_locks,
			 "shared_max_cpus", (json_int_t)pi->shared_max_cpus);
}

static json_t *projected(const struct projseries_opts *o, const struct projinput *pi)
{
	struct proj_input in = o->in;
	_cleanup_free_ struct proj_point *pts = calloc(in.nmax ? in.nmax : 1, sizeof(*pts));
	struct proj_result res = { .points = pts };

	in.insn_inside = pi->inside;
	in.insn_outside = pi->outside;
	in.private_lock = projinput_private(pi);
	if (!pts || projection_run(&in, o->priors, &res) < 0)
		return NULL;
	return projection_json(&in, o->priors, &o->label, &res);
}

static json_t *one_series(const json_t *report, const struct projseries_opts *o,
			  const char *label, const char *workload)
{
	struct projinput_pick pick = { .label = label, .workload = workload, .tasks = 1,
				       .site = o->site };
	struct lab_error err = { 0 };
	struct projinput pi;
	char buf[600];
	const char *why = NULL;
	json_t *measured = NULL, *proj = NULL;

	if (projinput_from_report(report, &pick, &pi, &err) < 0 ||
	    (o->window && projinput_window(report, o->window, &pi, &err) < 0)) {
		error_format(&err, buf, sizeof(buf));
		why = buf;
	} else {
		measured = measured_json(&pi, o);
		why = projinput_why_not(&pi, buf, sizeof(buf));
		if (!why && !(proj = projected(o, &pi)))
			why = "the model refused the inputs (out of its range)";
	}
	return json_pack("{s:s, s:s, s:b, s:s?, s:o?, s:o?}", "label", label, "workload",
			 workload, "projected", proj != NULL, "why", why, "measured", measured,
			 "projection", proj);
}

json_t *projseries_json(const json_t *report, const struct projseries_opts *o)
{
	_cleanup_json_ json_t *pairs = projinput_series(report);
	json_t *series = json_array(), *p;
	size_t i;

	if (!pairs || !series)
		goto oom;
	json_array_foreach(pairs, i, p) {
		json_t *one = one_series(report, o, json_string_value(json_array_get(p, 0)),
					 json_string_value(json_array_get(p, 1)));

		if (json_array_append_new(series, one) < 0)
			goto oom;
	}
	return json_pack("{s:s, s:b, s:s, s:s, s:s, s:o}", "schema", PROJSERIES_SCHEMA,
			 "projection", 1, "note",
			 "projections from a model and assumed priors, not measurements: they never "
			 "enter a verdict; the band is 5-95 % over the draws", "from", o->from,
			 "site", o->site, "series", series);
oom:
	json_decref(series);
	return NULL;
}

const json_t *projseries_find(const json_t *doc, const char *label, const char *workload)
{
	const json_t *s;
	size_t i;

	json_array_foreach(json_object_get(doc, "series"), i, s)
		if (json_is_true(json_object_get(s, "projected")) &&
		    !strcmp(json_string_value(json_object_get(s, "label")), label) &&
		    !strcmp(json_string_value(json_object_get(s, "workload")), workload))
			return s;
	return NULL;
}

static double num(const json_t *o, const char *k)
{
	return json_number_value(json_object_get(o, k));
}

int projseries_text(const json_t *doc, struct strbuf *sb)
{
	const json_t *se;
	size_t i;

	strbuf_appendf(sb, "PROJECTION, not measured, never in a verdict (lock counts at %s in "
		       "%s; bands 5-95 %% over the priors):\n",
		       json_string_value(json_object_get(doc, "site")),
		       json_string_value(json_object_get(doc, "from")));
	json_array_foreach(json_object_get(doc, "series"), i, se) {
		const json_t *p = json_object_get(se, "projection");
		const json_t *pts = json_object_get(p, "points");
		const json_t *last = json_array_get(pts, json_array_size(pts) - 1);
		const json_t *knee = json_object_get(p, "knee");

		strbuf_appendf(sb, "  %s, %s: ", json_string_value(json_object_get(se, "label")),
			       json_string_value(json_object_get(se, "workload")));
		if (!json_is_object(p)) {
			strbuf_appendf(sb, "not projected: %s\n",
				       json_string_value(json_object_get(se, "why")));
			continue;
		}
		if (json_is_object(knee))
			strbuf_appendf(sb, "knee %.1f CPUs [%.1f, %.1f]; ", num(knee, "p50"),
				       num(knee, "p5"), num(knee, "p95"));
		else
			strbuf_append(sb, "no knee (a lock per task: nobody waits at it; other "
				      "shared costs are outside the model); ");
		strbuf_appendf(sb, "%s, %s lock: speed-up %.1f at %lld CPUs [%.1f, %.1f]\n",
			       json_string_value(json_object_get(json_object_get(p, "inputs"),
								 "target")),
			       json_string_value(json_object_get(json_object_get(p, "model"),
								 "lock")),
			       num(last, "speedup_p50"),
			       (long long)json_integer_value(json_object_get(last, "cpus")),
			       num(last, "speedup_p5"), num(last, "speedup_p95"));
	}
	return sb->err;
}
