/* Per-task perf counters around the measured window (perf_event_open on the calling thread).
 * Software counters work everywhere; the hardware ones need a PMU, which TCG guests (and some
 * hosts) lack: those are recorded as unavailable with the kernel's reason, never as zero. */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "rt_bench.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} rt_perf_def[RT_PERF_NR] = {
	[RT_PERF_TASK_CLOCK] = { "perf_task_clock_s", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	[RT_PERF_PAGE_FAULTS] = { "perf_page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	[RT_PERF_MINOR_FAULTS] = { "perf_minor_faults", PERF_TYPE_SOFTWARE,
				   PERF_COUNT_SW_PAGE_FAULTS_MIN },
	[RT_PERF_MAJOR_FAULTS] = { "perf_major_faults", PERF_TYPE_SOFTWARE,
				   PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	[RT_PERF_CONTEXT_SWITCHES] = { "perf_context_switches", PERF_TYPE_SOFTWARE,
				       PERF_COUNT_SW_CONTEXT_SWITCHES },
	[RT_PERF_CPU_MIGRATIONS] = { "perf_cpu_migrations", PERF_TYPE_SOFTWARE,
				     PERF_COUNT_SW_CPU_MIGRATIONS },
	[RT_PERF_CYCLES] = { "perf_cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[RT_PERF_INSTRUCTIONS] = { "perf_instructions", PERF_TYPE_HARDWARE,
				   PERF_COUNT_HW_INSTRUCTIONS },
	[RT_PERF_STALLED_FRONTEND] = { "perf_stalled_cycles_frontend", PERF_TYPE_HARDWARE,
				       PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	[RT_PERF_STALLED_BACKEND] = { "perf_stalled_cycles_backend", PERF_TYPE_HARDWARE,
				      PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
};

const char *rt_perf_name(enum rt_perf_id id)
{
	return (unsigned)id < RT_PERF_NR ? rt_perf_def[id].name : "?";
}

/* One event on the calling thread, disabled when it leads (members follow their leader). */
static int rt_perf_event(uint32_t type, uint64_t config, int group)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = group < 0;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static int rt_perf_one(enum rt_perf_id id, int group)
{
	return rt_perf_event(rt_perf_def[id].type, rt_perf_def[id].config, group);
}

/* The kernel turns its perf scheduling hooks on when the system's first task-bound event is
 * created (a static key, then synchronize_rcu(): kernel/events/core.c, account_event) and off
 * HZ after the last one is closed (perf_sched_work).  Each task of a workload opens its
 * counters in its setup, so whenever that delayed work had run since the previous repetition
 * the setup waited out an RCU grace period: memscale's took 46 ms instead of 0.3 ms, its
 * run_s 17 times its usual, in 1 of ~40 boots (configs/ab.json, seed 209, traced with the
 * vCPU clock: perf_event_open -> synchronize_rcu, then ticks until the grace period ended).
 * The agent holds this one for its life, so the hooks are on from before the first workload. */
int rt_perf_hold(void)
{
	return rt_perf_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, -1);
}

/* Two groups, so that a PMU that cannot take the hardware events never stops the software
 * ones from counting. */
void rt_perf_open(struct rt_perf *p, struct rt_perf_counts *c)
{
	memset(c, 0, sizeof(*c));
	p->sw_leader = p->hw_leader = -1;
	for (int i = 0; i < RT_PERF_NR; i++) {
		int hw = rt_perf_def[i].type == PERF_TYPE_HARDWARE;
		int *leader = hw ? &p->hw_leader : &p->sw_leader;
		int fd = rt_perf_one((enum rt_perf_id)i, *leader >= 0 ? p->fd[*leader] : -1);

		/* A member the group refuses may still count alone as the leader of nothing:
		 * simpler to call it unavailable and say why. */
		p->fd[i] = fd < 0 ? -1 : fd;
		c->err[i] = fd < 0 ? fd : 0;
		if (fd >= 0 && *leader < 0)
			*leader = i;
	}
}

void rt_perf_start(struct rt_perf *p)
{
	if (p->sw_leader >= 0)
		ioctl(p->fd[p->sw_leader], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	if (p->hw_leader >= 0)
		ioctl(p->fd[p->hw_leader], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	if (p->sw_leader >= 0)
		ioctl(p->fd[p->sw_leader], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	if (p->hw_leader >= 0)
		ioctl(p->fd[p->hw_leader], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

void rt_perf_stop(struct rt_perf *p, struct rt_perf_counts *c)
{
	if (p->hw_leader >= 0)
		ioctl(p->fd[p->hw_leader], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (p->sw_leader >= 0)
		ioctl(p->fd[p->sw_leader], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	for (int i = 0; i < RT_PERF_NR; i++) {
		uint64_t v[3]; /* value, time enabled, time running */

		if (p->fd[i] < 0)
			continue;
		if (read(p->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v)) {
			c->err[i] = -EIO;
			continue;
		}
		if (v[1] > 0 && v[2] == 0) {
			c->err[i] = -EBUSY; /* enabled but never scheduled on a counter */
			continue;
		}
		if (v[2] < v[1]) {
			c->multiplexed |= 1u << i;
			v[0] = (uint64_t)((double)v[0] * (double)v[1] / (double)v[2]);
		}
		c->v[i] = v[0];
	}
}

void rt_perf_close(struct rt_perf *p)
{
	for (int i = 0; i < RT_PERF_NR; i++)
		if (p->fd[i] >= 0) {
			close(p->fd[i]);
			p->fd[i] = -1;
		}
	p->sw_leader = p->hw_leader = -1;
}
