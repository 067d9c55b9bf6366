/* lab doctor [--probe] [--state DIR] [--json]: check the host, say how to fix each problem. */
#include <errno.h>
#include <stdarg.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "builder/initramfs.h"
#include "cli/cli.h"
#include "cli/runenv.h"
#include "run/accel.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/hostkernel.h"
#include "util/jsonio.h"
#include "util/spawn.h"
#include "virt/virt.h"

#define FIX_DEPS "run 'make deps' (installs Debian packages, QEMU/libvirt from bookworm-backports)"

static const char *const packages[] = {
	"qemu-system-x86", "libvirt-daemon", "libvirt-daemon-driver-qemu", "libvirt-daemon-system",
	"libvirt-dev", "libjansson-dev", "libcurl4-openssl-dev", "build-essential", "pkg-config",
	"linux-image-amd64",
};

struct doctor {
	int problems;
	json_t *checks;  /* --json: the checks, printed at the end; NULL: lines as they come */
	const char *state;
	int probe;
};

/* One command line a process: what the table writes to (--state: the run environment's). */
static struct {
	int probe, json;
} args;

static const struct cli_opt options[] = {
	OPT_FLAG(0, "probe", &args.probe, "boot the KVM probe guest now, not the cached verdict"),
	OPT_GROUP(cli_state_opts),
	OPT_FLAG(0, "json", &args.json, "the checks as JSON, at the end"),
	OPT_END(),
};

void cmd_doctor_help(void)
{
	memset(&args, 0, sizeof(args));
	cli_synopsis("doctor", NULL, options);
	printf("\nChecks QEMU and libvirt versions, the vCPU limits, what KVM the host offers and\n"
	       "what a guest kernel needs for it, the KVM verdict, the guest kernel, the\n"
	       "runners, disk space, memory and packages, with a fix for each problem.\n"
	       "Each option at length: man lab, \"OPTIONS OF LAB DOCTOR\".\n\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab doctor\n"
	       "  lab doctor --probe\n"
	       "  lab doctor --state /var/lib/numalab    # with labd's state (lab/systemd/)\n\n"
	       "Exit status: 0 when all is well, 4 otherwise.\n");
}

/* One check's line: printed at once, or kept for --json. */
static void say(struct doctor *d, const char *what, const char *fix, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (fix)
		d->problems++;
	if (d->checks) {
		json_array_append_new(d->checks, json_pack("{s:s, s:b, s:s, s:s?}", "check", what,
							   "ok", !fix, "says", msg, "fix", fix));
		return;
	}
	printf("%-5s %-10s %s\n", fix ? "FAIL" : "ok", what, msg);
	if (fix)
		printf("      fix: %s\n", fix);
}

static void ok(struct doctor *d, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void ok(struct doctor *d, const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(d, what, NULL, fmt, ap);
	va_end(ap);
}

static void bad(struct doctor *d, const char *what, const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void bad(struct doctor *d, const char *what, const char *fix, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(d, what, fix, fmt, ap);
	va_end(ap);
}

static void check_packages(struct doctor *d)
{
	char missing[1024] = "";

	for (size_t i = 0; i < sizeof(packages) / sizeof(packages[0]); i++) {
		char *argv[] = { "dpkg-query", "-W", "-f=${Status}", (char *)packages[i], NULL };
		_cleanup_free_ char *out = NULL;
		int st = 1;

		if (spawn_capture(argv, 4096, 10, &out, &st) < 0 || st != 0 ||
		    !strstr(out, "install ok installed"))
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s",
				 packages[i]);
	}
	if (missing[0])
		bad(d, "packages", FIX_DEPS, "missing:%s", missing);
	else
		ok(d, "packages", "all %zu installed", sizeof(packages) / sizeof(packages[0]));
}

static void check_virt(struct doctor *d, struct virt_conn *vc)
{
	unsigned long hv = 0, lib = 0;
	char qv[32], lv[32];
	int tcg, kvm;

	virt_versions(vc, &hv, &lib);
	virt_version_string(hv, qv, sizeof(qv));
	virt_version_string(lib, lv, sizeof(lv));
	if (hv < 8001000)
		bad(d, "qemu", FIX_DEPS, "QEMU %s: 512-vCPU guests need QEMU >= 8.1", qv);
	else
		ok(d, "qemu", "QEMU %s", qv);
	ok(d, "libvirt", "libvirt %s, %s", lv, vc->uri);
	tcg = virt_max_vcpus(vc, "qemu");
	kvm = virt_max_vcpus(vc, "kvm");
	if (tcg < 512)
		bad(d, "vcpus", FIX_DEPS, "q35 under TCG allows %d vCPUs; 4s-512c needs 512", tcg);
	else
		ok(d, "vcpus", "q35 allows %d vCPUs under TCG, %d under KVM (-1: no KVM)", tcg, kvm);
}

/* What this machine's KVM offers and what a guest kernel needs for it: facts of the loaded
 * modules, not a verdict (TCG where KVM cannot run the lab's kernels is how the lab runs). */
static enum accel_kvm_kind check_kvm(struct doctor *d)
{
	struct accel_kvm k;

	if (accel_kvm_module(ACCEL_SYS_MODULE, &k) == ACCEL_KVM_NONE) {
		ok(d, "kvm", "no KVM vendor module under " ACCEL_SYS_MODULE);
		return k.kind;
	}
	ok(d, "kvm", "%s", k.offers);
	ok(d, "kvm guest", "a kernel for it needs %s", k.guest_needs);
	return k.kind;
}

static void check_accel(struct doctor *d, struct virt_conn *vc, enum accel_kvm_kind kind)
{
	_cleanup_free_ char *runners = initramfs_runners_dir();
	_cleanup_free_ char *agent = runners ? fs_join(runners, "agent") : NULL;
	struct accel_verdict v;
	char kernel[4096] = "", why[256];

	if (hostkernel_pick(HOSTKERNEL_GLOB, kernel, sizeof(kernel)) == 0)
		ok(d, "kernel", "%s", kernel);
	else
		bad(d, "kernel", FIX_DEPS, "no " HOSTKERNEL_GLOB " for configs/quick.json");
	if (!agent || !fs_exists(agent)) {
		bad(d, "runners", "run 'make'", "no guest agent at %s", agent ? agent : "?");
		return;
	}
	ok(d, "runners", "%s", runners);
	/* No KVM for the lab's kernels: TCG, known without a probe, and --probe boots none. */
	if (!accel_kvm_offered(vc, why, sizeof(why))) {
		/* kvm-pvm's reason is the kvm and kvm guest lines again. */
		if (kind == ACCEL_KVM_PVM)
			snprintf(why, sizeof(why), "the lab's kernels are not PVM guests");
		ok(d, "accel", "tcg, no probe: %s%s", why,
		   d->probe ? " (--probe boots none: it could not succeed)" : "");
		return;
	}
	if (!d->probe) {
		if (accel_cached(vc, d->state, &v) == 0)
			ok(d, "accel", "%s (cached: %s; re-check with --probe)", v.kvm ? "kvm" : "tcg",
			   v.reason);
		else
			ok(d, "accel", "not probed yet: 'lab run' or 'lab doctor --probe' will");
		return;
	}
	/* --probe means a fresh verdict: forget the cached one first. */
	_cleanup_free_ char *cache = fs_join(d->state, "accel.json");

	if (cache)
		unlink(cache);
	if (!kernel[0] || accel_decide(vc, d->state, kernel, runners, ACCEL_AUTO, NULL, &v) < 0) {
		bad(d, "accel", "see the messages above", "KVM probe could not run");
		return;
	}
	ok(d, "accel", "%s: %s", v.kvm ? "kvm" : "tcg", v.reason);
}

static void check_resources(struct doctor *d)
{
	struct statvfs fs;
	struct sysinfo si;
	struct passwd *pw = getpwnam("libvirt-qemu");

	if (!pw)
		bad(d, "user", FIX_DEPS, "no libvirt-qemu user (libvirt-daemon-system creates it)");
	if (statvfs(d->state, &fs) == 0) {
		double gib = (double)fs.f_bavail * (double)fs.f_frsize / (1 << 30);

		if (gib < 5)
			bad(d, "disk", "free space under the state directory or set LAB_STATE_DIR",
			    "%.1f GiB free under %s (want >= 5)", gib, d->state);
		else
			ok(d, "disk", "%.0f GiB free under %s", gib, d->state);
	}
	if (sysinfo(&si) == 0)
		ok(d, "memory", "%llu MiB RAM, %d CPUs (guest RAM must fit: 4s-512c needs 8 GiB)",
		   (unsigned long long)si.totalram * si.mem_unit >> 20, get_nprocs());
}

static int parse_args(int argc, char **argv)
{
	int first;

	memset(&args, 0, sizeof(args));
	first = cli_parse(argc, argv, options);
	if (first >= 0 && first < argc)
		cli_usage_err("unexpected argument '%s'", argv[first]);
	return first == argc ? 0 : -EINVAL;
}

static void print_json(const struct doctor *d)
{
	_cleanup_json_ json_t *j = json_pack("{s:O, s:b}", "checks", d->checks, "ok", !d->problems);
	_cleanup_free_ char *text = j ? jsonio_dumps(j) : NULL;

	if (text)
		printf("%s\n", text);
}

int cmd_doctor(int argc, char **argv)
{
	struct doctor d = { 0 };
	struct virt_conn vc;
	int r;

	if (parse_args(argc, argv) < 0)
		return EXIT_BAD_INPUT;
	d.state = cli_runenv_state();
	d.probe = args.probe;
	d.checks = args.json ? json_array() : NULL;
	check_packages(&d);
	fs_mkdir_p(d.state, 0755);
	check_resources(&d);
	r = virt_open(&vc, NULL, d.state);
	if (r < 0) {
		bad(&d, "libvirt", FIX_DEPS, "cannot open the embedded driver: %s",
		    vc.last_error[0] ? vc.last_error : strerror(-r));
	} else {
		check_virt(&d, &vc);
		check_accel(&d, &vc, check_kvm(&d));
		virt_close(&vc);
	}
	if (d.checks) {
		print_json(&d);
		json_decref(d.checks);
	} else {
		printf("%s\n", d.problems ? "problems found" : "all checks passed");
	}
	return d.problems ? EXIT_LAB_ERROR : EXIT_OK;
}
