/* /proc/vmstat deltas around a run, and the latency histogram. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "rt_bench.h"
#include "util/fs.h"

/* The counters the seeds talk about: faults, THP allocation and fallback, NUMA locality, and
 * the per-VMA lock statistics (CONFIG_PER_VMA_LOCK_STATS, 6.4+) when the kernel has them. */
static const char *const rt_vmstat_names[RT_VMSTAT_NR] = {
	"pgfault",        "pgmajfault",       "thp_fault_alloc",  "thp_fault_fallback",
	"thp_fault_fallback_charge", "numa_hit", "numa_miss",     "numa_foreign",
	"numa_local",     "numa_other",       "numa_interleave",  "vma_lock_success",
	"vma_lock_retry", "vma_lock_abort",   "vma_lock_miss",
};

/* /proc/lock_stat, read with /proc/vmstat: before the team is released (t_release) and after
 * all are done (t_done), so the time lockdep takes to print it is outside the timings. */
static void lockstat_read(struct rt_vmstat *s)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;

	s->lock_stat_ok = fs_read_file("/proc/lock_stat", LOCKSTAT_MAX_TEXT, &buf, &len) == 0 &&
			  lockstat_parse(buf, len, &s->lock_stat) == 0;
}

json_t *rt_lockstat_delta_json(const struct rt_vmstat *a, const struct rt_vmstat *b)
{
	return a->lock_stat_ok && b->lock_stat_ok ? lockstat_delta_json(&a->lock_stat, &b->lock_stat)
						  : NULL;
}

void rt_vmstat_read(struct rt_vmstat *s)
{
	_cleanup_free_ char *buf = NULL;
	int r = fs_read_file("/proc/vmstat", 1 << 20, &buf, NULL);

	memset(s, 0, sizeof(*s));
	lockstat_read(s);
	if (r < 0) {
		s->err = r;
		return;
	}
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n'), *sp = strchr(line, ' ');

		if (nl)
			*nl = '\0';
		if (sp) {
			*sp = '\0';
			for (int i = 0; i < RT_VMSTAT_NR; i++)
				if (!strcmp(line, rt_vmstat_names[i])) {
					s->v[i] = strtoull(sp + 1, NULL, 10);
					s->present |= 1u << i;
				}
		}
		line = nl ? nl + 1 : NULL;
	}
}

json_t *rt_vmstat_delta_json(const struct rt_vmstat *a, const struct rt_vmstat *b,
			     json_t **absent)
{
	json_t *d = json_object();

	*absent = json_array();
	for (int i = 0; d && *absent && i < RT_VMSTAT_NR; i++) {
		if (!(a->present & b->present & (1u << i))) {
			json_array_append_new(*absent, json_string(rt_vmstat_names[i]));
			continue;
		}
		/* Counters only grow; a smaller value would be a wrapped or reset counter. */
		json_object_set_new(d, rt_vmstat_names[i],
				    json_integer(b->v[i] >= a->v[i]
							 ? (json_int_t)(b->v[i] - a->v[i]) : 0));
	}
	return d;
}

void rt_hist_merge(struct rt_hist *into, const struct rt_hist *h)
{
	for (unsigned i = 0; i < RT_HIST_BUCKETS; i++)
		into->b[i] += h->b[i];
	into->count += h->count;
	if (h->max > into->max)
		into->max = h->max;
}

/* Lower bound and width of bucket i (the inverse of rt_hist_index). */
static void rt_hist_bucket(unsigned i, double *lo, double *width)
{
	unsigned e, sub;

	if (i < 64) {
		*lo = i;
		*width = 1;
		return;
	}
	e = (i - 64) / 32 + 6;
	sub = (i - 64) % 32;
	*width = ldexp(1.0, (int)e - 5);
	*lo = ldexp(1.0, (int)e) + sub * *width;
}

double rt_hist_quantile(const struct rt_hist *h, double q)
{
	uint64_t want, seen = 0;
	double lo, width;

	if (h->count == 0)
		return 0;
	want = (uint64_t)ceil(q * (double)h->count);
	if (want < 1)
		want = 1;
	for (unsigned i = 0; i < RT_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want) {
			rt_hist_bucket(i, &lo, &width);
			lo += width > 1 ? width / 2 : 0;
			return lo > (double)h->max ? (double)h->max : lo;
		}
	}
	return (double)h->max;
}
