#include "run/boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder/initramfs.h"
#include "core/domain.h"
#include "core/kvariant.h"
#include "run/diskboot.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/spawn.h"
#include "virt/volume.h"

/* A console log larger than this is read from its end: panics are near the end. */
#define CONSOLE_READ_MAX (16u << 20)

/* ---- loops_per_jiffy, derived from the host and the guest kernel ---------------------- */

#define CONFIG_MAX (4u << 20)

/* "config" beside a lab-built image (vmlinux or bzImage), or /boot/config-VER for
 * /boot/vmlinuz-VER. */
static char *config_path(const char *image)
{
	const char *base = strrchr(image, '/');
	_cleanup_free_ char *dir = fs_dirname(image);
	char *p = NULL;

	base = base ? base + 1 : image;
	if (!dir)
		return NULL;
	if (!strncmp(base, "vmlinuz-", 8)) {
		if (asprintf(&p, "%s/config-%s", dir, base + 8) < 0)
			return NULL;
	} else {
		p = fs_join(dir, "config");
	}
	return p;
}

/* lpj from a TSC rate in kHz and HZ; 0 when either is 0. */
static unsigned long lpj_from(unsigned long tsc_khz, unsigned long hz)
{
	return hz ? tsc_khz * 1000 / hz : 0;
}

static unsigned long host_tsc_khz(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 && mhz > 0)
			return (unsigned long)(mhz * 1000.0);
	return 0;
}

/* loops_per_jiffy for `lpj=`: the host's TSC rate over the guest kernel's CONFIG_HZ, read
 * from the config beside the image (a lab build's `config`, or Debian's /boot/config-VER for
 * /boot/vmlinuz-VER).  -ENOENT when either is unknown: then no lpj= is passed.
 *
 * Why: under TCG every secondary CPU fails calibrate_delay() ("Consider using lpj=") and
 * retries, which made 64-vCPU boots 5x slower: measured with a tinyconfig-based 6.12 kernel
 * (NO_HZ_IDLE, HZ=100; TCG on 2 host cores, busybox init), 98 s to power-off without lpj=,
 * 18 s with it.  The value only scales udelay() busy-waits; page-fault paths do not use it. */
static int lpj_of(const char *kernel_image, unsigned long *lpj)
{
	_cleanup_free_ char *path = config_path(kernel_image);
	_cleanup_free_ char *text = NULL;
	struct kconfig kc = { 0 };
	struct lab_error err;
	const char *hz;
	unsigned long v = 0;

	if (!path)
		return -ENOMEM;
	if (fs_read_file(path, CONFIG_MAX, &text, NULL) < 0)
		return -ENOENT;
	if (kconfig_parse(text, 0, &kc, &err) == 0 && (hz = kconfig_get(&kc, "HZ")))
		v = lpj_from(host_tsc_khz(), strtoul(hz, NULL, 10));
	kconfig_free(&kc);
	if (!v)
		return -ENOENT;
	*lpj = v;
	return 0;
}

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

	if (kernel_image && !(extra && strstr(extra, "lpj=")) && lpj_of(kernel_image, &v) == 0)
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
	return initramfs_write(bp->runners_dir, bp->guestjob, bp->kernel_config, *initrd);
}

/* Where the guest's files are on its host: on this machine the lab's own paths; on a remote
 * host volumes of the lab's pool there (virt/volume.h). */
struct boot_where {
	int remote;
	char kernel[1024], initrd[1024], disk[1024];
	char initrd_vol[160], disk_vol[160]; /* the run's own volumes, deleted after it */
};

static json_t *upload_json(const struct volume_upload *u, const char *what)
{
	return json_pack("{s:s,s:I,s:b,s:f,s:s}", "volume", u->name, "bytes",
			 (json_int_t)u->bytes, "cached", u->hit, "seconds", u->seconds, "what",
			 what);
}

static void upload_count(struct boot_result *res, const struct volume_upload *u,
			 const char *key, const char *what)
{
	if (!res->artifacts)
		res->artifacts = json_object();
	json_object_set_new(res->artifacts, key, upload_json(u, what));
	res->up_s += u->seconds;
	if (u->hit) {
		res->hits++;
	} else {
		res->uploads++;
		res->up_bytes += u->bytes;
	}
}

/* The virtual size of a qcow2 image (its header, big-endian at offset 24). */
static int qcow2_size(const char *path, unsigned long long *size)
{
	_cleanup_fclose_ FILE *f = fopen(path, "re");
	unsigned char h[32];

	if (!f || fread(h, 1, sizeof(h), f) != sizeof(h) || memcmp(h, "QFI\xfb", 4))
		return -EINVAL;
	*size = 0;
	for (int i = 24; i < 32; i++)
		*size = *size << 8 | h[i];
	return 0;
}

/* The volume name's suffix for a kernel: a lab-built PVH image is the ELF vmlinux, any
 * other kernel (a lab build without PVH, a distribution's vmlinuz) a bzImage. */
static const char *boot_image_kind(const char *kernel)
{
	const char *base = strrchr(kernel, '/');

	return !strcmp(base ? base + 1 : kernel, KCONFIG_IMAGE_PVH) ? KCONFIG_IMAGE_PVH
								   : KCONFIG_IMAGE_BZ;
}

/* The run's files onto the remote host: the kernel and the image by content hash (cached
 * there), the run's initramfs and disk overlay as its own volumes. */
static int boot_stage_remote(struct virt_conn *vc, const struct boot_params *bp,
			     const char *initrd, struct boot_where *wh, struct boot_result *res)
{
	struct volume_upload u;
	unsigned long long size;
	char base[1024];
	int r;

	wh->remote = 1;
	r = volume_pool_ensure(vc, bp->pool_dir ? bp->pool_dir : "/var/lib/numalab-pool");
	if (r == 0)
		r = volume_put_cached(vc, bp->kernel, NULL, boot_image_kind(bp->kernel), &u);
	if (r < 0)
		goto fail;
	upload_count(res, &u, "kernel", "by content hash, kept");
	snprintf(wh->kernel, sizeof(wh->kernel), "%s", u.path);
	snprintf(wh->initrd_vol, sizeof(wh->initrd_vol), "%s-initrd.cpio", bp->name);
	r = volume_put(vc, initrd, wh->initrd_vol, &u);
	if (r < 0)
		goto fail;
	upload_count(res, &u, "initrd", "the run's own (it carries the guest job), deleted after");
	snprintf(wh->initrd, sizeof(wh->initrd), "%s", u.path);
	if (!bp->disk)
		return 0;
	if (!bp->disk_base || (r = qcow2_size(bp->disk_base, &size)) < 0 ||
	    (r = volume_put_cached(vc, bp->disk_base, NULL, "disk.qcow2", &u)) < 0)
		goto fail;
	upload_count(res, &u, "image", "by content hash, kept");
	snprintf(wh->disk_vol, sizeof(wh->disk_vol), "%s-overlay.qcow2", bp->name);
	snprintf(base, sizeof(base), "%s", u.path); /* volume_overlay() clears u first */
	r = volume_overlay(vc, wh->disk_vol, base, size, &u);
	if (r < 0)
		goto fail;
	snprintf(wh->disk, sizeof(wh->disk), "%s", u.path);
	return 0;
fail:
	if (bp->why)
		snprintf(bp->why, bp->why_len, "staging the run's files on %s: %s", vc->uri,
			 vc->last_error[0] ? vc->last_error : strerror(-r));
	return r < 0 ? r : -EIO;
}

/* After a remote run: its disk back into the local overlay (the post-mortem reads it there,
 * backed by the same image here), its own volumes deleted. */
static void boot_unstage_remote(struct virt_conn *vc, const struct boot_params *bp,
				const struct boot_where *wh, int want_disk)
{
	if (want_disk && wh->disk_vol[0] && bp->disk && virConnectIsAlive(vc->conn) == 1 &&
	    volume_get(vc, wh->disk_vol, bp->disk) == 0) {
		char *argv[] = { "qemu-img", "rebase", "-u", "-F", "qcow2", "-b",
				 (char *)bp->disk_base, (char *)bp->disk, NULL };
		_cleanup_free_ char *out = NULL;
		int status;

		/* Its backing file is named as the remote host knows it: this machine's copy. */
		spawn_capture(argv, 4096, 60, &out, &status);
	}
	if (wh->initrd_vol[0])
		volume_delete(vc, wh->initrd_vol);
	if (wh->disk_vol[0])
		volume_delete(vc, wh->disk_vol);
}

/* Whether the guest finished with every workload reported and none failed: a disk-booted run
 * then needs no post-mortem (run/disk.h), and a remote one's disk stays there. */
static int boot_went_well(struct boot_result *res)
{
	int failed = 0, missing = 0;

	collect_count(&res->log, &failed, &missing);
	return res->g.end == GUEST_END_STOPPED && res->log.done && !failed && !missing;
}

/* qboot instead of SeaBIOS where it boots the guest: it loads the kernel and QEMU's ACPI
 * tables from fw_cfg and skips SeaBIOS's device and CPU set-up, which under TCG took about
 * 0.3 s of an 8-vCPU boot (2.9 -> 2.6 s to the first workload, bare QEMU) and 0.7-1 s at 64.
 * Not with the x2APIC and IOMMU the lab adds above 255 APIC IDs: there the first AP crashed
 * on its way up under qboot (512 vCPUs), which leaves CPUs at APIC IDs SeaBIOS prepares.  Not
 * on a remote host, whose QEMU may not ship it.  What runs after the kernel starts is the
 * same; the firmware is in each run's domain.xml. */
#define BOOT_QBOOT "/usr/share/qemu/qboot.rom"

static const char *boot_firmware(const struct domain_spec *spec, const struct boot_where *wh)
{
	if (wh->remote || domain_wants_iommu(spec) || access(BOOT_QBOOT, R_OK) < 0)
		return NULL;
	return BOOT_QBOOT;
}

static int boot_xml(const struct boot_params *bp, const struct boot_where *wh,
		    const char *initrd, const char *console, const char *results, char **xml)
{
	struct domain_spec spec = {
		.name = bp->name,
		.topo = bp->topo,
		.accel = bp->accel,
		.kernel = wh->remote ? wh->kernel : bp->kernel,
		.initrd = wh->remote ? wh->initrd : initrd,
		.cmdline = bp->cmdline,
		.console_path = console,
		.results_path = results,
		.disk = wh->remote && bp->disk ? wh->disk : bp->disk,
		.serial_streams = wh->remote,
		.seed = bp->seed,
		.quantum = bp->quantum,
		.emulator = bp->emulator,
		.plugin = bp->plugin,
		.plugin2 = bp->plugin2,
	};
	_cleanup_free_ char *path = fs_join(bp->run_dir, "domain.xml");
	int r;

	spec.firmware = boot_firmware(&spec, wh);
	r = domain_xml(&spec, xml);

	if (r < 0 || !path)
		return r < 0 ? r : -ENOMEM;
	return fs_write_atomic(path, *xml, strlen(*xml));
}

int boot_run(struct virt_conn *vc, const struct boot_params *bp, struct boot_result *res)
{
	_cleanup_free_ char *initrd = NULL, *console = NULL, *results = NULL, *xml = NULL;
	_cleanup_free_ char *text = NULL;
	struct boot_where wh = { 0 };
	size_t len = 0;
	int r;

	memset(res, 0, sizeof(*res));
	r = collect_init(&res->log, bp->nr_workloads);
	if (r < 0)
		return r;
	r = boot_files(bp, &initrd, &console, &results);
	if (r < 0)
		return r;
	if (vc->remote) {
		r = boot_stage_remote(vc, bp, initrd, &wh, res);
		if (r < 0) {
			boot_unstage_remote(vc, bp, &wh, 0);
			return r;
		}
	}
	r = boot_xml(bp, &wh, initrd, console, results, &xml);
	if (r < 0) {
		if (wh.remote)
			boot_unstage_remote(vc, bp, &wh, 0);
		return r;
	}
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
	if (wh.remote)
		boot_unstage_remote(vc, bp, &wh, r == 0 && !boot_went_well(res));
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
	json_decref(res->artifacts);
	res->artifacts = NULL;
	collect_free(&res->log);
	console_scan_free(&res->console);
}
