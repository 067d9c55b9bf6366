/* The projection's Monte Carlo over the priors: see projection.h. */
#include "analysis/projection.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mva.h"
#include "util/cleanup.h"

/* splitmix64 (Steele, Lea, Flood, 2014): the draws depend on the seed alone, on every host. */
static uint64_t next64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform01(uint64_t *s)
{
	return (double)(next64(s) >> 11) * 0x1.0p-53;
}

static double draw(const struct proj_prior *p, uint64_t *s)
{
	double u = uniform01(s);

	return p->log ? exp(log(p->lo) + u * (log(p->hi) - log(p->lo)))
		      : p->lo + u * (p->hi - p->lo);
}

void projection_handoff_odds(unsigned n, unsigned sockets, unsigned cps, double *remote,
			     double *local)
{
	double same_socket = 0;
	unsigned left = n;

	for (unsigned s = 0; s < sockets && left; s++) {
		unsigned k = left < cps ? left : cps;

		same_socket += ((double)k / n) * ((double)k / n);
		left -= k;
	}
	*remote = 1 - same_socket;
	*local = same_socket - 1.0 / n;
	if (*local < 0)
		*local = 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of sorted v[0..n), linear between order statistics (Hyndman-Fan type 7). */
static double quantile(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t i = (size_t)h;

	return i + 1 < n ? v[i] + (h - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

static int valid(const struct proj_input *in)
{
	return isfinite(in->insn_inside) && in->insn_inside > 0 && isfinite(in->insn_outside) &&
	       in->insn_outside >= 0 && in->sockets >= 1 && in->cpus_per_socket >= 1 &&
	       in->nmax >= 1 && in->nmax <= PROJ_MAX_CPUS &&
	       in->nmax <= (unsigned long long)in->sockets * in->cpus_per_socket &&
	       in->draws >= 1 && in->draws <= PROJ_MAX_DRAWS &&
	       (in->lock == PROJ_LOCK_QUEUED || in->lock == PROJ_LOCK_TICKET);
}

/* One draw: the curve in operations per second into x[0..nmax), X(n)/X(1) into sp, the knee
 * into *knee.  The hand-off is a property of the N CPUs that share the lock, so each N is
 * solved with its own constant H_N through populations 1..N (an H that grew inside one
 * recursion would let X overshoot 1 / (S + H_N)): O(nmax^2) steps a draw. */
static int one_draw(const struct proj_input *in, const struct proj_priors *pr, uint64_t *rng,
		    const double *odds, struct mva_point *pts, double *x, double *sp, double *knee)
{
	double cpi = draw(&pr->cpi, rng), ghz = draw(&pr->clock_ghz, rng);
	double loc = draw(&pr->line_local_ns, rng), rem = draw(&pr->line_remote_ns, rng);
	double ns_per_insn = cpi / ghz, z = in->insn_outside * ns_per_insn;
	double s = in->insn_inside * ns_per_insn, h = 0;
	int r;

	if (in->private_lock) {
		for (unsigned n = 1; n <= in->nmax; n++) {
			x[n - 1] = n / (z + s) * 1e9;
			sp[n - 1] = n;
		}
		*knee = INFINITY;
		return 0;
	}
	for (unsigned n = 1; n <= in->nmax; n++) {
		h = in->no_transfer ? 0 : odds[2 * (n - 1)] * rem + odds[2 * (n - 1) + 1] * loc;
		if ((r = mva_solve_lock(z, s, h, in->lock == PROJ_LOCK_TICKET, n, pts)) < 0)
			return r;
		x[n - 1] = pts[n - 1].x * 1e9; /* per ns -> per s */
		sp[n - 1] = x[n - 1] / x[0];
	}
	*knee = (z + s + h) / (s + h);
	return 0;
}

int projection_run(const struct proj_input *in, const struct proj_priors *pr,
		   struct proj_result *out)
{
	size_t nd = in->draws, nn = in->nmax;
	_cleanup_free_ double *x = NULL, *sp = NULL, *col = NULL, *knees = NULL, *odds = NULL;
	_cleanup_free_ struct mva_point *pts = NULL;
	uint64_t rng = in->seed;
	int r;

	if (!valid(in) || !out || !out->points)
		return -EINVAL;
	x = calloc(nd * nn, sizeof(*x));
	sp = calloc(nd * nn, sizeof(*sp));
	col = calloc(nd, sizeof(*col));
	knees = calloc(nd, sizeof(*knees));
	pts = calloc(nn, sizeof(*pts));
	odds = calloc(2 * nn, sizeof(*odds));
	if (!x || !sp || !col || !knees || !pts || !odds)
		return -ENOMEM;
	/* The hand-off's odds (across sockets, within one) depend on n alone, not on the draw. */
	for (size_t n = 0; n < nn; n++)
		projection_handoff_odds((unsigned)n + 1, in->sockets, in->cpus_per_socket,
					&odds[2 * n], &odds[2 * n + 1]);
	for (size_t k = 0; k < nd; k++)
		if ((r = one_draw(in, pr, &rng, odds, pts, x + k * nn, sp + k * nn, &knees[k])) < 0)
			return r;
	for (size_t n = 0; n < nn; n++) {
		struct proj_point *p = &out->points[n];

		for (size_t k = 0; k < nd; k++)
			col[k] = x[k * nn + n];
		qsort(col, nd, sizeof(*col), cmp_double);
		*p = (struct proj_point){ .n = (unsigned)n + 1, .lo = quantile(col, nd, 0.05),
					  .mid = quantile(col, nd, 0.5),
					  .hi = quantile(col, nd, 0.95) };
		for (size_t k = 0; k < nd; k++)
			col[k] = sp[k * nn + n];
		qsort(col, nd, sizeof(*col), cmp_double);
		p->speedup_lo = quantile(col, nd, 0.05);
		p->speedup_mid = quantile(col, nd, 0.5);
		p->speedup_hi = quantile(col, nd, 0.95);
	}
	qsort(knees, nd, sizeof(*knees), cmp_double);
	for (int i = 0; i < 3; i++) /* a private lock's knees are all infinite: no quantile */
		out->knee[i] = in->private_lock ? INFINITY
						: quantile(knees, nd, i == 0 ? 0.05 : i == 1 ? 0.5 : 0.95);
	out->p_remote_nmax = odds[2 * (nn - 1)];
	return 0;
}

static const char *lock_words(const struct proj_input *in)
{
	if (in->private_lock)
		return "lock per CPU (each task its own, as measured: nobody waits at it)";
	return in->lock == PROJ_LOCK_TICKET ? "ticket spinlock (every waiter reads each release)"
					    : "queued spinlock (the lock goes to one waiter)";
}

static const char *lock_name(const struct proj_input *in)
{
	if (in->private_lock)
		return "private";
	return in->lock == PROJ_LOCK_TICKET ? "ticket" : "queued";
}

int projection_text(const struct proj_input *in, const struct proj_priors *pr,
		    const struct proj_label *l, const struct proj_result *res, struct strbuf *sb)
{
	(void)pr;
	strbuf_appendf(sb, "PROJECTION, not a measurement: never part of a verdict.\n"
		       "model: %s%s, exact MVA of the machine-repairman model;\n"
		       "       %s\n"
		       "inputs: %.6g instructions inside the lock and %.6g outside it, per "
		       "operation\n"
		       "target: %s, %u sockets of %u CPUs, 1..%u CPUs filling socket 0 first\n"
		       "band: 5-95 %% over %u draws of %s (seed %llu), not a confidence interval\n",
		       in->private_lock ? "a " : "one shared ", lock_words(in),
		       in->private_lock ? "no hand-off: the line stays with its CPU"
		       : in->no_transfer ? "no hand-off cost (the contention model's terms)"
				       : "a hand-off per acquisition: the lock's line moving within "
					 "or across sockets",
		       in->insn_inside, in->insn_outside, l->target, in->sockets,
		       in->cpus_per_socket, in->nmax, in->draws, l->priors,
		       (unsigned long long)in->seed);
	if (in->private_lock)
		strbuf_append(sb, "knee: none (a lock per CPU: the model's line is n times one "
			      "CPU's; other shared costs are outside it)\n\n");
	else
		strbuf_appendf(sb, "knee: %.1f CPUs [%.1f, %.1f]; at %u CPUs %.0f %% of hand-offs "
			       "cross sockets\n\n", res->knee[1], res->knee[0], res->knee[2],
			       in->nmax, 100 * res->p_remote_nmax);
	strbuf_appendf(sb, "%6s  %14s  %14s  %14s  %10s\n", "CPUs", "ops/s 5 %", "50 %", "95 %",
		       "speed-up");
	/* Powers of two, then the target's size. */
	for (unsigned n = 1;; n = n * 2 > in->nmax ? in->nmax : n * 2) {
		const struct proj_point *p = &res->points[n - 1];

		strbuf_appendf(sb, "%6u  %14.4g  %14.4g  %14.4g  %10.2f\n", n, p->lo, p->mid, p->hi,
			       p->speedup_mid);
		if (n == in->nmax)
			break;
	}
	return sb->err;
}

json_t *projection_json(const struct proj_input *in, const struct proj_priors *pr,
			const struct proj_label *l, const struct proj_result *res)
{
	json_t *pts = json_array(), *o, *knee;

	for (unsigned n = 0; pts && n < in->nmax; n++) {
		const struct proj_point *p = &res->points[n];

		if (json_array_append_new(pts, json_pack("{s:I, s:{s:f, s:f, s:f}, s:f, s:f, s:f}",
			"cpus", (json_int_t)p->n, "ops_per_s", "p5", p->lo, "p50", p->mid, "p95",
			p->hi, "speedup_p5", p->speedup_lo, "speedup_p50", p->speedup_mid,
			"speedup_p95", p->speedup_hi)) < 0) {
			json_decref(pts);
			pts = NULL;
		}
	}
	/* A private lock has no knee: null, since JSON has no infinity. */
	knee = in->private_lock ? json_null()
				: json_pack("{s:f, s:f, s:f}", "p5", res->knee[0], "p50",
					    res->knee[1], "p95", res->knee[2]);
	o = json_pack("{s:s, s:b, s:s, s:{s:s, s:s, s:b}, s:{s:f, s:f, s:s, s:I, s:I, s:I, s:I, "
		      "s:I, s:s}, s:o, s:o, s:f, s:o}",
		      "schema", PROJECTION_SCHEMA, "projection", 1, "note",
		      "a projection from a model and assumed priors, not a measurement; the band is "
		      "5-95 % over the draws; it never enters a verdict",
		      "model", "kind", "mva-machine-repairman", "lock", lock_name(in), "hand_off",
		      !in->no_transfer && !in->private_lock,
		      "inputs", "insn_inside", in->insn_inside, "insn_outside", in->insn_outside,
		      "target", l->target, "sockets", (json_int_t)in->sockets, "cpus_per_socket",
		      (json_int_t)in->cpus_per_socket, "project_to", (json_int_t)in->nmax,
		      "draws", (json_int_t)in->draws, "seed", (json_int_t)in->seed, "priors_file",
		      l->priors, "priors", projpriors_to_json(pr), "knee", knee, "p_remote_at_max",
		      in->private_lock ? 0.0 : res->p_remote_nmax, "points", pts);
	return o;
}
