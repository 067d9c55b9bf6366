/* KVM or TCG: decided by booting a probe guest under KVM with a timeout, never by opening
 * /dev/kvm (on some hosts KVM_CREATE_VM works and guests still hang).  The verdict is cached
 * per host in STATE/accel.json.  Only a KVM known to refuse the lab's kernels is decided
 * without a probe: kvm-pvm, which runs guest kernels built for PVM alone. */
#pragma once
#include <signal.h>

#include "virt/virt.h"

enum accel_mode { ACCEL_AUTO = 0, ACCEL_FORCE_TCG, ACCEL_FORCE_KVM };

struct accel_verdict {
	int kvm;
	int cached;         /* taken from STATE/accel.json */
	double probe_s;     /* how long the probe took, when one ran */
	char reason[256];
};

#define ACCEL_PROBE_TIMEOUT_S 12.0

int accel_decide(struct virt_conn *vc, const char *state_dir, const char *kernel,
		 const char *runners_dir, enum accel_mode mode, volatile sig_atomic_t *interrupt,
		 struct accel_verdict *v);
/* The KVM modules this machine has loaded, as far as they tell what a guest kernel needs. */
enum accel_kvm_kind {
	ACCEL_KVM_NONE = 0, /* no vendor module seen: /dev/kvm and the probe decide */
	ACCEL_KVM_HW,       /* kvm_intel or kvm_amd: hardware virtualisation, the probe decides */
	ACCEL_KVM_PVM,      /* kvm_pvm alone: only guest kernels built for PVM run */
};

struct accel_kvm {
	enum accel_kvm_kind kind;
	const char *module;      /* the vendor module's name, NULL when none */
	const char *offers;      /* what the host offers with it */
	const char *guest_needs; /* what a guest kernel needs to run under it */
};

#define ACCEL_SYS_MODULE "/sys/module"

/* Which vendor module of KVM module_dir (ACCEL_SYS_MODULE, or a test's stand-in) lists; with
 * kvm_intel or kvm_amd beside kvm_pvm, the hardware one (it may serve /dev/kvm).  Reads
 * nothing else: on such hosts the kernel log may not be readable. */
enum accel_kvm_kind accel_kvm_module(const char *module_dir, struct accel_kvm *k);
/* Whether the modules under module_dir rule KVM out for the lab's kernels (kvm-pvm alone): 1
 * with why naming the module and what a guest kernel would need, else 0. */
int accel_kvm_ruled_out(const char *module_dir, char *why, size_t len);
/* Whether the host offers a KVM the lab's kernels may run under (this machine: /dev/kvm
 * usable and not kvm-pvm alone; a remote one: KVM in its domain capabilities); 0 with why
 * saying why not.  Only a probe says whether guests run. */
int accel_kvm_offered(struct virt_conn *vc, char *why, size_t len);
/* The cached verdict for this host, -ENOENT/-ESTALE when there is none or it is stale. */
int accel_cached(struct virt_conn *vc, const char *state_dir, struct accel_verdict *v);
/* The cache key: host kernel, CPU model and QEMU version. */
int accel_host_key(struct virt_conn *vc, char *buf, size_t len);
