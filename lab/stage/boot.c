#include "stage/boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/domain.h"
#include "stage/diskboot.h"
#include "stage/initramfs.h"
#include "stage/kparams.h"
#include "util/cleanup.h"
#include "util/fs.h"

/* A console log larger than this is read from its end: panics are near the end. */
#define CONSOLE_READ_MAX (16u << 20)

int boot_online_after(int kvm, unsigned vcpus, const char *extra)
{
	static const char *const limits[] = { "maxcpus=", "nr_cpus=", "nosmp" };

	if (kvm || vcpus <= BOOT_EARLY_CPUS)
		return 0;
	for (size_t i = 0; extra && i < sizeof(limits) / sizeof(limits[0]); i++)
		if (strstr(extra, limits[i]))
			return 0;
	return 1;
}

char *boot_cmdline(const char *kernel_image, int kvm, int online_after, const char *extra)
{
	char lpj[48] = "", maxcpus[32] = "";
	const char *tsc = "", *rcu = "", *cpuhp = "";
	unsigned long v;
	char *s;

	if (kernel_image && !(extra && strstr(extra, "lpj=")) && kparams_lpj(kernel_image, &v) == 0)
		snprintf(lpj, sizeof(lpj), " lpj=%lu", v);
	/* Under TCG every vCPU's TSC is the host's (QEMU adds one offset to the host counter),
	 * so it is synchronized, but with qemu64's vendor and no constant_tsc flag the kernel
	 * marks it unstable and falls back to the HPET: every clock read becomes an MMIO exit
	 * that takes QEMU's global lock, a convoy with hundreds of vCPU threads, and workload
	 * timings pay a syscall per clock_gettime.  RCU stall warnings during boot are TCG's
	 * oversubscription (hundreds of vCPUs on a few host cores), not kernel bugs, and each
	 * one NMIs and dumps every CPU over the serial port; stalls after boot are still told.
	 * Parallel CPU bring-up kicks every AP at once and each then spins (cpu_relax() in
	 * cpuhp_ap_sync_alive()) until the boot CPU releases it; under TCG a spinning vCPU is a
	 * busy host thread, so the boot CPU's serial work gets ~1/N of the host: quadratic.
	 * One AP at a time, the others sleep in HLT (measured: topologies/README.md). */
	if (!kvm) {
		tsc = extra && strstr(extra, "tsc=") ? "" : " tsc=reliable";
		rcu = " rcupdate.rcu_cpu_stall_suppress_at_boot=1";
		cpuhp = extra && strstr(extra, "cpuhp.parallel=") ? "" : " cpuhp.parallel=0";
	}
	/* panic=-1 reboots at once and the domain's on_reboot=destroy stops it, so a panic is
	 * noticed in milliseconds instead of by a timeout; oops=panic does the same for oopses.
	 * ttyS0 is the console (humans, panic detection); ttyS1 is the results channel. */
	/* Until fs_initcall switches to a real clocksource, every online CPU takes a periodic
	 * tick, idle or not; under TCG that is one host-thread wake-up through QEMU's global
	 * lock per vCPU per tick, and at 512 vCPUs it starves the boot CPU (rt_online.c).
	 * Two CPUs, not one: with one the kernel patches itself to uniprocessor code and back. */
	if (online_after)
		snprintf(maxcpus, sizeof(maxcpus), " maxcpus=%d", BOOT_EARLY_CPUS);
	if (asprintf(&s, "console=ttyS0 panic=-1 oops=panic rdinit=/init%s%s%s%s%s%s%s", lpj, tsc,
		     rcu, cpuhp, maxcpus,
		     extra && extra[0] ? " " : "", extra ? extra : "") < 0)
		return NULL;
	return s;
}

static int on_line(const char *line, size_t len, double t, void *ud)
{
	return collect_line(ud, line, len, t);
}

static int read_console_tail(const char *path, char **out, size_t *len)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	long size;
	char *buf;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0)
		return -errno;
	if ((unsigned long)size > CONSOLE_READ_MAX) {
		fseek(f, size - (long)CONSOLE_READ_MAX, SEEK_SET);
		size = CONSOLE_READ_MAX;
	} else {
		rewind(f);
	}
	buf = malloc((size_t)size + 1);
	if (!buf)
		return -ENOMEM;
	*len = fread(buf, 1, (size_t)size, f);
	buf[*len] = '\0';
	*out = buf;
	return 0;
}

static int boot_files(const struct boot_params *bp, char **initrd, char **console,
		      char **results)
{
	_cleanup_free_ char *dir = NULL;
	int r = fs_mkdir_p(bp->run_dir, 0755);

	if (r < 0)
		return r;
	/* libvirt wants absolute paths. */
	dir = realpath(bp->run_dir, NULL);
	if (!dir)
		return -errno;
	*initrd = fs_join(dir, "initrd.cpio");
	*console = fs_join(dir, "console.log");
	*results = fs_join(dir, "results.jsonl");
	if (!*initrd || !*console || !*results)
		return -ENOMEM;
	/* Stale files from an earlier run in the same directory must not be read as ours. */
	unlink(*console);
	unlink(*results);
	if (bp->disk) {
		char why[512];

		r = diskboot_initrd_write(bp->kernel, bp->runners_dir, bp->guestjob, *initrd, why,
					  sizeof(why));
		if (r < 0 && bp->why)
			snprintf(bp->why, bp->why_len, "%s", why);
		return r;
	}
	return initramfs_write(bp->runners_dir, bp->guestjob, *initrd);
}

static int boot_xml(const struct boot_params *bp, const char *initrd, const char *console,
		    const char *results, char **xml)
{
	struct domain_spec spec = {
		.name = bp->name,
		.topo = bp->topo,
		.accel = bp->accel,
		.kernel = bp->kernel,
		.initrd = initrd,
		.cmdline = bp->cmdline,
		.console_path = console,
		.results_path = results,
		.disk = bp->disk,
	};
	_cleanup_free_ char *path = fs_join(bp->run_dir, "domain.xml");
	int r = domain_xml(&spec, xml);

	if (r < 0 || !path)
		return r < 0 ? r : -ENOMEM;
	return fs_write_atomic(path, *xml, strlen(*xml));
}

int boot_run(struct virt_conn *vc, const struct boot_params *bp, struct boot_result *res)
{
	_cleanup_free_ char *initrd = NULL, *console = NULL, *results = NULL, *xml = NULL;
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r;

	memset(res, 0, sizeof(*res));
	r = collect_init(&res->log, bp->nr_workloads);
	if (r < 0)
		return r;
	r = boot_files(bp, &initrd, &console, &results);
	if (r < 0)
		return r;
	r = boot_xml(bp, initrd, console, results, &xml);
	if (r < 0)
		return r;
	struct guest_watch w = {
		.xml = xml,
		.name = bp->name,
		.results_path = results,
		.boot_timeout_s = bp->boot_timeout_s,
		.console_path = console,
		.boot_silence_s = bp->boot_silence_s,
		.progress_timeout_s = bp->progress_timeout_s,
		.progress_min_cpu_s = bp->progress_min_cpu_s,
		.progress_starved_max_s = bp->progress_starved_max_s,
		.total_timeout_s = bp->total_timeout_s,
		.max_line = COLLECT_MAX_LINE,
		.max_total = bp->channel_max ? bp->channel_max : COLLECT_MAX_TOTAL,
		.max_console = bp->console_max ? bp->console_max : COLLECT_MAX_CONSOLE,
		.on_line = on_line,
		.userdata = &res->log,
		.interrupt = bp->interrupt,
	};
	r = guest_run(vc, &w, &res->g);
	if (!bp->keep_initrd)
		unlink(initrd); /* rebuilt per run from the runners and the job */
	if (r < 0)
		return r;
	snprintf(res->start_error, sizeof(res->start_error), "%s", res->g.error);
	if (read_console_tail(console, &text, &len) == 0)
		r = outcome_scan_console(text, len, &res->console);
	return r < 0 ? r : 0;
}

void boot_result_free(struct boot_result *res)
{
	collect_free(&res->log);
	console_scan_free(&res->console);
}
