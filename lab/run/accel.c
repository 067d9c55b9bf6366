#include "run/accel.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "proto/guestjob.h"
#include "run/boot.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"

static void cpu_model(char *buf, size_t len)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/cpuinfo", "re");
	char line[512];

	snprintf(buf, len, "unknown-cpu");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", colon + 2);
		return;
	}
}

int accel_host_key(struct virt_conn *vc, char *buf, size_t len)
{
	struct utsname u;
	unsigned long hv = 0, lib = 0;
	char cpu[256], qv[32];

	virt_versions(vc, &hv, &lib);
	virt_version_string(hv, qv, sizeof(qv));
	/* A remote host's kernel and CPU are what its libvirt says of them. */
	if (vc->remote) {
		_cleanup_free_ char *name = virConnectGetHostname(vc->conn);
		virNodeInfo ni;

		snprintf(buf, len, "%s|%s|%s|qemu-%s", vc->uri, name ? name : "?",
			 virNodeGetInfo(vc->conn, &ni) == 0 ? ni.model : "?", qv);
		return 0;
	}
	uname(&u);
	cpu_model(cpu, sizeof(cpu));
	snprintf(buf, len, "%s|%s|qemu-%s", u.release, cpu, qv);
	return 0;
}

/* STATE/accel.json for this machine; a remote host's verdict beside it, named by its URI. */
static char *cache_path(struct virt_conn *vc, const char *state_dir)
{
	char hex[65], name[64];

	if (!vc->remote || sha256_hex(vc->uri, strlen(vc->uri), hex) < 0)
		return fs_join(state_dir, "accel.json");
	snprintf(name, sizeof(name), "accel-%.16s.json", hex);
	return fs_join(state_dir, name);
}

static int cache_read(const char *path, const char *key, struct accel_verdict *v)
{
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err;
	const char *k, *reason;

	if (jsonio_load_file(path, 65536, &j, &err) < 0)
		return -ENOENT;
	k = json_string_value(json_object_get(j, "key"));
	reason = json_string_value(json_object_get(j, "reason"));
	if (!k || strcmp(k, key) || !reason || !json_is_boolean(json_object_get(j, "kvm")))
		return -ESTALE;
	v->kvm = json_is_true(json_object_get(j, "kvm"));
	v->cached = 1;
	snprintf(v->reason, sizeof(v->reason), "%s", reason);
	return 0;
}

static int cache_write(const char *path, const char *key, const struct accel_verdict *v)
{
	_cleanup_json_ json_t *j = json_pack("{s:s,s:b,s:s,s:f,s:I}", "key", key, "kvm", v->kvm,
					      "reason", v->reason, "probe_s", v->probe_s,
					      "probed_at", (json_int_t)time(NULL));

	return j ? jsonio_write_file(path, j) : -ENOMEM;
}

static int accel_probe(struct virt_conn *vc, const char *state_dir, const char *kernel,
		       const char *runners_dir, volatile sig_atomic_t *interrupt,
		       struct accel_verdict *v)
{
	unsigned cpu0 = 0, dist = 10;
	struct topo_node node = { .id = 0, .memory_mib = 256, .nr_cpus = 1, .cpus = &cpu0 };
	struct topology topo = { .name = "probe", .sockets = 1, .dies = 1, .cores = 1,
				 .threads = 1, .vcpus = 1, .nr_nodes = 1, .nodes = &node,
				 .distances = &dist };
	_cleanup_free_ char *dir = fs_join(state_dir, "kvm-probe");
	_cleanup_free_ char *cmdline = boot_cmdline(kernel, 1, 0, NULL);
	const struct guestjob probe = { .run_id = "kvm-probe", .heartbeat_s = 1 };
	_cleanup_json_ json_t *job = guestjob_build(&probe);
	struct boot_params bp = {
		.run_dir = dir, .name = "numalab-kvm-probe", .kernel = kernel,
		.cmdline = cmdline, .topo = &topo, .accel = DOMAIN_ACCEL_KVM, .runners_dir = runners_dir,
		.guestjob = job, .nr_workloads = 0,
		.boot_timeout_s = ACCEL_PROBE_TIMEOUT_S, .progress_timeout_s = ACCEL_PROBE_TIMEOUT_S,
		.total_timeout_s = 2 * ACCEL_PROBE_TIMEOUT_S, .interrupt = interrupt,
	};
	struct boot_result res;
	int r;

	if (!dir || !cmdline || !job)
		return -ENOMEM;
	r = boot_run(vc, &bp, &res);
	if (r == 0) {
		v->probe_s = res.g.t_end;
		v->kvm = res.log.done && !res.console.panic;
		if (v->kvm)
			snprintf(v->reason, sizeof(v->reason),
				 "a probe guest booted under KVM and powered off in %.1f s",
				 res.g.t_end);
		else if (res.g.end == GUEST_END_START_FAILED)
			snprintf(v->reason, sizeof(v->reason), "KVM guest failed to start: %.200s",
				 res.start_error);
		else
			snprintf(v->reason, sizeof(v->reason),
				 "a probe guest under KVM did not reach userspace within %.0f s (%s)",
				 ACCEL_PROBE_TIMEOUT_S, guest_end_name(res.g.end));
	}
	boot_result_free(&res);
	return r;
}

/* KVM's vendor modules, the hardware ones first: they win when kvm_pvm is loaded beside one. */
static const struct accel_kvm kvm_modules[] = {
	{ ACCEL_KVM_HW, "kvm_intel", "KVM on Intel VT-x (kvm_intel)",
	  "nothing particular: any x86-64 kernel (the probe checks the lab's)" },
	{ ACCEL_KVM_HW, "kvm_amd", "KVM on AMD-V (kvm_amd)",
	  "nothing particular: any x86-64 kernel (the probe checks the lab's)" },
	{ ACCEL_KVM_PVM, "kvm_pvm", "KVM via kvm-pvm (" ACCEL_SYS_MODULE "/kvm_pvm): PVM guests only",
	  "CONFIG_PVM_GUEST=y, from the out-of-tree PVM patches (not in mainline or Debian "
	  "kernels)" },
};

enum accel_kvm_kind accel_kvm_module(const char *module_dir, struct accel_kvm *k)
{
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < sizeof(kvm_modules) / sizeof(kvm_modules[0]); i++) {
		_cleanup_free_ char *dir = fs_join(module_dir, kvm_modules[i].module);

		if (dir && fs_exists(dir)) {
			*k = kvm_modules[i];
			break;
		}
	}
	return k->kind;
}

int accel_kvm_ruled_out(const char *module_dir, char *why, size_t len)
{
	struct accel_kvm k;

	/* The lab's kernels are not PVM guests: a probe of one under kvm-pvm can only time out. */
	if (accel_kvm_module(module_dir, &k) != ACCEL_KVM_PVM)
		return 0;
	snprintf(why, len, "%s; a guest kernel would need %s: TCG, no probe (--accel kvm for a "
		 "kernel that has it)", k.offers, k.guest_needs);
	return 1;
}

int accel_kvm_offered(struct virt_conn *vc, char *why, size_t len)
{
	/* A remote host's /dev/kvm and modules are not ours to read: its libvirt says whether it
	 * offers KVM, and the probe the rest. */
	if (vc->remote) {
		if (virt_max_vcpus(vc, "kvm") > 0)
			return 1;
		snprintf(why, len, "the host offers no KVM (libvirt's domain capabilities for type "
			 "kvm)");
		return 0;
	}
	/* The module first: a kvm-pvm host runs PVM guests only, /dev/kvm or not (one such host
	 * had the module and no /dev/kvm), and that is what a user must read to get KVM. */
	if (accel_kvm_ruled_out(ACCEL_SYS_MODULE, why, len))
		return 0;
	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		snprintf(why, len, "/dev/kvm is not usable: %s", strerror(errno));
		return 0;
	}
	return 1;
}

int accel_cached(struct virt_conn *vc, const char *state_dir, struct accel_verdict *v)
{
	_cleanup_free_ char *cache = cache_path(vc, state_dir);
	char key[512];

	memset(v, 0, sizeof(*v));
	if (!cache)
		return -ENOMEM;
	accel_host_key(vc, key, sizeof(key));
	return cache_read(cache, key, v);
}

int accel_decide(struct virt_conn *vc, const char *state_dir, const char *kernel,
		 const char *runners_dir, enum accel_mode mode, volatile sig_atomic_t *interrupt,
		 struct accel_verdict *v)
{
	_cleanup_free_ char *cache = cache_path(vc, state_dir);
	char key[512];
	int r;

	memset(v, 0, sizeof(*v));
	if (mode != ACCEL_AUTO) {
		struct accel_kvm k;
		int pvm = mode == ACCEL_FORCE_KVM && !vc->remote &&
			  accel_kvm_module(ACCEL_SYS_MODULE, &k) == ACCEL_KVM_PVM;

		v->kvm = mode == ACCEL_FORCE_KVM;
		/* Asked for, so taken; but a guest that then hangs should say why. */
		snprintf(v->reason, sizeof(v->reason), "forced by --accel=%s%s%s",
			 v->kvm ? "kvm" : "tcg", pvm ? "; " : "", pvm ? k.offers : "");
		return 0;
	}
	if (!accel_kvm_offered(vc, v->reason, sizeof(v->reason)))
		return 0;
	if (!cache)
		return -ENOMEM;
	accel_host_key(vc, key, sizeof(key));
	if (cache_read(cache, key, v) == 0)
		return 0;
	r = accel_probe(vc, state_dir, kernel, runners_dir, interrupt, v);
	if (r < 0)
		return r;
	if (interrupt && *interrupt)
		return -EINTR; /* an interrupted probe proves nothing: do not cache it */
	cache_write(cache, key, v);
	return 0;
}
