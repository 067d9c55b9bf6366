/* Why it moved (deltas.h): the per-boot tallies and their A/B.  The renderers are in
 * deltas_render.c. */
#include "analysis/deltas.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "util/cleanup.h"
#include "util/text.h"

/* Joins a counter key's parts: text_clean_copy takes control characters out of names, so no
 * name holds it. */
#define SEP "\x1f"

/* ---- tallying one run ---------------------------------------------------------------- */

static void boot_clear(struct deltas_boot *b)
{
	json_decref(b->profile);
	json_decref(b->counters);
}

void deltas_tally_free(struct deltas_tally *t)
{
	for (size_t i = 0; i < t->nr_w; i++) {
		for (size_t k = 0; k < t->w[i].nr_boots; k++)
			boot_clear(&t->w[i].boots[k]);
		free(t->w[i].boots);
		free(t->w[i].key);
	}
	free(t->w);
	memset(t, 0, sizeof(*t));
}

/* Room for one more element of size elem in *arr. */
static int grow(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void **arr = arrp;
	size_t ncap = *cap ? *cap * 2 : 4;
	void *p;

	if (n < *cap)
		return 0;
	if (ncap > SIZE_MAX / elem || !(p = realloc(*arr, ncap * elem)))
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static struct deltas_workload_tally *workload_of(struct deltas_tally *t, const char *key)
{
	struct deltas_workload_tally *w;

	for (size_t i = 0; i < t->nr_w; i++)
		if (!strcmp(t->w[i].key, key))
			return &t->w[i];
	if (grow(&t->w, &t->cap_w, t->nr_w, sizeof(*w)) < 0)
		return NULL;
	w = &t->w[t->nr_w];
	memset(w, 0, sizeof(*w));
	if (!(w->key = strdup(key)))
		return NULL;
	t->nr_w++;
	return w;
}

/* The boot's entry: the last one when a run lists the workload twice. */
static struct deltas_boot *boot_of(struct deltas_workload_tally *w, size_t boot)
{
	struct deltas_boot *b;

	if (w->nr_boots && w->boots[w->nr_boots - 1].boot == boot)
		return &w->boots[w->nr_boots - 1];
	if (grow(&w->boots, &w->cap_boots, w->nr_boots, sizeof(*b)) < 0)
		return NULL;
	b = &w->boots[w->nr_boots];
	memset(b, 0, sizeof(*b));
	b->boot = boot;
	b->profile = json_object();
	b->counters = json_object();
	if (!b->profile || !b->counters) {
		boot_clear(b);
		return NULL;
	}
	w->nr_boots++;
	return b;
}

/* A finite number, or 0 (with *ok 0) for anything else: a malformed value is skipped. */
static double num_or_zero(const json_t *v, int *ok)
{
	double x = json_number_value(v);

	*ok = json_is_number(v) && isfinite(x);
	return *ok ? x : 0;
}

/* o[k][i] += v for a pair ([self, incl]), or o[k] += v (i < 0). */
static int add_to(json_t *o, const char *k, int i, double v)
{
	json_t *x = json_object_get(o, k), *cell;

	if (!x) {
		x = i < 0 ? json_real(0) : json_pack("[f,f]", 0.0, 0.0);
		if (json_object_set_new(o, k, x) < 0)
			return -ENOMEM;
	}
	cell = i < 0 ? x : json_array_get(x, (size_t)i);
	json_real_set(cell, json_real_value(cell) + v);
	return 0;
}

static int add_counter(struct deltas_boot *b, const char *source, const char *name,
		       const char *figure, const json_t *v)
{
	char clean[DELTAS_NAME_MAX], key[DELTAS_NAME_MAX + 64];
	int ok;
	double x = num_or_zero(v, &ok);

	if (!ok || !name)
		return 0;
	text_clean_copy(clean, sizeof(clean), name);
	if (!clean[0])
		return 0;
	snprintf(key, sizeof(key), "%s" SEP "%s" SEP "%s", source, clean, figure);
	return add_to(b->counters, key, -1, x);
}

static int read_profile(struct deltas_boot *b, const json_t *p)
{
	const json_t *sym, *cut = json_object_get(p, "self_cutoff");
	size_t i;
	int r = 0;

	if (b->profiled == 1) /* the boot's first profiled result (read_result counted it) */
		b->cutoff_known = 1;
	if (json_is_integer(cut) && json_integer_value(cut) >= 0)
		b->self_cutoff += (double)json_integer_value(cut);
	else
		b->cutoff_known = 0;

	json_array_foreach(json_object_get(p, "symbols"), i, sym) {
		const char *name = json_string_value(json_object_get(sym, "symbol"));
		char clean[DELTAS_NAME_MAX];
		int ok_s, ok_i;
		double self = num_or_zero(json_object_get(sym, "self"), &ok_s);
		double incl = num_or_zero(json_object_get(sym, "incl"), &ok_i);

		if (i >= DELTAS_SYMBOLS_MAX)
			break;
		if (!name || (!ok_s && !ok_i))
			continue;
		text_clean_copy(clean, sizeof(clean), name);
		if (!clean[0])
			continue;
		if ((r = add_to(b->profile, clean, 0, self)) < 0 ||
		    (r = add_to(b->profile, clean, 1, incl)) < 0)
			return r;
	}
	return 0;
}

/* Counters by name: vmstat's a number each ("count"); lock_stat's an object a lock class, of
 * which the counts only (lockdep inflates the times: runners/PROTOCOL.md).  figures ends
 * with NULL. */
static int read_named(struct deltas_boot *b, const json_t *o, const char *source,
		      const char *const *figures)
{
	const char *k;
	json_t *v;
	size_t n = 0;
	int r;

	json_object_foreach((json_t *)o, k, v) {
		if (n++ >= DELTAS_COUNTERS_MAX)
			break;
		for (size_t f = 0; figures[f]; f++)
			if ((r = add_counter(b, source, k, figures[f],
					     strcmp(figures[f], "count")
						     ? json_object_get(v, figures[f])
						     : v)) < 0)
				return r;
	}
	return 0;
}

/* Lock call sites ("func+0x1f/0x80") grouped by their function. */
static int read_lock_insns(struct deltas_boot *b, const json_t *li)
{
	const json_t *s;
	size_t i;
	int r;

	json_array_foreach(json_object_get(li, "sites"), i, s) {
		const char *site = json_string_value(json_object_get(s, "site"));
		char func[DELTAS_NAME_MAX];

		if (i >= DELTAS_SYMBOLS_MAX)
			break;
		if (!site)
			continue;
		snprintf(func, sizeof(func), "%.*s", (int)strcspn(site, "+"), site);
		if ((r = add_counter(b, "lock_insns", func, "acquisitions",
				     json_object_get(s, "acquisitions"))) < 0 ||
		    (r = add_counter(b, "lock_insns", func, "inside_insns",
				     json_object_get(s, "inside_insns"))) < 0)
			return r;
	}
	return 0;
}

static double metric(const json_t *res, const char *name, int *ok)
{
	return num_or_zero(json_object_get(json_object_get(json_object_get(res, "metrics"), name),
				      "value"),
		      ok);
}

static int read_result(struct deltas_boot *b, const json_t *res)
{
	const json_t *info = json_object_get(res, "info"), *x;
	int okf, oko, r = 0;
	double f = metric(res, "page_faults", &okf), o = metric(res, "ops", &oko);

	if (!json_is_object(res))
		return 0;
	b->results++;
	b->with_faults += okf;
	b->with_ops += oko;
	b->faults += f;
	b->ops += o;
	if (json_is_object(x = json_object_get(info, "profile"))) {
		b->profiled++;
		b->faults_prof += f;
		b->ops_prof += o;
		r = read_profile(b, x);
	}
	if (r == 0 && json_is_object(x = json_object_get(info, "vmstat"))) {
		b->sources |= DELTAS_SRC_VMSTAT;
		r = read_named(b, x, "vmstat", (const char *const[]){ "count", NULL });
	}
	if (r == 0 && json_is_object(x = json_object_get(info, "lock_insns"))) {
		b->sources |= DELTAS_SRC_LOCK_INSNS;
		r = read_lock_insns(b, x);
	}
	if (r == 0 && json_is_object(x = json_object_get(info, "lock_stat"))) {
		b->sources |= DELTAS_SRC_LOCK_STAT;
		r = read_named(b, x, "lock_stat",
			       (const char *const[]){ "acquisitions", "contentions", NULL });
	}
	return r;
}

int deltas_tally_add(struct deltas_tally *t, const char *key, const json_t *workload,
		     size_t boot)
{
	struct deltas_workload_tally *w = workload_of(t, key);
	struct deltas_boot *b = w ? boot_of(w, boot) : NULL;
	const json_t *res;
	size_t i;
	int r;

	if (!b)
		return -ENOMEM;
	json_array_foreach(json_object_get(workload, "results"), i, res)
		if ((r = read_result(b, res)) < 0)
			return r;
	return 0;
}

/* ---- the A/B ------------------------------------------------------------------------- */

const char *deltas_unit_name(enum deltas_unit u)
{
	return u == DELTAS_UNIT_FAULT ? "fault" : u == DELTAS_UNIT_OP ? "op" : NULL;
}

/* What a boot's results count their operations in: every result must say. */
static enum deltas_unit boot_unit(const struct deltas_boot *b)
{
	if (b->results && b->with_faults == b->results)
		return DELTAS_UNIT_FAULT;
	if (b->results && b->with_ops == b->results)
		return DELTAS_UNIT_OP;
	return DELTAS_UNIT_NONE;
}

static double boot_ops(const struct deltas_boot *b, enum deltas_unit u, int profile)
{
	if (u == DELTAS_UNIT_FAULT)
		return profile ? b->faults_prof : b->faults;
	return profile ? b->ops_prof : b->ops;
}

/* Whether boot b gives a figure of the source (0: the profile) at all. */
static int boot_has(const struct deltas_boot *b, enum deltas_unit u, unsigned src)
{
	return boot_ops(b, u, !src) > 0 && (src ? (b->sources & src) != 0 : b->profiled > 0);
}

static unsigned boots_with(const struct deltas_workload_tally *t, enum deltas_unit u,
			   unsigned src)
{
	unsigned n = 0;

	for (size_t i = 0; i < t->nr_boots; i++)
		n += boot_has(&t->boots[i], u, src);
	return n;
}

/* The per-op figures of key on one side, a boot each; idx: the pair's member (profile) or
 * -1 (counters).  How many. */
static size_t side_values(const struct deltas_workload_tally *t, enum deltas_unit u,
			  unsigned src, const char *key, int idx, double *x)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nr_boots; i++) {
		const struct deltas_boot *b = &t->boots[i];
		const json_t *v;

		if (!boot_has(b, u, src))
			continue;
		v = json_object_get(src ? b->counters : b->profile, key);
		if (idx >= 0)
			v = json_array_get(v, (size_t)idx);
		x[n++] = (v ? json_real_value(v) : 0) / boot_ops(b, u, !src);
	}
	return n;
}

struct est {
	double a, b, delta, rel_pct, se, p;
};

/* Means, their difference and its standard error, from both sides' boots of key. */
static int estimate(const struct deltas_workload_tally *ta, const struct deltas_workload_tally *tb,
		    enum deltas_unit u, unsigned src, const char *key, int idx, double *xa,
		    double *xb, struct est *e)
{
	size_t na = side_values(ta, u, src, key, idx, xa), nb = side_values(tb, u, src, key, idx, xb);
	struct stats_summary sa, sb;
	struct stats_diff w;

	if (na < 2 || nb < 2 || stats_summarize(xa, na, STATS_ARITHMETIC, &sa) < 0 ||
	    stats_summarize(xb, nb, STATS_ARITHMETIC, &sb) < 0)
		return -EINVAL;
	/* Both sides constant: p 0 when they differ, 1 when not (stats_welch's t is infinite). */
	if (sa.stddev == 0 && sb.stddev == 0)
		e->p = sa.mean != sb.mean ? 0 : 1;
	else
		e->p = stats_welch(xa, na, xb, nb, STATS_ARITHMETIC, &w) == 0 ? w.p : 1;
	e->a = sa.mean;
	e->b = sb.mean;
	e->delta = sb.mean - sa.mean;
	e->rel_pct = sa.mean != 0 ? 100 * e->delta / fabs(sa.mean) : NAN;
	e->se = sqrt(sa.stddev * sa.stddev / (double)na + sb.stddev * sb.stddev / (double)nb);
	return 0;
}

/* Every key either side's boots have (profile: src 0) as a set. */
static json_t *keys_of(const struct deltas_workload_tally *ta,
		       const struct deltas_workload_tally *tb, int profile)
{
	const struct deltas_workload_tally *t[2] = { ta, tb };
	json_t *set = json_object(), *v;
	const char *k;

	for (int s = 0; set && s < 2; s++)
		for (size_t i = 0; i < t[s]->nr_boots; i++)
			json_object_foreach(profile ? t[s]->boots[i].profile
						    : t[s]->boots[i].counters, k, v)
				if (json_object_set_new(set, k, json_true()) < 0) {
					json_decref(set);
					return NULL;
				}
	return set;
}

static int row_push(struct deltas_row **rows, size_t *n, size_t *cap, const struct deltas_row *r)
{
	if (grow(rows, cap, *n, sizeof(**rows)) < 0)
		return -ENOMEM;
	(*rows)[(*n)++] = *r;
	return 0;
}

static void row_set(struct deltas_row *r, const struct est *e)
{
	r->a = e->a;
	r->b = e->b;
	r->delta = e->delta;
	r->rel_pct = e->rel_pct;
	r->se = e->se;
	r->p = e->p;
}

/* Biggest self delta first; the name settles ties, so that the order never depends on the
 * reports' key order. */
static int by_delta(const void *x, const void *y)
{
	const struct deltas_row *a = x, *b = y;

	if (fabs(a->delta) != fabs(b->delta))
		return fabs(a->delta) > fabs(b->delta) ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Biggest relative change first, a change from 0 (rel_pct NAN) before any. */
static int by_rel(const void *x, const void *y)
{
	const struct deltas_row *a = x, *b = y;
	double ra = isnan(a->rel_pct) ? INFINITY : fabs(a->rel_pct);
	double rb = isnan(b->rel_pct) ? INFINITY : fabs(b->rel_pct);
	int c;

	if (ra != rb)
		return ra > rb ? -1 : 1;
	if ((c = strcmp(a->name, b->name)))
		return c;
	return strcmp(a->figure, b->figure);
}

static int beyond_spread(const struct est *e)
{
	return e->delta != 0 && e->p < DELTAS_P_MAX;
}

/* Both sides of one workload, with room for a figure per boot each. */
struct pair {
	const struct deltas_workload_tally *a, *b;
	enum deltas_unit unit;
	double *xa, *xb;
};

/* How many of a side's profiled boots list symbol k; *cut: the most a boot that does not
 * could have of it per op (NAN when a boot does not say). */
static unsigned listed_in(const struct deltas_workload_tally *t, enum deltas_unit u,
			  const char *k, unsigned *profiled, double *cut)
{
	unsigned n = 0;

	*profiled = 0;
	*cut = 0;
	for (size_t i = 0; i < t->nr_boots; i++) {
		const struct deltas_boot *b = &t->boots[i];
		double c;

		if (!boot_has(b, u, 0))
			continue;
		(*profiled)++;
		n += json_object_get(b->profile, k) != NULL;
		c = b->cutoff_known ? b->self_cutoff / boot_ops(b, u, 1) : NAN;
		if (isnan(c) || isnan(*cut))
			*cut = NAN; /* a boot that does not say: nothing is known */
		else if (c > *cut)
			*cut = c;
	}
	return n;
}

/* Whether symbol k can be compared, as deltas.h says: listed by every profiled boot of both
 * sides, or by every boot of one side and none of the other, above that side's cut-off by
 * the threshold (self: both sides' means, self instructions per op). */
static int comparable(const struct pair *p, const char *k, const struct est *self)
{
	unsigned pa, pb, na, nb;
	double ca, cb;

	na = listed_in(p->a, p->unit, k, &pa, &ca);
	nb = listed_in(p->b, p->unit, k, &pb, &cb);
	if (na == pa && nb == pb)
		return 1;
	if (na == 0 && nb == pb)
		return !isnan(ca) && self->b - ca >= PROFILE_DELTA_MIN_INSNS;
	if (nb == 0 && na == pa)
		return !isnan(cb) && self->a - cb >= PROFILE_DELTA_MIN_INSNS;
	return 0;
}

/* A symbol's line into r: 1 listed, 0 not, -1 not comparable (too few boots). */
static int profile_row(const struct pair *p, const char *k, struct deltas_row *r)
{
	struct est self, incl;

	if (estimate(p->a, p->b, p->unit, 0, k, 0, p->xa, p->xb, &self) < 0 ||
	    estimate(p->a, p->b, p->unit, 0, k, 1, p->xa, p->xb, &incl) < 0)
		return -1;
	if (fabs(self.delta) < PROFILE_DELTA_MIN_INSNS || !beyond_spread(&self) ||
	    !comparable(p, k, &self))
		return 0;
	r->source = "profile";
	r->figure = "self";
	snprintf(r->name, sizeof(r->name), "%s", k);
	row_set(r, &self);
	r->incl_a = incl.a;
	r->incl_b = incl.b;
	r->incl_delta = incl.delta;
	r->incl_rel_pct = incl.rel_pct;
	return 1;
}

static const struct {
	const char *name;
	unsigned src;
} sources[] = {
	{ "vmstat", DELTAS_SRC_VMSTAT },
	{ "lock_insns", DELTAS_SRC_LOCK_INSNS },
	{ "lock_stat", DELTAS_SRC_LOCK_STAT },
};

/* Splits a counter key into r's source, name and figure; the source's bit, 0 unknown. */
static unsigned key_split(const char *k, struct deltas_row *r)
{
	static const char *const figures[] = { "count", "acquisitions", "inside_insns",
					       "contentions" };
	size_t ls = strcspn(k, SEP), ln;
	unsigned src = 0;

	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++)
		if (strlen(sources[i].name) == ls && !strncmp(k, sources[i].name, ls)) {
			r->source = sources[i].name;
			src = sources[i].src;
		}
	if (!src || !k[ls])
		return 0;
	k += ls + 1;
	ln = strcspn(k, SEP);
	snprintf(r->name, sizeof(r->name), "%.*s", (int)ln, k);
	r->figure = NULL;
	for (size_t i = 0; k[ln] && i < sizeof(figures) / sizeof(figures[0]); i++)
		if (!strcmp(k + ln + 1, figures[i]))
			r->figure = figures[i];
	return r->figure ? src : 0;
}

/* A counter's line into r, as profile_row. */
static int counter_row(const struct pair *p, const char *k, struct deltas_row *r)
{
	unsigned src = key_split(k, r);
	struct est e;

	if (!src || estimate(p->a, p->b, p->unit, src, k, -1, p->xa, p->xb, &e) < 0)
		return -1;
	if ((e.a == 0 && e.b == 0) || !beyond_spread(&e) ||
	    (!isnan(e.rel_pct) && fabs(e.rel_pct) < DELTAS_COUNTER_MIN_PCT))
		return 0;
	row_set(r, &e);
	return 1;
}

/* The lines of every key either side has (profile: symbols, else counters), sorted by cmp
 * and cut to max; *compared counts the keys both sides had enough boots of. */
static int lines(const struct pair *p, int profile, struct deltas_row **rows, size_t *n,
		 size_t max, int (*cmp)(const void *, const void *), size_t *compared)
{
	_cleanup_json_ json_t *keys = keys_of(p->a, p->b, profile);
	size_t cap = 0;
	const char *k;
	json_t *v;

	if (!keys)
		return -ENOMEM;
	json_object_foreach(keys, k, v) {
		struct deltas_row r = { 0 };
		int listed = profile ? profile_row(p, k, &r) : counter_row(p, k, &r);

		*compared += listed >= 0;
		if (listed > 0 && row_push(rows, n, &cap, &r) < 0)
			return -ENOMEM;
	}
	if (*n)
		qsort(*rows, *n, sizeof(**rows), cmp);
	if (*n > max)
		*n = max;
	return 0;
}

/* The unit both sides' boots count in, or NONE with *why. */
static enum deltas_unit common_unit(const struct deltas_workload_tally *ta,
				    const struct deltas_workload_tally *tb, const char **why)
{
	const struct deltas_workload_tally *t[2] = { ta, tb };
	enum deltas_unit u = DELTAS_UNIT_NONE;

	*why = "no per-op figure (no page_faults or ops metric)";
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < t[s]->nr_boots; i++) {
			enum deltas_unit bu = boot_unit(&t[s]->boots[i]);

			if (bu == DELTAS_UNIT_NONE || (u != DELTAS_UNIT_NONE && bu != u)) {
				if (u != DELTAS_UNIT_NONE || bu != DELTAS_UNIT_NONE)
					*why = "no per-op figure (page_faults in some boots, ops "
					       "in others)";
				return DELTAS_UNIT_NONE;
			}
			u = bu;
		}
	return u;
}

static const char *profile_why(const struct deltas_workload *w)
{
	if (!w->a_profiled && !w->b_profiled)
		return "neither side was profiled";
	if (!w->a_profiled)
		return "A was not profiled";
	if (!w->b_profiled)
		return "B was not profiled";
	if (w->a_profiled < 2 || w->b_profiled < 2)
		return "fewer than 2 profiled boots a side";
	return NULL;
}

static int workload_diff(const struct deltas_workload_tally *ta,
			 const struct deltas_workload_tally *tb, struct deltas_workload *out)
{
	size_t n = ta->nr_boots > tb->nr_boots ? ta->nr_boots : tb->nr_boots;
	_cleanup_free_ double *xa = calloc(n ? n : 1, sizeof(double));
	_cleanup_free_ double *xb = calloc(n ? n : 1, sizeof(double));
	struct pair p = { .a = ta, .b = tb, .xa = xa, .xb = xb };
	size_t counters = 0;
	const char *why;
	int r;

	memset(out, 0, sizeof(*out));
	out->key = ta->key;
	if (!xa || !xb)
		return -ENOMEM;
	for (size_t i = 0; i < ta->nr_boots; i++)
		out->a_profiled += ta->boots[i].profiled > 0;
	for (size_t i = 0; i < tb->nr_boots; i++)
		out->b_profiled += tb->boots[i].profiled > 0;
	p.unit = out->unit = common_unit(ta, tb, &why);
	if (out->unit == DELTAS_UNIT_NONE) {
		out->profile_absent = out->counters_absent = why;
		return 0;
	}
	out->a_boots = boots_with(ta, out->unit, DELTAS_SRC_VMSTAT | DELTAS_SRC_LOCK_INSNS |
							 DELTAS_SRC_LOCK_STAT);
	out->b_boots = boots_with(tb, out->unit, DELTAS_SRC_VMSTAT | DELTAS_SRC_LOCK_INSNS |
							 DELTAS_SRC_LOCK_STAT);
	/* profiled now counts the boots whose profile has a per-op figure */
	out->a_profiled = boots_with(ta, out->unit, 0);
	out->b_profiled = boots_with(tb, out->unit, 0);
	if (!(out->profile_absent = profile_why(out)) &&
	    (r = lines(&p, 1, &out->profile, &out->nr_profile, DELTAS_PROFILE_ROWS, by_delta,
		       &out->symbols)) < 0)
		return r;
	if (out->a_boots < 2 || out->b_boots < 2)
		out->counters_absent = out->a_boots && out->b_boots
					       ? "fewer than 2 boots with counters a side"
					       : "a side has no counters";
	else if ((r = lines(&p, 0, &out->counters, &out->nr_counters, DELTAS_COUNTER_ROWS, by_rel,
			    &counters)) < 0)
		return r;
	return 0;
}

void deltas_diff_free(struct deltas_diff *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->w[i].profile);
		free(d->w[i].counters);
	}
	free(d->w);
	memset(d, 0, sizeof(*d));
}

int deltas_diff_make(const struct deltas_tally *a, const struct deltas_tally *b,
		     struct deltas_diff *out)
{
	memset(out, 0, sizeof(*out));
	if (!(out->w = calloc(a->nr_w ? a->nr_w : 1, sizeof(*out->w))))
		return -ENOMEM;
	for (size_t i = 0; i < a->nr_w; i++)
		for (size_t k = 0; k < b->nr_w; k++) {
			int r;

			if (strcmp(a->w[i].key, b->w[k].key))
				continue;
			r = workload_diff(&a->w[i], &b->w[k], &out->w[out->n]);
			out->n++;
			if (r < 0) {
				deltas_diff_free(out);
				return r;
			}
		}
	return 0;
}

const struct deltas_workload *deltas_find(const struct deltas_diff *d, const char *topology,
					  const char *workload, const char *params_text)
{
	_cleanup_free_ char *k = NULL;

	if (asprintf(&k, "%s / %s %s", topology, workload, params_text) < 0)
		return NULL;
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->w[i].key, k))
			return &d->w[i];
	return NULL;
}

int deltas_any(const struct deltas_workload *w)
{
	return w && (w->nr_profile || w->nr_counters ||
		     (w->profile_absent && (w->a_profiled || w->b_profiled)));
}
