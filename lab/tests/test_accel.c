/* Which KVM this machine's loaded modules offer (lab/run/accel.c accel_kvm_module(),
 * accel_kvm_ruled_out()), read from a stand-in for /sys/module: kvm-pvm alone is known not to run the lab's kernels (no
 * probe is booted); kvm_intel or kvm_amd, also beside kvm_pvm, leave the verdict to the probe;
 * no vendor module leaves it to /dev/kvm and the probe. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/accel.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/fs.h"

static char tmp[] = "/tmp/numalab-test-accel.XXXXXX";

/* A module directory holding exactly the modules in the space-separated list mods. */
static int modules(const char *name, const char *mods, char *dir, size_t len)
{
	_cleanup_free_ char *copy = strdup(mods);
	char *save = NULL;

	snprintf(dir, len, "%s/%s", tmp, name);
	if (!copy || fs_mkdir_p(dir, 0755) < 0)
		return -1;
	for (char *m = strtok_r(copy, " ", &save); m; m = strtok_r(NULL, " ", &save)) {
		_cleanup_free_ char *sub = fs_join(dir, m);

		/* A module's directory holds parameters/ or nothing: only its name counts. */
		if (!sub || fs_mkdir_p(sub, 0755) < 0)
			return -1;
	}
	return 0;
}

static void kind_case(const char *name, const char *mods, enum accel_kvm_kind want,
		      const char *want_module)
{
	char dir[PATH_MAX];
	struct accel_kvm k;
	enum accel_kvm_kind got;

	if (!tap_ok(modules(name, mods, dir, sizeof(dir)) == 0, "%s: module directory made", name))
		return;
	got = accel_kvm_module(dir, &k);
	tap_ok(got == want && k.kind == want, "%s: kind %d (want %d)", name, got, want);
	tap_ok(want_module ? k.module && !strcmp(k.module, want_module) : !k.module,
	       "%s: vendor module %s", name, k.module ? k.module : "(none)");
	tap_ok(want == ACCEL_KVM_NONE ? !k.offers && !k.guest_needs : k.offers && k.guest_needs,
	       "%s: what it offers and what a guest kernel needs, when there is a module", name);
}

/* KVM ruled out without a probe: kvm-pvm alone, and the reason a run records says where the
 * lab looked and what a guest kernel would need. */
static void test_ruled_out(void)
{
	char dir[PATH_MAX], why[256] = "";

	if (!tap_ok(modules("pvm", "kvm kvm_pvm", dir, sizeof(dir)) == 0, "kvm-pvm host"))
		return;
	tap_ok(accel_kvm_ruled_out(dir, why, sizeof(why)) == 1, "kvm-pvm alone: KVM ruled out");
	tap_ok(strstr(why, ACCEL_SYS_MODULE "/kvm_pvm") && strstr(why, "PVM guests only") &&
	       strstr(why, "CONFIG_PVM_GUEST=y") && strstr(why, "no probe"), "... why: %s", why);
	tap_ok(strlen(why) < sizeof(((struct accel_verdict *)0)->reason) - 1,
	       "... fits a verdict's reason whole (%zu characters)", strlen(why));
	modules("pvm+intel", "kvm kvm_pvm kvm_intel", dir, sizeof(dir));
	why[0] = '\0';
	tap_ok(accel_kvm_ruled_out(dir, why, sizeof(why)) == 0 && !why[0],
	       "kvm_intel beside kvm_pvm: the probe decides");
	modules("none", "", dir, sizeof(dir));
	tap_ok(accel_kvm_ruled_out(dir, why, sizeof(why)) == 0, "no vendor module: the probe decides");
}

/* Which libvirt URIs reach another daemon (virt_uri_remote): those get artifacts uploaded as
 * storage volumes and the lab's remote domain names. */
static void uri_cases(void)
{
	static const struct {
		const char *uri;
		int remote;
	} cases[] = {
		{ "", 0 },
		{ "qemu:///system", 0 },
		{ "qemu:///session", 0 },
		{ "qemu+unix:///system", 0 },
		{ "qemu+tcp://127.0.0.1:16599/system", 1 },
		{ "qemu+ssh://root@host/system", 1 },
		{ "qemu+tls://host/system", 1 },
		{ "qemu+libssh2://host/system?known_hosts=/k", 1 },
		{ "qemu://host/system", 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(virt_uri_remote(cases[i].uri) == cases[i].remote, "\"%s\" is %s",
		       cases[i].uri, cases[i].remote ? "remote" : "this machine's");
}

int main(void)
{
	char gone[PATH_MAX];
	struct accel_kvm k;

	if (!mkdtemp(tmp))
		return tap_ok(0, "mkdtemp"), tap_done();
	kind_case("pvm", "kvm kvm_pvm", ACCEL_KVM_PVM, "kvm_pvm");
	kind_case("intel", "kvm kvm_intel", ACCEL_KVM_HW, "kvm_intel");
	kind_case("amd", "kvm kvm_amd", ACCEL_KVM_HW, "kvm_amd");
	/* kvm_pvm beside a hardware module: which one serves /dev/kvm is the probe's to find. */
	kind_case("pvm+intel", "kvm kvm_pvm kvm_intel", ACCEL_KVM_HW, "kvm_intel");
	kind_case("pvm+amd", "kvm_amd kvm_pvm", ACCEL_KVM_HW, "kvm_amd");
	kind_case("kvm only", "kvm", ACCEL_KVM_NONE, NULL);
	kind_case("none", "", ACCEL_KVM_NONE, NULL);
	test_ruled_out();
	uri_cases();
	snprintf(gone, sizeof(gone), "%s/no-such-dir", tmp);
	tap_ok(accel_kvm_module(gone, &k) == ACCEL_KVM_NONE && !k.module,
	       "a module directory that does not exist: no vendor module");
	fs_rm_rf(tmp);
	return tap_done();
}
