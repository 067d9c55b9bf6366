/* Why it moved (deltas.h): JSON and the text lines.  Pure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/deltas.h"
#include "util/text.h"

/* The longest name the text lines show; longer names are cut. */
#define NAME_COLS 40

/* Not-a-number (a relative change from 0) is null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *profile_json(const struct deltas_row *r)
{
	return json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "symbol", r->name, "a_self",
			 num(r->a), "b_self", num(r->b), "self_delta", num(r->delta),
			 "self_delta_pct", num(r->rel_pct), "se", num(r->se), "a_incl",
			 num(r->incl_a), "b_incl", num(r->incl_b), "incl_delta",
			 num(r->incl_delta), "incl_delta_pct", num(r->incl_rel_pct));
}

static json_t *counter_json(const struct deltas_row *r)
{
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:o}", "source", r->source, "name", r->name,
			 "figure", r->figure, "a", num(r->a), "b", num(r->b), "delta",
			 num(r->delta), "delta_pct", num(r->rel_pct), "se", num(r->se));
}

static json_t *rows_json(const struct deltas_row *rows, size_t n,
			 json_t *(*one)(const struct deltas_row *))
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, one(&rows[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *deltas_json(const struct deltas_workload *w)
{
	const char *unit = w ? deltas_unit_name(w->unit) : NULL;
	json_t *o;

	if (!w)
		return json_pack("{s:b,s:n,s:[],s:[],s:s,s:s}", "deciding", 0, "ops_unit",
				 "profile", "counters", "profile_absent", "not read",
				 "counters_absent", "not read");
	o = json_pack("{s:b,s:o,s:I,s:I,s:I,s:I,s:I,s:o,s:o}", "deciding", 0, "ops_unit",
		      unit ? json_string(unit) : json_null(), "a_boots", (json_int_t)w->a_boots,
		      "b_boots", (json_int_t)w->b_boots, "a_profiled", (json_int_t)w->a_profiled,
		      "b_profiled", (json_int_t)w->b_profiled, "symbols", (json_int_t)w->symbols,
		      "profile", rows_json(w->profile, w->nr_profile, profile_json), "counters",
		      rows_json(w->counters, w->nr_counters, counter_json));
	if (o && ((w->profile_absent &&
		   json_object_set_new(o, "profile_absent", json_string(w->profile_absent)) < 0) ||
		  (w->counters_absent &&
		   json_object_set_new(o, "counters_absent", json_string(w->counters_absent)) < 0))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* "+4.1 %", or "new" for a change from 0. */
static const char *rel(char *buf, size_t len, double pct)
{
	if (isnan(pct))
		snprintf(buf, len, "new");
	else
		snprintf(buf, len, "%+.1f %%", pct);
	return buf;
}

/* A counter as its line names it: "thp_fault_alloc", "do_anonymous_page lock acquisitions",
 * "ptlock contentions (lock_stat)". */
static void counter_name(char *buf, size_t len, const struct deltas_row *r)
{
	if (!strcmp(r->source, "vmstat"))
		snprintf(buf, len, "%s", r->name);
	else if (!strcmp(r->source, "lock_insns"))
		snprintf(buf, len, "%s %s", r->name,
			 strcmp(r->figure, "acquisitions") ? "insns inside locks"
							   : "lock acquisitions");
	else
		snprintf(buf, len, "%s %s (lock_stat)", r->name, r->figure);
}

/* The name cut at a character boundary, then two spaces as 0-day's lines have (no column:
 * a long name would push every line right). */
static void name_cell(struct strbuf *sb, const char *name, int markdown)
{
	char cut[NAME_COLS + 1];

	text_clean_copy(cut, sizeof(cut), name);
	if (markdown)
		strbuf_appendf(sb, "- `%s` ", cut);
	else
		strbuf_appendf(sb, "    %s  ", cut);
}

void deltas_text(struct strbuf *sb, const struct deltas_workload *w, int markdown)
{
	const char *unit;
	char name[DELTAS_NAME_MAX + 64], r1[32], r2[32];

	if (!deltas_any(w))
		return;
	unit = deltas_unit_name(w->unit);
	if (unit)
		strbuf_appendf(sb, "%swhy it moved (not deciding; per %s, boots A %u, B %u):\n",
			       markdown ? "" : "  ", unit, w->a_boots > w->a_profiled ? w->a_boots
										  : w->a_profiled,
			       w->b_boots > w->b_profiled ? w->b_boots : w->b_profiled);
	else
		strbuf_appendf(sb, "%swhy it moved (not deciding):\n", markdown ? "" : "  ");
	if (w->profile_absent && (w->a_profiled || w->b_profiled))
		strbuf_appendf(sb, "%sno profile lines: %s\n", markdown ? "- " : "    ",
			       w->profile_absent);
	for (size_t i = 0; i < w->nr_profile; i++) {
		const struct deltas_row *r = &w->profile[i];

		name_cell(sb, r->name, markdown);
		strbuf_appendf(sb, "%+.1f insns/%s (%s), incl %+.1f (%s)\n", r->delta, unit,
			       rel(r1, sizeof(r1), r->rel_pct), r->incl_delta,
			       rel(r2, sizeof(r2), r->incl_rel_pct));
	}
	for (size_t i = 0; i < w->nr_counters; i++) {
		const struct deltas_row *r = &w->counters[i];

		counter_name(name, sizeof(name), r);
		name_cell(sb, name, markdown);
		strbuf_appendf(sb, "%.3f -> %.3f /%s\n", r->a, r->b, unit);
	}
}
