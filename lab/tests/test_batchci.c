/* The stopping rule of sized workloads (lab/proto/batchci.h) on synthetic counts: a steady
 * rate has no width; a map/touch/unmap-like cycle (counts only in 80 % of each 16 ms) sampled
 * every 10 ms narrows as the run lengthens, slowly when the running count is sampled and at
 * once when each task's cycle ends are its samples, one task or four out of phase; a rate that halves halfway stays wide; the buffer
 * compacts without moving the rate; bad samples are refused.  The figures are golden
 * (lab/tests/golden/batchci.txt; UPDATE_GOLDEN=1 rewrites it). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto/batchci.h"
#include "testutil.h"

/* Operations done by time t at `rate` ops/s while on, a cycle of `cycle` s on for `duty` of it;
 * after `halve_at` (> 0) at half the rate. */
static uint64_t ops_at(double t, double rate, double cycle, double duty, double halve_at)
{
	double on = cycle > 0 ? (floor(t / cycle) * duty * cycle + fmin(fmod(t, cycle), duty * cycle))
			      : t;

	if (halve_at > 0 && t > halve_at) {
		double on_h = cycle > 0 ? (floor(halve_at / cycle) * duty * cycle +
					   fmin(fmod(halve_at, cycle), duty * cycle))
					: halve_at;

		return (uint64_t)(rate * on_h + rate / 2 * (on - on_h));
	}
	return (uint64_t)(rate * on);
}

/* Task i of `tasks` at a look at time x: its newest cycle end (cycles shifted by i / tasks of a
 * cycle, each cycle's operations counted at its end) and its count then; t 0 before one. */
static void cycle_end(double x, double rate, double cycle, double duty, unsigned tasks,
		      unsigned i, double *t, uint64_t *ops)
{
	double shift = cycle * i / tasks, ends = floor((x + shift) / cycle);

	*t = ends * cycle - shift;
	*ops = *t > 0 ? (uint64_t)(rate / tasks * duty * *t) : 0;
}

/* Look every 10 ms (doubling on compaction) up to span seconds; one golden line.  tasks > 0:
 * each task's series of cycle ends, as the runner keeps them, else one series of the running
 * count read at each look. */
static void one(char **text, const char *name, double span, double rate, double cycle,
		double duty, double halve_at, unsigned tasks)
{
	unsigned ns = tasks ? tasks : 1;
	struct batchci_samples *s = calloc(ns, sizeof(*s));
	double r = 0, hw = 0, next = 0.01;
	char *prev = *text;
	int rc;

	if (!s)
		return;
	for (unsigned i = 0; i < ns; i++)
		batchci_init(&s[i], 0, 0.01);
	while (next <= span + 1e-9) {
		for (unsigned i = 0; i < ns; i++) {
			double t = next;
			uint64_t c;

			if (tasks)
				cycle_end(next, rate, cycle, duty, tasks, i, &t, &c);
			else
				c = ops_at(next, rate, cycle, duty, halve_at);
			if (t > s[i].t[s[i].n - 1])
				batchci_add(&s[i], t, c);
		}
		next += s[0].every;
	}
	rc = batchci_rate(s, ns, &r, &hw);
	if (asprintf(text, "%s%-28s span %7.2f s  samples %3zu  every %6.3f s  rc %d  rate %12.1f  "
		     "half-width %8.4f %%\n", prev ? prev : "", name, span, s[0].n, s[0].every, rc, r,
		     hw * 100) < 0)
		*text = NULL;
	free(prev);
	free(s);
}

static void refused(void)
{
	struct batchci_samples *s = calloc(1, sizeof(*s));
	double r, hw;

	if (!s)
		return;
	batchci_init(s, 5, 0.01);
	tap_ok(batchci_rate(s, 1, &r, &hw) == -EINVAL, "one sample: no rate");
	tap_ok(batchci_rate(s, 0, &r, &hw) == -EINVAL, "no series: no rate");
	tap_ok(batchci_add(s, 5, 10) == -EINVAL && s->n == 1, "a sample at the same time refused");
	tap_ok(batchci_add(s, 6, 10) == 0, "a later one taken");
	tap_ok(batchci_add(s, 7, 9) == -EINVAL && s->n == 2, "a count that goes back refused");
	batchci_init(s, 0, 0.01);
	batchci_add(s, 1, 0);
	tap_ok(batchci_rate(s, 1, &r, &hw) == -ERANGE, "no operations: no relative width");
	free(s);
}

static void compaction(void)
{
	struct batchci_samples *s = calloc(1, sizeof(*s));
	double r = 0, hw = 0;
	int ok = 1;

	if (!s)
		return;
	batchci_init(s, 0, 0.01);
	for (int i = 1; i <= 2000; i++)
		ok &= batchci_add(s, i * 0.01, (uint64_t)i * 1000) == 0;
	tap_ok(ok && s->n <= BATCHCI_MAX_SAMPLES && s->t[0] == 0 && fabs(s->t[s->n - 1] - 20) < 1e-9,
	       "2000 samples kept in %zu, the first and the newest among them", s->n);
	tap_ok(batchci_rate(s, 1, &r, &hw) == 0 && fabs(r - 100000) < 1e-6 && hw < 1e-9,
	       "a steady rate through compaction: %.3f ops/s, width %g", r, hw);
	free(s);
}

int main(void)
{
	_cleanup_free_ char *text = NULL;

	refused();
	compaction();
	one(&text, "steady", 1, 250000, 0, 1, 0, 0);
	for (int est = 0; est <= 1; est++) {
		static const double spans[] = { 0.1, 0.2, 0.5, 1, 5, 60 };

		for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++)
			one(&text, est ? "16 ms cycle, at cycle ends" : "16 ms cycle, 80 % on, raw",
			    spans[i], 250000, 0.016, 0.8, 0, (unsigned)est);
	}
	one(&text, "4 tasks' cycles, at ends", 0.1, 250000, 0.016, 0.8, 0, 4);
	one(&text, "4 tasks' cycles, at ends", 1, 250000, 0.016, 0.8, 0, 4);
	one(&text, "halves at 0.5 s", 1, 250000, 0, 1, 0.5, 0);
	one(&text, "halves at 0.5 s", 10, 250000, 0, 1, 0.5, 0);
	testutil_golden("batchci.txt", text);
	return tap_done();
}
