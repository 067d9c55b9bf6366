#include "core/domain.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/strbuf.h"

static unsigned bits_for(unsigned count)
{
	unsigned b = 0;

	while (b < 31 && (1U << b) < count)
		b++;
	return b;
}

unsigned long domain_max_apic_id(const struct topology *t)
{
	/* QEMU's x86 APIC ID: thread, core, module (1 here), die and socket fields, each as
	 * wide as its count needs (target/i386 topology.h). */
	unsigned tb = bits_for(t->threads), cb = bits_for(t->cores), db = bits_for(t->dies);

	if (!t->sockets || !t->dies || !t->cores || !t->threads)
		return 0;
	return ((unsigned long)(t->sockets - 1) << (db + cb + tb)) |
	       ((unsigned long)(t->dies - 1) << (cb + tb)) |
	       ((unsigned long)(t->cores - 1) << tb) | (t->threads - 1);
}

int domain_wants_iommu(const struct domain_spec *spec)
{
	const struct topology *t = spec->topo;

	if (!t)
		return spec->iommu != 0;
	return spec->iommu != 0 || t->vcpus > DOMAIN_MAX_VCPUS_WITHOUT_EIM ||
	       domain_max_apic_id(t) >= DOMAIN_MAX_VCPUS_WITHOUT_EIM;
}

static int uuid_valid(const char *s)
{
	size_t n = strlen(s);

	if (n != 32 && n != 36)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int dash = n == 36 && (i == 8 || i == 13 || i == 18 || i == 23);

		if (dash ? s[i] != '-' : !isxdigit((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

static int abs_path(const char *s)
{
	return s && s[0] == '/' && s[1];
}

/* A TCG plugin instruments translated code: nothing to instrument under KVM.  NULL: none. */
static int plugin_valid(const struct domain_spec *s, const char *plugin)
{
	return !plugin || (s->accel != DOMAIN_ACCEL_KVM && !strncmp(plugin, "file=/", 6));
}

static int spec_valid(const struct domain_spec *s)
{
	const struct topology *t = s->topo;

	if (!s->name || !s->name[0] || strchr(s->name, '/'))
		return 0;
	for (const char *p = s->name; *p; p++) /* libvirt refuses newlines in names */
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	if (s->uuid && !uuid_valid(s->uuid))
		return 0;
	if (!t || !t->vcpus || !t->nr_nodes || !t->nodes || !t->distances || !t->sockets ||
	    !t->dies || !t->cores || !t->threads ||
	    (unsigned long)t->sockets * t->dies * t->cores * t->threads != t->vcpus)
		return 0;
	for (unsigned i = 0; i < t->nr_nodes; i++)
		if (!t->nodes[i].nr_cpus || !t->nodes[i].cpus)
			return 0;
	if (s->accel != DOMAIN_ACCEL_TCG && s->accel != DOMAIN_ACCEL_KVM &&
	    s->accel != DOMAIN_ACCEL_TCG_ICOUNT)
		return 0;
	/* Only QEMU with the lab's patch knows quantum=: the stock binary would refuse it. */
	if (s->quantum && (s->accel != DOMAIN_ACCEL_TCG_ICOUNT || s->quantum > DOMAIN_QUANTUM_MAX ||
			   !s->emulator))
		return 0;
	if (!plugin_valid(s, s->plugin) || !plugin_valid(s, s->plugin2))
		return 0;
	if ((s->emulator && !abs_path(s->emulator)) || !abs_path(s->kernel) ||
	    (s->firmware && !abs_path(s->firmware)) ||
	    (s->initrd && !abs_path(s->initrd)) ||
	    (!s->serial_streams && (!abs_path(s->console_path) || !abs_path(s->results_path))) ||
	    (s->disk && !abs_path(s->disk)))
		return 0;
	return 1;
}

/* TCG's translation buffer.  Multi-threaded TCG splits it into regions of at least 2 MiB, one
 * or more per vCPU thread, and when a thread needs a region and none is free it flushes every
 * translation of every vCPU.  QEMU's default of 1 GiB is 512 regions: at 512 vCPUs each vCPU
 * that ran any code held one, the boot CPU found none free, and the guest spent its time
 * translating the same kernel code again (bare QEMU, 4s-512c: the agent onlined 510 CPUs in
 * 116 s; with 4 GiB, 17 s, "TB flush count 0").  8 MiB a vCPU keeps about four regions each.
 * It is address space reserved, not memory: only the code translated is touched. */
unsigned long domain_tb_cache_mib(unsigned vcpus)
{
	unsigned long mib = 8ul * vcpus;

	return mib > 1024 ? mib : 1024;
}

/* <tag>escaped text</tag> on its own line. */
static void xml_element(struct strbuf *sb, const char *indent, const char *tag, const char *text)
{
	strbuf_appendf(sb, "%s<%s>", indent, tag);
	strbuf_append_xml(sb, text);
	strbuf_appendf(sb, "</%s>\n", tag);
}

/* path NULL: a pty, which libvirt's console API streams to a lab on another machine. */
static void xml_serial(struct strbuf *sb, const char *path, unsigned port)
{
	if (path) {
		strbuf_append(sb, "    <serial type='file'>\n      <source path='");
		strbuf_append_xml(sb, path);
		strbuf_append(sb, "' append='off'/>\n");
	} else {
		strbuf_append(sb, "    <serial type='pty'>\n");
	}
	strbuf_appendf(sb, "      <target type='isa-serial' port='%u'>\n", port);
	strbuf_append(sb, "        <model name='isa-serial'/>\n"
			  "      </target>\n"
			  "    </serial>\n");
}

/* The run's overlay, thrown away after the run.  cache='unsafe': a guest flush still writes
 * QEMU's qcow2 metadata and data to the host's page cache (bdrv_co_flush's flush_to_os step),
 * so what the guest fdatasync'd survives its panic and QEMU's death for the post-mortem; only
 * the host fdatasync is skipped.  That one made every guest log line wait for the host's disk,
 * which stalled a guest past the hang timeout on a busy host and would distort timings. */
static void xml_disk(struct strbuf *sb, const char *path)
{
	strbuf_append(sb, "    <disk type='file' device='disk'>\n"
			  "      <driver name='qemu' type='qcow2' cache='unsafe'/>\n"
			  "      <source file='");
	strbuf_append_xml(sb, path);
	strbuf_append(sb, "'/>\n"
			  "      <target dev='vda' bus='virtio'/>\n"
			  "    </disk>\n");
}

/* libvirt's domain XML has no element for icount (libvirt 11.3; <features><tcg> only sizes the
 * translation cache), so the deterministic timing model goes through the QEMU command-line
 * passthrough namespace.  libvirt marks such a domain tainted ("custom-argv") and passes the
 * arguments on as they are; with -icount QEMU runs TCG single-threaded by itself.  shift=0: one
 * instruction is one virtual nanosecond; sleep=off: an idle guest's clock jumps to the next
 * timer instead of waiting for it in real time, so no host time leaks into guest time.
 * -seed: without it the guest's RDRAND comes from the host, and with the RTC read from the
 * host's clock two boots started in the same second were copies (same figures to the last
 * digit, integration-timing); libvirt has no element for it either. */
int domain_icount_arg(unsigned quantum, char *buf, size_t len)
{
	int n;

	if (quantum > DOMAIN_QUANTUM_MAX)
		return -EINVAL;
	n = quantum ? snprintf(buf, len, "shift=0,sleep=off,quantum=%u", quantum)
		    : snprintf(buf, len, "shift=0,sleep=off");
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* quantum=Q (the lab's patch): each vCPU runs at most Q instructions a round and guest time
 * advances by one round, so vCPUs overlap in guest time and can contend for a lock. */
static void xml_icount(struct strbuf *sb, const struct domain_spec *spec)
{
	char arg[64];

	domain_icount_arg(spec->quantum, arg, sizeof(arg)); /* spec_valid checked quantum */
	strbuf_appendf(sb, "    <qemu:arg value='" DOMAIN_ICOUNT_ARG0 "'/>\n"
			   "    <qemu:arg value='%s'/>\n"
			   "    <qemu:arg value='-seed'/>\n"
			   "    <qemu:arg value='%llu'/>\n", arg, spec->seed);
}

static void xml_plugin(struct strbuf *sb, const char *plugin)
{
	if (!plugin)
		return;
	strbuf_append(sb, "    <qemu:arg value='-plugin'/>\n    <qemu:arg value='");
	strbuf_append_xml(sb, plugin);
	strbuf_append(sb, "'/>\n");
}

/* QEMU's own arguments, which libvirt has no element for: icount and -seed, TCG plugins. */
static void xml_qemu_args(struct strbuf *sb, const struct domain_spec *spec)
{
	if (spec->accel != DOMAIN_ACCEL_TCG_ICOUNT && !spec->plugin && !spec->plugin2)
		return;
	strbuf_append(sb, "  <qemu:commandline>\n");
	if (spec->accel == DOMAIN_ACCEL_TCG_ICOUNT)
		xml_icount(sb, spec);
	xml_plugin(sb, spec->plugin);
	xml_plugin(sb, spec->plugin2);
	strbuf_append(sb, "  </qemu:commandline>\n");
}

/* The RTC: the host's UTC at boot, or under icount a fixed start that follows guest time
 * (QEMU's -rtc base=...,clock=vm), so the guest never reads the host's clock. */
static void xml_clock(struct strbuf *sb, const struct domain_spec *spec)
{
	if (spec->accel != DOMAIN_ACCEL_TCG_ICOUNT) {
		strbuf_append(sb, "  <clock offset='utc'/>\n");
		return;
	}
	strbuf_appendf(sb, "  <clock offset='absolute' start='%lld'>\n"
			   "    <timer name='rtc' track='guest'/>\n"
			   "  </clock>\n", DOMAIN_RTC_BASE);
}

static int xml_numa(struct strbuf *sb, const struct topology *t)
{
	strbuf_append(sb, "    <numa>\n");
	for (unsigned i = 0; i < t->nr_nodes; i++) {
		const struct topo_node *n = &t->nodes[i];
		/* Worst case "d,d,..." with up to 10 digits each. */
		size_t len = (size_t)n->nr_cpus * 11 + 1;
		_cleanup_free_ char *cpus = malloc(len);
		int r;

		if (!cpus)
			return -ENOMEM;
		r = topology_cpulist(n->cpus, n->nr_cpus, cpus, len);
		if (r < 0)
			return r;
		strbuf_appendf(sb, "      <cell id='%u' cpus='%s' memory='%lu' unit='MiB'>\n", i, cpus,
			       n->memory_mib);
		strbuf_append(sb, "        <distances>\n");
		for (unsigned b = 0; b < t->nr_nodes; b++)
			strbuf_appendf(sb, "          <sibling id='%u' value='%u'/>\n", b,
				       t->distances[i * t->nr_nodes + b]);
		strbuf_append(sb, "        </distances>\n"
				  "      </cell>\n");
	}
	strbuf_append(sb, "    </numa>\n");
	return 0;
}

/* <os>: the machine, the directly loaded kernel, its initrd and command line. */
static void xml_os(struct strbuf *sb, const struct domain_spec *spec)
{
	strbuf_append(sb, "  <os>\n"
			  "    <type arch='x86_64' machine='q35'>hvm</type>\n");
	if (spec->firmware) {
		strbuf_append(sb, "    <loader type='rom'>");
		strbuf_append_xml(sb, spec->firmware);
		strbuf_append(sb, "</loader>\n");
	}
	xml_element(sb, "    ", "kernel", spec->kernel);
	if (spec->initrd)
		xml_element(sb, "    ", "initrd", spec->initrd);
	if (spec->cmdline)
		xml_element(sb, "    ", "cmdline", spec->cmdline);
	strbuf_append(sb, "  </os>\n");
}

static void xml_features(struct strbuf *sb, const struct domain_spec *spec,
			 const struct topology *t, int iommu)
{
	/* No System Management Mode: nothing the lab boots uses it (the kernel is loaded
	 * directly, no UEFI firmware), and with it q35 gives every vCPU a second address space
	 * whose memory map QEMU renders again on each change: at 512 vCPUs the guest's first
	 * console line came 48.6 s after QEMU started with SMM, 23.9 s without (bare QEMU). */
	strbuf_append(sb, "  <features>\n"
			  "    <acpi/>\n"
			  "    <apic/>\n"
			  "    <smm state='off'/>\n");
	/* Interrupt remapping needs the I/O APIC emulated in QEMU: kernel_irqchip=split, which
	 * KVM needs and TCG ignores.  libvirt 11.3 would add it (and, above 255 vCPUs, the IOMMU)
	 * by itself; spelling both out keeps the XML what actually runs, on any libvirt. */
	if (iommu)
		strbuf_append(sb, "    <ioapic driver='qemu'/>\n");
	if (spec->accel != DOMAIN_ACCEL_KVM)
		strbuf_appendf(sb, "    <tcg>\n      <tb-cache unit='MiB'>%lu</tb-cache>\n"
				   "    </tcg>\n", domain_tb_cache_mib(t->vcpus));
	strbuf_append(sb, "  </features>\n");
}

static int xml_cpu(struct strbuf *sb, const struct domain_spec *spec, const struct topology *t,
		   int iommu)
{
	int r;

	/* QEMU's default x86 CPU is qemu64, for KVM too (-cpu host aborts on MSR 0x10a on the
	 * hosts we run on).  Naming the model makes libvirt read back every CPU feature over QMP
	 * before the guest starts (about 900 qom-get calls, 0.4 s here), so the model is named
	 * only when a feature must be added to it. */
	strbuf_append(sb, "  <cpu mode='custom' match='exact' check='none'>\n");
	if (iommu || spec->accel == DOMAIN_ACCEL_TCG_ICOUNT)
		strbuf_append(sb, "    <model fallback='forbid'>qemu64</model>\n");
	strbuf_appendf(sb, "    <topology sockets='%u' dies='%u' cores='%u' threads='%u'/>\n",
		       t->sockets, t->dies, t->cores, t->threads);
	/* qemu64 lacks x2APIC, and QEMU refuses APIC IDs >= 255 without it. */
	if (iommu)
		strbuf_append(sb, "    <feature policy='require' name='x2apic'/>\n");
	/* qemu64 lacks RDRAND too, and without it -seed reached nothing the guest reads: two
	 * icount boots with different seeds gave the same figures to the last digit.  With it
	 * the kernel's random state (ASLR, hash seeds, freelist order) follows the seed. */
	if (spec->accel == DOMAIN_ACCEL_TCG_ICOUNT)
		strbuf_append(sb, "    <feature policy='require' name='rdrand'/>\n");
	r = xml_numa(sb, t);
	if (r < 0)
		return r;
	strbuf_append(sb, "  </cpu>\n");
	return 0;
}

/* What becomes of the guest on poweroff, reboot, crash, and its devices. */
static void xml_devices(struct strbuf *sb, const struct domain_spec *spec, int iommu)
{
	strbuf_append(sb, "  <on_poweroff>destroy</on_poweroff>\n"
			  "  <on_reboot>destroy</on_reboot>\n"
			  "  <on_crash>destroy</on_crash>\n"
			  "  <devices>\n");
	xml_element(sb, "    ", "emulator", spec->emulator ? spec->emulator : DOMAIN_DEFAULT_EMULATOR);
	xml_serial(sb, spec->serial_streams ? NULL : spec->console_path, 0);
	xml_serial(sb, spec->serial_streams ? NULL : spec->results_path, 1);
	if (spec->disk)
		xml_disk(sb, spec->disk);
	strbuf_append(sb, "    <controller type='usb' model='none'/>\n"
			  "    <memballoon model='none'/>\n"
			  /* pvpanic: with the guest driver (ACPI QEMU0001), a panic is
			   * a crash event for libvirt (on_crash) at once. */
			  "    <panic model='isa'/>\n");
	if (iommu)
		strbuf_append(sb, "    <iommu model='intel'>\n"
				   "      <driver intremap='on' eim='on'/>\n"
				   "    </iommu>\n");
	strbuf_append(sb, "  </devices>\n");
}

int domain_xml(const struct domain_spec *spec, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const struct topology *t;
	int iommu, r;

	if (!spec || !out || !spec_valid(spec))
		return -EINVAL;
	t = spec->topo;
	iommu = domain_wants_iommu(spec);

	strbuf_appendf(&sb, "<domain type='%s'%s>\n", spec->accel == DOMAIN_ACCEL_KVM ? "kvm" : "qemu",
		       spec->accel == DOMAIN_ACCEL_TCG_ICOUNT || spec->plugin || spec->plugin2
			       ? " xmlns:qemu='" DOMAIN_QEMU_NS "'" : "");
	xml_element(&sb, "  ", "name", spec->name);
	if (spec->uuid)
		xml_element(&sb, "  ", "uuid", spec->uuid);
	strbuf_appendf(&sb, "  <memory unit='MiB'>%lu</memory>\n", topology_memory_mib(t));
	strbuf_appendf(&sb, "  <vcpu placement='static'>%u</vcpu>\n", t->vcpus);

	xml_os(&sb, spec);
	xml_features(&sb, spec, t, iommu);
	r = xml_cpu(&sb, spec, t, iommu);
	if (r < 0)
		return r;
	xml_clock(&sb, spec);
	xml_devices(&sb, spec, iommu);
	xml_qemu_args(&sb, spec);
	strbuf_append(&sb, "</domain>\n");
	return strbuf_take(&sb, out);
}
