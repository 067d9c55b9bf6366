/* Bringing the guest's CPUs online after boot (PROTOCOL.md, "online_after_boot").
 *
 * Under TCG the lab boots big guests with maxcpus=2 and lets the agent online the rest: until
 * the clocksource switch at fs_initcall the kernel runs a periodic tick on every online CPU,
 * idle or not, and under TCG each tick of each vCPU is a wake-up of a host thread through
 * QEMU's global lock.  With 512 CPUs online that is 51,200 interrupts a second on 2 host
 * cores, and the boot CPU's own work (ACPI, PCI, initcalls) crawls.  Onlined after boot, idle
 * CPUs are tickless (NO_HZ_IDLE) and cost nothing (measurements: topologies/README.md).
 *
 * Each CPU that comes up rebuilds the scheduler domains over all active CPUs
 * (sched_cpu_activate -> cpuset_update_active_cpus), and a rebuild costs about the square of
 * the count (every CPU's groups span its node or the machine), so onlining one by one costs
 * the cube: 510 CPUs took 130 s.  With a cgroup v1 cpuset hierarchy mounted, the root's
 * cpuset.sched_load_balance = 0 leaves the CPUs without domains while they come up, and
 * writing 1 back builds the one domain tree over all of them once: the same tree a boot-time
 * bring-up or the last hotplug builds (generate_sched_domains' single root domain). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"
#include "rt_online.h"
#include "util/fs.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define LIST_MAX (64 * 1024)
#define FAILED_MAX 16 /* failures listed one by one; the count covers all */

static int online_read_list(const char *root, const char *name, unsigned **cpus, size_t *n)
{
	_cleanup_free_ char *path = NULL, *s = NULL;
	int r;

	if (asprintf(&path, "%s" CPU_DIR "/%s", root, name) < 0)
		return -ENOMEM;
	r = fs_read_file(path, LIST_MAX, &s, NULL);
	return r < 0 ? r : rt_parse_cpulist(s, cpus, n);
}

static int online_one(const char *root, unsigned cpu)
{
	_cleanup_free_ char *path = NULL;

	if (asprintf(&path, "%s" CPU_DIR "/cpu%u/online", root, cpu) < 0)
		return -ENOMEM;
	return rt_write_file(path, "1");
}

/* CPUs in present but not in online; both sorted. */
static size_t online_missing(const unsigned *present, size_t np, const unsigned *online,
			     size_t no, unsigned *out)
{
	size_t k = 0, j = 0;

	for (size_t i = 0; i < np; i++) {
		while (j < no && online[j] < present[i])
			j++;
		if (j >= no || online[j] != present[i])
			out[k++] = present[i];
	}
	return k;
}

/* The root cpuset's load balancing off while onlining, when the caller mounted one: 1 when it
 * was on and is now off (to be turned back on), 0 when there is nothing to batch. */
static int online_balance_off(const char *balance)
{
	_cleanup_free_ char *old = NULL;

	if (!balance || fs_read_file(balance, 64, &old, NULL) < 0 || old[0] != '1')
		return 0;
	return rt_write_file(balance, "0") == 0;
}

static void online_beat(double beat_s, rt_online_beat beat, void *ud, unsigned done,
			unsigned total, double *next)
{
	if (beat && rt_now_s() >= *next) {
		beat(ud, done, total);
		*next = rt_now_s() + beat_s;
	}
}

int rt_online_all(const char *root, const char *cpuset, double beat_s, rt_online_beat beat,
		  void *ud, json_t **out)
{
	_cleanup_free_ unsigned *present = NULL, *online = NULL, *todo = NULL;
	_cleanup_free_ char *rcu = NULL, *old = NULL, *balance = NULL;
	size_t np, no, nt, nfail = 0;
	double start = rt_now_s(), next = start + beat_s, rebuild = 0;
	json_t *failed, *line;
	int r, expedited, batched, restored = 0;

	*out = NULL;
	if (asprintf(&rcu, "%s/sys/kernel/rcu_expedited", root) < 0 ||
	    (cpuset && asprintf(&balance, "%s%s/cpuset.sched_load_balance", root, cpuset) < 0))
		return -ENOMEM;
	if ((r = online_read_list(root, "present", &present, &np)) < 0 ||
	    (r = online_read_list(root, "online", &online, &no)) < 0)
		return r;
	if (!(todo = calloc(np ? np : 1, sizeof(*todo))))
		return -ENOMEM;
	nt = online_missing(present, np, online, no, todo);
	/* Expedited RCU grace periods while onlining: each CPU-up waits for a few grace periods
	 * (cpu_hotplug_lock's rcu_sync, sched-domain rebuilds) and normal ones take jiffies
	 * each; expedited ones only interrupt non-idle CPUs, here almost none.  Restored after. */
	expedited = nt && fs_read_file(rcu, 64, &old, NULL) == 0 && rt_write_file(rcu, "1") == 0;
	batched = nt && online_balance_off(balance);
	failed = json_array();
	for (size_t i = 0; failed && i < nt; i++) {
		r = online_one(root, todo[i]);
		if (r < 0 && nfail++ < FAILED_MAX)
			json_array_append_new(failed, json_pack("{s:I, s:s}", "cpu",
								(json_int_t)todo[i], "error",
								strerror(-r)));
		online_beat(beat_s, beat, ud, (unsigned)(i + 1), (unsigned)nt, &next);
	}
	/* Load balancing back on even when something failed: a guest left without scheduler
	 * domains would distort every workload, so failing to restore it is an error. */
	if (batched) {
		rebuild = rt_now_s();
		restored = rt_write_file(balance, "1");
		rebuild = rt_now_s() - rebuild;
	}
	if (expedited)
		rt_write_file(rcu, old[0] == '1' ? "1" : "0");
	if (!failed || restored < 0) {
		json_decref(failed);
		return restored < 0 ? restored : -ENOMEM;
	}
	line = json_pack("{s:s, s:I, s:I, s:I, s:o, s:f, s:b, s:b, s:f}", CHANNEL_KEY_TYPE,
			 CHANNEL_T_CPUS_ONLINE, "present", (json_int_t)np, "requested",
			 (json_int_t)nt, "failed_count", (json_int_t)nfail, "failed", failed,
			 "wall_s", rt_now_s() - start, "rcu_expedited", expedited,
			 "domains_batched", batched, "rebuild_s", rebuild);
	if (!line)
		return -ENOMEM;
	*out = line;
	return 0;
}
