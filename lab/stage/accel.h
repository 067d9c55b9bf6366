/* KVM or TCG: decided by booting a probe guest under KVM with a timeout, never by opening
 * /dev/kvm (on some hosts KVM_CREATE_VM works and guests still hang).  The verdict is cached
 * per host in STATE/accel.json. */
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

int accel_mode_parse(const char *s, enum accel_mode *m);
int accel_decide(struct virt_conn *vc, const char *state_dir, const char *kernel,
		 const char *runners_dir, enum accel_mode mode, volatile sig_atomic_t *interrupt,
		 struct accel_verdict *v);
/* Whether the host offers KVM at all (this machine: /dev/kvm usable; a remote one: KVM in its
 * domain capabilities); 0 with why saying why not.  Only a probe says whether guests run. */
int accel_kvm_offered(struct virt_conn *vc, char *why, size_t len);
/* The cached verdict for this host, -ENOENT/-ESTALE when there is none or it is stale. */
int accel_cached(struct virt_conn *vc, const char *state_dir, struct accel_verdict *v);
/* The cache key: host kernel, CPU model and QEMU version. */
int accel_host_key(struct virt_conn *vc, char *buf, size_t len);
