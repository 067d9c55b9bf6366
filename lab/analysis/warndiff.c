#include "analysis/warndiff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The index of the site (kind, where) in t, or -1. */
static long site_index(const struct warn_tally *t, enum kwarn_kind kind, const char *where)
{
	for (unsigned i = 0; i < t->nr_sites; i++)
		if (t->sites[i].kind == kind && !strcmp(t->sites[i].where, where))
			return i;
	return -1;
}

static const struct warn_site *site_find(const struct warn_tally *t, enum kwarn_kind kind,
					 const char *where)
{
	long i = site_index(t, kind, where);

	return i < 0 ? NULL : &t->sites[i];
}

static int site_add(struct warn_tally *t, const struct kwarn *w)
{
	long i = site_index(t, w->kind, w->where);
	struct warn_site *s = i < 0 ? NULL : &t->sites[i];

	if (!s) {
		if (t->nr_sites == WARN_SITES_MAX) {
			t->dropped++;
			return 0;
		}
		s = &t->sites[t->nr_sites++];
		memset(s, 0, sizeof(*s));
		s->kind = w->kind;
		snprintf(s->where, sizeof(s->where), "%s", w->where);
		snprintf(s->first_line, sizeof(s->first_line), "%s", w->first_line);
		if (w->excerpt && !(s->excerpt = strdup(w->excerpt)))
			return -ENOMEM;
	}
	s->boots++;
	s->count += w->count;
	return 0;
}

int warn_tally_add(struct warn_tally *t, const struct kwarn_list *l)
{
	int r = 0;

	t->scanned++;
	for (unsigned i = 0; r == 0 && i < l->n; i++)
		r = site_add(t, &l->items[i]);
	t->dropped += l->dropped;
	return r;
}

void warn_tally_free(struct warn_tally *t)
{
	for (unsigned i = 0; i < t->nr_sites; i++)
		free(t->sites[i].excerpt);
	t->nr_sites = 0;
}

const char *warn_change_name(enum warn_change c)
{
	switch (c) {
	case WARN_NEW: return "new";
	case WARN_SPORADIC: return "sporadic";
	case WARN_GONE: return "gone";
	case WARN_BOTH: return "both";
	case WARN_UNKNOWN: return "unknown";
	}
	return "unknown";
}

/* Whether every run of a side was scanned: only then does "never warned there" mean it. */
static int all_scanned(unsigned runs, unsigned scanned)
{
	return runs > 0 && scanned == runs;
}

/* Whether B printed a site in more than half of its scanned boots: a warning the change
 * brings shows in most boots (a WARN_ON_ONCE on a path every boot takes: all of them); one in
 * a boot now and then is as likely the guest's own (seen: "Unexpected reschedule of offline
 * CPU" while CPUs come online, 1 boot in 6 of two kernels alike) and decides nothing alone. */
static int often(const struct warn_site *s, unsigned scanned)
{
	return 2 * s->boots > scanned;
}

void warn_diff_make(const struct warn_tally *a, unsigned a_runs, const struct warn_tally *b,
		    unsigned b_runs, struct warn_diff *out)
{
	int a_all = all_scanned(a_runs, a->scanned), b_all = all_scanned(b_runs, b->scanned);

	memset(out, 0, sizeof(*out));
	out->a_runs = a_runs;
	out->a_scanned = a->scanned;
	out->b_runs = b_runs;
	out->b_scanned = b->scanned;
	/* B's sites first, in the order B first printed them: a new warning leads. */
	for (unsigned i = 0; i < b->nr_sites; i++) {
		struct warn_row *r = &out->rows[out->nr_rows++];

		r->b = &b->sites[i];
		r->a = site_find(a, r->b->kind, r->b->where);
		r->change = r->a ? WARN_BOTH : !a_all ? WARN_UNKNOWN : often(r->b, b->scanned)
							       ? WARN_NEW : WARN_SPORADIC;
		out->nr_new += r->change == WARN_NEW;
		out->nr_sporadic += r->change == WARN_SPORADIC;
	}
	for (unsigned i = 0; i < a->nr_sites; i++) {
		struct warn_row *r;

		if (site_find(b, a->sites[i].kind, a->sites[i].where))
			continue;
		r = &out->rows[out->nr_rows++];
		r->a = &a->sites[i];
		r->change = b_all ? WARN_GONE : WARN_UNKNOWN;
		out->nr_gone += r->change == WARN_GONE;
	}
}

static const struct warn_site *row_site(const struct warn_row *r)
{
	return r->b ? r->b : r->a;
}

static json_t *row_json(const struct warn_row *r)
{
	const struct warn_site *s = row_site(r);

	return json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:s?}", "kind", kwarn_kind_name(s->kind),
			 "where", s->where, "first_line", s->first_line, "change",
			 warn_change_name(r->change), "a_boots",
			 (json_int_t)(r->a ? r->a->boots : 0), "b_boots",
			 (json_int_t)(r->b ? r->b->boots : 0), "a_count",
			 (json_int_t)(r->a ? r->a->count : 0), "b_count",
			 (json_int_t)(r->b ? r->b->count : 0), "excerpt", s->excerpt);
}

json_t *warn_diff_json(const struct warn_diff *d)
{
	json_t *sites = json_array();

	for (size_t i = 0; sites && i < d->nr_rows; i++)
		if (json_array_append_new(sites, row_json(&d->rows[i])) < 0) {
			json_decref(sites);
			return NULL;
		}
	if (!sites)
		return NULL;
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "a_runs", (json_int_t)d->a_runs,
			 "a_scanned", (json_int_t)d->a_scanned, "b_runs", (json_int_t)d->b_runs,
			 "b_scanned", (json_int_t)d->b_scanned, "new", (json_int_t)d->nr_new, "gone",
			 (json_int_t)d->nr_gone, "sporadic", (json_int_t)d->nr_sporadic, "sites",
			 sites);
}

/* "B in 3 of 5 boots", or "B not scanned" for a side whose reports predate warnings. */
static void side_boots(struct strbuf *sb, const char *side, const struct warn_site *s,
		       unsigned scanned)
{
	if (!scanned)
		strbuf_appendf(sb, "%s not scanned", side);
	else
		strbuf_appendf(sb, "%s in %u of %u boots", side, s ? s->boots : 0, scanned);
}

/* Two lines a site, in 80 columns: what changed and how many boots printed it, then the
 * kernel's own first line (which names the site). */
static void row_text(struct strbuf *sb, const struct warn_diff *d, const struct warn_row *r,
		     int markdown)
{
	const struct warn_site *s = row_site(r);
	static const char *const lead[] = {
		[WARN_NEW] = "new in B", [WARN_SPORADIC] = "new in B, sporadic",
		[WARN_GONE] = "gone in B", [WARN_BOTH] = "in both",
		[WARN_UNKNOWN] = "one side only",
	};

	strbuf_appendf(sb, "%s%s: %s, ", markdown ? "- " : "  ", lead[r->change],
		       kwarn_kind_name(s->kind));
	side_boots(sb, "B", r->b, d->b_scanned);
	strbuf_append(sb, ", ");
	side_boots(sb, "A", r->a, d->a_scanned);
	strbuf_appendf(sb, "\n    %.73s%s\n", s->first_line,
		       strlen(s->first_line) > 73 ? "..." : "");
}

void warn_diff_text(struct strbuf *sb, const struct warn_diff *d, int markdown)
{
	if (!d->nr_rows)
		return;
	strbuf_appendf(sb, "kernel warnings (%u new in B, %u gone", d->nr_new, d->nr_gone);
	if (d->nr_sporadic)
		strbuf_appendf(sb, ", %u sporadic", d->nr_sporadic);
	strbuf_appendf(sb, "; a new one decides%s):\n",
		       d->nr_sporadic ? ",\n  one in at most half of B's boots does not" : "");
	for (size_t i = 0; i < d->nr_rows; i++)
		row_text(sb, d, &d->rows[i], markdown);
}
