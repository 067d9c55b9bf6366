/* Topology + boot artefacts -> transient libvirt domain XML.  Pure: no I/O. */
#pragma once

#include <stddef.h>

#include "core/topology.h"

#define DOMAIN_DEFAULT_EMULATOR "/usr/bin/qemu-system-x86_64"
/* Above this many vCPUs (or with any APIC ID >= 255) the guest needs x2APIC plus an IOMMU with
 * interrupt remapping in extended mode to address every CPU. */
#define DOMAIN_MAX_VCPUS_WITHOUT_EIM 255

enum domain_accel {
	DOMAIN_ACCEL_TCG,        /* <domain type='qemu'>: multi-threaded TCG, one host thread a
				  * vCPU */
	DOMAIN_ACCEL_KVM,        /* <domain type='kvm'> */
	DOMAIN_ACCEL_TCG_ICOUNT, /* <domain type='qemu'> plus QEMU's -icount shift=0,sleep=off
				  * through libvirt's QEMU command-line passthrough: virtual time
				  * counted in guest instructions, one host thread for all vCPUs */
};

/* The QEMU arguments DOMAIN_ACCEL_TCG_ICOUNT adds (recorded in reports as they are):
 * DOMAIN_ICOUNT_ARG0 and domain_icount_arg()'s value. */
#define DOMAIN_ICOUNT_ARG0 "-icount"
/* The round quantum of the contention model: the lab's QEMU patch
 * (images/qemu/0002-icount-round-quantum.patch) takes 1..65535 instructions. */
#define DOMAIN_QUANTUM_MAX 65535u
#define DOMAIN_QEMU_NS "http://libvirt.org/schemas/domain/qemu/1.0"
/* Under icount the guest's clock starts here (2026-01-01T00:00:00Z) and follows guest time,
 * so no host wall time reaches the guest: with -seed, the boot is a function of its seed. */
#define DOMAIN_RTC_BASE 1767225600LL

struct domain_spec {
	const char *name;         /* required; no '/' or control characters */
	const char *uuid;         /* optional; 32 hex digits, with or without the 8-4-4-4-12 dashes */
	const struct topology *topo; /* required */
	enum domain_accel accel;
	const char *emulator;     /* absolute; NULL = DOMAIN_DEFAULT_EMULATOR */
	const char *firmware;     /* optional, absolute: the ROM QEMU runs first (-bios), e.g.
				   * qboot; NULL = QEMU's default (SeaBIOS) */
	const char *kernel;       /* required, absolute */
	const char *initrd;       /* optional, absolute */
	const char *cmdline;      /* optional */
	const char *console_path; /* required, absolute: ttyS0, the human console */
	const char *results_path; /* required, absolute: ttyS1, the results channel */
	int serial_streams;       /* both ports as ptys, read through libvirt's console streams
				   * (a remote host, virt/relay.h); the two paths are not used */
	const char *disk;         /* optional, absolute: a qcow2 the guest sees as /dev/vda (virtio) */
	int iommu;                /* force the intel-iommu; it is added anyway when needed */
	unsigned long long seed;  /* DOMAIN_ACCEL_TCG_ICOUNT: QEMU's -seed, which drives the
				   * guest's emulated RDRAND; two boots with different seeds are
				   * independent, two with one seed the same boot */
	unsigned quantum;         /* DOMAIN_ACCEL_TCG_ICOUNT: 0 plain icount, else rounds of at
				   * most this many instructions per vCPU (needs the lab's QEMU
				   * as emulator) */
	const char *plugin;       /* optional, TCG only: QEMU's -plugin value
				   * (file=/abs/x.so,ARG=...), the lock-instruction counter or
				   * the NUMA cost model */
	const char *plugin2;      /* optional, TCG only: a second -plugin (the profile), loaded
				   * after the first */
};

/* -icount's value: "shift=0,sleep=off" plus ",quantum=Q" when quantum > 0.  -EINVAL above
 * DOMAIN_QUANTUM_MAX, -ENOSPC when len is short. */
int domain_icount_arg(unsigned quantum, char *buf, size_t len);

/* The TCG translation buffer a TCG guest of vcpus gets, MiB (<features><tcg><tb-cache>). */
unsigned long domain_tb_cache_mib(unsigned vcpus);
/* Largest x86 APIC ID QEMU gives the topology (IDs are packed bit fields per level). */
unsigned long domain_max_apic_id(const struct topology *t);
/* Whether domain_xml adds intel-iommu (intremap+eim), the split I/O APIC and x2APIC. */
int domain_wants_iommu(const struct domain_spec *spec);
/* Build the XML into *out (caller frees).  -EINVAL for a missing or unusable field (relative
 * path, bad UUID, string XML cannot carry), -ENOMEM. */
int domain_xml(const struct domain_spec *spec, char **out);
