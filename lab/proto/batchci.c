#include "proto/batchci.h"

#include <errno.h>
#include <math.h>

/* Student's t, two-sided 95 %, BATCHCI_BATCHES - 1 = 9 degrees of freedom. */
#define BATCHCI_T 2.262157162798205
_Static_assert(BATCHCI_BATCHES == 10, "BATCHCI_T is the t quantile for 9 degrees of freedom");

void batchci_init(struct batchci_samples *s, double t0, double every)
{
	s->t[0] = t0;
	s->ops[0] = 0;
	s->n = 1;
	s->every = every;
}

/* Keep samples 0, 2, 4, ... and the newest: half the buffer, the same span. */
static void batchci_compact(struct batchci_samples *s)
{
	size_t last = s->n - 1, k = 0;

	for (size_t i = 0; i < last; i += 2, k++) {
		s->t[k] = s->t[i];
		s->ops[k] = s->ops[i];
	}
	s->t[k] = s->t[last];
	s->ops[k] = s->ops[last];
	s->n = k + 1;
	s->every *= 2;
}

int batchci_add(struct batchci_samples *s, double t, uint64_t ops)
{
	if (s->n == 0 || !(t > s->t[s->n - 1]) || ops < s->ops[s->n - 1])
		return -EINVAL;
	if (s->n == BATCHCI_MAX_SAMPLES)
		batchci_compact(s);
	s->t[s->n] = t;
	s->ops[s->n] = ops;
	s->n++;
	return 0;
}

/* The count of series s at time x in [t[0], t[n-1]], interpolated. */
static double batchci_count_at(const struct batchci_samples *s, double x)
{
	size_t lo = 0, hi = s->n - 1;

	if (x >= s->t[hi])
		return (double)s->ops[hi];
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->t[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return (double)s->ops[lo] +
	       (double)(s->ops[hi] - s->ops[lo]) * (x - s->t[lo]) / (s->t[hi] - s->t[lo]);
}

static double batchci_team_at(const struct batchci_samples *s, size_t n, double x)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += batchci_count_at(&s[i], x);
	return sum;
}

int batchci_rate(const struct batchci_samples *s, size_t n, double *rate, double *rel_half_width)
{
	double t0, end, len, prev, r[BATCHCI_BATCHES], mean = 0, ss = 0;

	if (n == 0)
		return -EINVAL;
	t0 = s[0].t[0];
	end = s[0].t[s[0].n - 1];
	for (size_t i = 1; i < n; i++)
		end = fmin(end, s[i].t[s[i].n - 1]);
	if (!(end > t0))
		return -EINVAL;
	len = (end - t0) / BATCHCI_BATCHES;
	*rate = batchci_team_at(s, n, end) / (end - t0);
	if (!(*rate > 0))
		return -ERANGE;
	prev = batchci_team_at(s, n, t0);
	for (int b = 1; b <= BATCHCI_BATCHES; b++) {
		double now = batchci_team_at(s, n, b == BATCHCI_BATCHES ? end : t0 + len * b);

		r[b - 1] = (now - prev) / len;
		mean += r[b - 1] / BATCHCI_BATCHES;
		prev = now;
	}
	for (int b = 0; b < BATCHCI_BATCHES; b++)
		ss += (r[b] - mean) * (r[b] - mean);
	*rel_half_width = BATCHCI_T * sqrt(ss / (BATCHCI_BATCHES - 1) / BATCHCI_BATCHES) / mean;
	return 0;
}
