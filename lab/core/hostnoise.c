#include "core/hostnoise.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int hostnoise_parse(const char *loadavg, const char *stat, struct host_sample *s)
{
	unsigned long long f[8] = {0};
	const char *line;
	int got_cpu = 0, got_running = 0;

	if (!loadavg || !stat || sscanf(loadavg, "%lf %lf", &s->load1, &s->load5) != 2 ||
	    !(s->load1 >= 0) || !(s->load5 >= 0))
		return -EINVAL;
	s->ncpus = 0;
	s->busy = s->steal = s->total = 0;
	for (line = stat; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (!strncmp(line, "cpu ", 4)) {
			/* user nice system idle iowait irq softirq steal (guest time is already in
			 * user and nice, so the guest fields are not added again). */
			if (sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &f[0], &f[1],
				   &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]) < 7)
				return -EINVAL;
			s->busy = f[0] + f[1] + f[2] + f[5] + f[6];
			s->steal = f[7];
			s->total = s->busy + f[3] + f[4] + f[7];
			got_cpu = 1;
		} else if (!strncmp(line, "cpu", 3) && line[3] >= '0' && line[3] <= '9') {
			s->ncpus++;
		} else if (!strncmp(line, "procs_running ", 14)) {
			if (sscanf(line + 14, "%lu", &s->running) != 1)
				return -EINVAL;
			got_running = 1;
		}
	}
	return got_cpu && got_running && s->ncpus ? 0 : -EINVAL;
}

/* Others' share of the host between a and b: busy time less own_cpu_s, over the capacity.
 * NAN when it cannot be known (no time passed, counters went backwards). */
static double others_share(const struct host_sample *a, const struct host_sample *b,
			   double own_cpu_s, long hz)
{
	double wall = b->t - a->t, busy, cap;

	if (!(wall > 0) || b->busy < a->busy || hz <= 0 || !b->ncpus)
		return NAN;
	busy = (double)(b->busy - a->busy) / (double)hz - (own_cpu_s > 0 ? own_cpu_s : 0);
	cap = wall * b->ncpus;
	busy = busy < 0 ? 0 : busy;
	return busy > cap ? 1.0 : busy / cap;
}

/* Append "; reason" (or the first reason) to n->why, cut at its size. */
__attribute__((format(printf, 2, 3))) static void why_add(struct host_noise *n, const char *fmt,
							   ...)
{
	size_t used = strlen(n->why);
	va_list ap;

	if (used && used + 2 < sizeof(n->why)) {
		memcpy(n->why + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(n->why + used, sizeof(n->why) - used, fmt, ap);
	va_end(ap);
}

void hostnoise_judge(struct host_noise *n, long hz)
{
	const struct host_sample *a = &n->before, *b = &n->after;
	unsigned long long dt = b->total > a->total ? b->total - a->total : 0;

	n->others_share = n->own_cpu_s >= 0 ? others_share(a, b, n->own_cpu_s, hz) : NAN;
	n->steal_share = dt && b->steal >= a->steal ? (double)(b->steal - a->steal) / (double)dt
						    : 0;
	n->why[0] = '\0';
	if (n->others_share > HOSTNOISE_BUSY_LIMIT)
		why_add(n, "other work took %.0f %% of the host's CPU time", 100 * n->others_share);
	if (n->steal_share > HOSTNOISE_STEAL_LIMIT)
		why_add(n, "steal time %.0f %%", 100 * n->steal_share);
	if (a->other_qemu || b->other_qemu)
		why_add(n, "%u other QEMU process(es) running",
			a->other_qemu > b->other_qemu ? a->other_qemu : b->other_qemu);
	n->contended = n->why[0] != '\0';
}

int hostnoise_quiet(const struct host_sample *a, const struct host_sample *b, long hz)
{
	double share = others_share(a, b, 0, hz);

	return !a->other_qemu && !b->other_qemu && share <= HOSTNOISE_QUIET_LIMIT;
}

unsigned hostnoise_free_cpus(const struct host_sample *a, const struct host_sample *b, long hz)
{
	double share = others_share(a, b, 0, hz), busy;

	if (!b->ncpus)
		return 1;
	if (!isfinite(share))
		return b->ncpus;
	busy = round(share * b->ncpus);
	return busy >= b->ncpus ? 1 : b->ncpus - (unsigned)busy;
}

static json_t *sample_json(const struct host_sample *s)
{
	return json_pack("{s:f, s:f, s:I, s:i, s:i}", "load1", s->load1, "load5", s->load5,
			 "runnable", (json_int_t)s->running, "other_qemu", (int)s->other_qemu,
			 "cpus", (int)s->ncpus);
}

/* A share as a number, or null when unknown. */
static json_t *share_json(double x)
{
	return isfinite(x) ? json_real(round(x * 1e4) / 1e4) : json_null();
}

json_t *hostnoise_json(const struct host_noise *n, double waited_s, int quiet_wait)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:b, s:s, s:f, s:b}",
			 "before", sample_json(&n->before), "after", sample_json(&n->after),
			 "others_share", share_json(n->others_share),
			 "steal_share", share_json(n->steal_share),
			 "own_cpu_s", n->own_cpu_s >= 0 ? json_real(n->own_cpu_s) : json_null(),
			 "contended", n->contended, "why", n->why, "waited_s", waited_s,
			 "quiet_before", quiet_wait);
}
