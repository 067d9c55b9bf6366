/* Domain XML: golden files, schema validation with virt-xml-validate, escaping, refusals.
 *
 * Each case builds the XML for a shipped topology and compares it byte for byte with
 * lab/tests/golden/domain-NAME.xml; UPDATE_GOLDEN=1 rewrites the goldens instead.  Every golden
 * is then validated against libvirt's domain schema by virt-xml-validate (package
 * libvirt-clients); a missing validator is a failure, not a skip. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/domain.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

extern char **environ;

#define MAX_FILE (1u << 20)

static const char *lab_root(void)
{
	const char *r = getenv("LAB_ROOT");

	return r && r[0] ? r : ".";
}

static int load_topology(const char *name, struct topology *t)
{
	_cleanup_free_ char *rel = NULL, *path = NULL;
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = {0};
	int r;

	if (asprintf(&rel, "configs/topologies/%s.json", name) < 0)
		return -ENOMEM;
	path = fs_join(lab_root(), rel);
	if (!path)
		return -ENOMEM;
	r = jsonio_load_file(path, MAX_FILE, &j, &err);
	if (r == 0)
		r = topology_from_json(j, "topology", t, &err);
	if (r < 0)
		printf("# %s: %s: %s\n", path, err.path, err.msg);
	return r;
}

static void diag_lines(const char *text)
{
	while (text && *text) {
		size_t n = strcspn(text, "\n");

		printf("#   %.*s\n", (int)(n < 1000 ? n : 1000), text);
		text += n + (text[n] == '\n');
	}
}

/* Runs `virt-xml-validate FILE domain`, capturing its output; 0 when the file validates. */
static int xml_validate(const char *file, char *out, size_t outlen)
{
	char *argv[] = {"virt-xml-validate", (char *)file, "domain", NULL};
	posix_spawn_file_actions_t fa;
	int pipefd[2], status, r;
	size_t used = 0;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (r != 0) {
		close(pipefd[0]);
		snprintf(out, outlen, "cannot run virt-xml-validate: %s%s", strerror(r),
			 r == ENOENT ? " (install libvirt-clients)" : "");
		return -r;
	}
	for (;;) {
		char buf[512];
		ssize_t n = read(pipefd[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && used + 1 < outlen; i++)
			out[used++] = buf[i];
		out[used] = '\0';
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(out + used, outlen - used, "virt-xml-validate: exit 127 (not installed?)");
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EINVAL;
}

static void check_valid(const char *label, const char *file)
{
	char out[8192];
	int r = xml_validate(file, out, sizeof(out));

	if (!tap_ok(r == 0, "%s validates against libvirt's domain schema", label))
		diag_lines(out);
}

/* Write xml to a temporary file and validate it. */
static void check_valid_string(const char *label, const char *xml)
{
	char tmpl[] = "/tmp/numalab-test-domain-XXXXXX.xml";
	int fd = mkstemps(tmpl, 4);

	if (fd < 0) {
		tap_ok(0, "%s: temporary file: %s", label, strerror(errno));
		return;
	}
	close(fd);
	if (fs_write_atomic(tmpl, xml, strlen(xml)) < 0)
		tap_ok(0, "%s: write %s", label, tmpl);
	else
		check_valid(label, tmpl);
	unlink(tmpl);
}

static void first_difference(const char *want, const char *got)
{
	const char *w = want, *g = got, *wl = want, *gl = got;
	unsigned line = 1;

	while (*w && *w == *g) {
		if (*w == '\n') {
			line++;
			wl = w + 1;
			gl = g + 1;
		}
		w++;
		g++;
	}
	printf("# first difference at line %u\n", line);
	printf("# want: %.*s\n", (int)strcspn(wl, "\n"), wl);
	printf("# got:  %.*s\n", (int)strcspn(gl, "\n"), gl);
}

struct golden_case {
	const char *golden;   /* lab/tests/golden/domain-<golden>.xml */
	const char *topology; /* configs/topologies/<topology>.json */
	enum domain_accel accel;
	int iommu;
	const char *uuid, *emulator, *initrd, *cmdline;
	int want_iommu; /* whether the XML must carry the intel-iommu */
	int streams;    /* serial ports as ptys (a remote host) */
	const char *firmware; /* -bios ROM (qboot), NULL: QEMU's default */
	unsigned quantum;     /* the contention model's round; 0: none */
	const char *plugin;   /* QEMU's -plugin value; NULL: none */
};

static const struct golden_case golden_cases[] = {
	{"4s-8c-tcg", "4s-8c", DOMAIN_ACCEL_TCG, 0, "6f1d7c1e-3a8b-4c1e-9f5a-2b7d0e4c8a11", NULL,
	 "/var/lib/numalab/cache/initramfs-0123abcd.cpio",
	 "console=ttyS0 panic=-1 lpj=4000000 nohz=on", 0, 0, NULL, 0, NULL},
	{"4s-8c-kvm", "4s-8c", DOMAIN_ACCEL_KVM, 0, NULL, "/usr/libexec/qemu-kvm", NULL, NULL, 0, 0, NULL, 0, NULL},
	{"4s-8c-kvm-iommu", "4s-8c", DOMAIN_ACCEL_KVM, 1, "0123456789abcdef0123456789ABCDEF", NULL,
	 "/var/lib/numalab/cache/initramfs-0123abcd.cpio", "console=ttyS0", 1, 0, NULL, 0, NULL},
	{"4s-8c-icount", "4s-8c", DOMAIN_ACCEL_TCG_ICOUNT, 0, "6f1d7c1e-3a8b-4c1e-9f5a-2b7d0e4c8a13",
	 NULL, "/var/lib/numalab/cache/initramfs-0123abcd.cpio",
	 "console=ttyS0 panic=-1 lpj=4000000 nohz=on", 0, 0, NULL, 0, NULL},
	{"4s-512c-tcg-iommu", "4s-512c", DOMAIN_ACCEL_TCG, 0,
	 "6f1d7c1e-3a8b-4c1e-9f5a-2b7d0e4c8a12", NULL,
	 "/var/lib/numalab/cache/initramfs-0123abcd.cpio",
	 "console=ttyS0 panic=-1 lpj=4000000 nohz=on intremap=on", 1, 0, NULL, 0, NULL},
	/* A remote host's guest: the files are volumes of the lab's pool there, the serial
	 * ports ptys streamed back through libvirt. */
	{"4s-8c-tcg-remote", "4s-8c", DOMAIN_ACCEL_TCG, 0, NULL, NULL,
	 "/var/lib/numalab-pool/run-20261130-0350-quick-r0-initrd.cpio",
	 "console=ttyS0 panic=-1 lpj=4000000 nohz=on", 0, 1, NULL, 0, NULL},
	/* The contention model: icount with rounds, on the lab's QEMU build. */
	{"4s-8c-quantum", "4s-8c", DOMAIN_ACCEL_TCG_ICOUNT, 0, NULL,
	 "/var/cache/numalab/qemu/artifacts/0123abcd/qemu-system-x86_64",
	 "/var/lib/numalab/cache/initramfs-0123abcd.cpio",
	 "console=ttyS0 panic=-1 lpj=4000000 nohz=on", 0, 0, NULL, 1000, NULL},
	/* qboot instead of SeaBIOS (lab/run/boot.c says when). */
	{"4s-8c-tcg-qboot", "4s-8c", DOMAIN_ACCEL_TCG, 0, NULL, NULL,
	 "/var/lib/numalab/cache/initramfs-0123abcd.cpio",
	 "console=ttyS0 panic=-1 lpj=4000000 nohz=on", 0, 0, "/usr/share/qemu/qboot.rom", 0, NULL},
	/* The lock-instruction counter under icount: -plugin beside -icount and -seed. */
	{"4s-8c-icount-plugin", "4s-8c", DOMAIN_ACCEL_TCG_ICOUNT, 0, NULL, NULL,
	 "/var/lib/numalab/cache/initramfs-0123abcd.cpio",
	 "console=ttyS0 panic=-1 lpj=4000000 nohz=on nokaslr", 0, 0, NULL, 0,
	 "file=/usr/lib/numalab/plugin/lockinsn.so,map=/var/lib/numalab/runs/r0/lockinsn.map,"
	 "out=/var/lib/numalab/runs/r0/lockinsn.json"},
	/* The NUMA cost plugin under the contention model: -plugin beside -icount's rounds, on
	 * the lab's QEMU build. */
	{"4s-8c-quantum-numacost", "4s-8c", DOMAIN_ACCEL_TCG_ICOUNT, 0, NULL,
	 "/var/cache/numalab/qemu/artifacts/0123abcd/qemu-system-x86_64",
	 "/var/lib/numalab/cache/initramfs-0123abcd.cpio",
	 "console=ttyS0 panic=-1 lpj=4000000 nohz=on nokaslr", 0, 0, NULL, 1000,
	 "file=/usr/lib/numalab/plugin/numacost.so,cfg=/var/lib/numalab/runs/r0/numacost.cfg,"
	 "out=/var/lib/numalab/runs/r0/numacost.json,map=/var/lib/numalab/runs/r0/numacost.map"},
	/* ... and under plain TCG, where only the plugin needs QEMU's own arguments. */
	{"4s-8c-tcg-plugin", "4s-8c", DOMAIN_ACCEL_TCG, 0, NULL, NULL, NULL, "console=ttyS0 nokaslr",
	 0, 0, NULL, 0, "file=/p/lockinsn.so,map=/r/a&b.map,out=/r/o.json"},
};

static void run_golden(const struct golden_case *c, int update)
{
	_cleanup_free_ char *rel = NULL, *path = NULL, *xml = NULL, *want = NULL;
	struct topology t;
	struct domain_spec spec = {
		.name = "numalab-20261130-0350-quick-r0",
		.uuid = c->uuid,
		.topo = &t,
		.accel = c->accel,
		.emulator = c->emulator,
		.kernel = "/var/lib/numalab/cache/bzImage-6.12-0123abcd",
		.initrd = c->initrd,
		.firmware = c->firmware,
		.cmdline = c->cmdline,
		.console_path = "/var/lib/numalab/runs/20261130-0350-quick-r0/console.log",
		.results_path = "/var/lib/numalab/runs/20261130-0350-quick-r0/results.jsonl",
		.iommu = c->iommu,
		.serial_streams = c->streams,
		.seed = 8364502841563029117ULL,
		.quantum = c->quantum,
		.plugin = c->plugin,
	};
	int r;

	if (!tap_ok(load_topology(c->topology, &t) == 0, "%s: topology %s loads", c->golden,
		    c->topology))
		return;
	if (asprintf(&rel, "lab/tests/golden/domain-%s.xml", c->golden) < 0 ||
	    !(path = fs_join(lab_root(), rel))) {
		tap_ok(0, "%s: out of memory", c->golden);
		topology_free(&t);
		return;
	}
	r = domain_xml(&spec, &xml);
	if (!tap_ok(r == 0, "%s: domain_xml returns 0 (%d)", c->golden, r)) {
		topology_free(&t);
		return;
	}
	tap_ok(domain_wants_iommu(&spec) == c->want_iommu &&
		       (strstr(xml, "<iommu model='intel'>") != NULL) == c->want_iommu &&
		       (strstr(xml, "<ioapic driver='qemu'/>") != NULL) == c->want_iommu &&
		       (strstr(xml, "name='x2apic'") != NULL) == c->want_iommu,
	       "%s: intel-iommu, split I/O APIC and x2apic %s", c->golden,
	       c->want_iommu ? "present" : "absent");
	if (update) {
		r = fs_write_atomic(path, xml, strlen(xml));
		tap_ok(r == 0, "%s: golden %s rewritten (UPDATE_GOLDEN=1)", c->golden, rel);
	} else if (fs_read_file(path, MAX_FILE, &want, NULL) < 0) {
		tap_ok(0, "%s: golden %s missing (run with UPDATE_GOLDEN=1)", c->golden, rel);
	} else if (!tap_ok(strcmp(want, xml) == 0, "%s: matches golden %s", c->golden, rel)) {
		first_difference(want, xml);
	}
	check_valid(rel, path);
	topology_free(&t);
}

/* Every string that reaches the XML is escaped, and the result still validates. */
static void run_escaping(void)
{
	_cleanup_free_ char *xml = NULL;
	struct topology t;
	struct domain_spec spec = {
		.name = "a<b>&'\"c",
		.topo = &t,
		.accel = DOMAIN_ACCEL_TCG,
		.emulator = "/opt/q&emu/bin/qemu",
		.kernel = "/tmp/k&<>'\"",
		.initrd = "/tmp/i'n\"it<rd>",
		.cmdline = "x=\"1\" y='2' a&b <c> é",
		.console_path = "/tmp/it's/console.log",
		.results_path = "/tmp/\"r\"/results&.jsonl",
	};
	static const char *const want[] = {
		"<name>a&lt;b&gt;&amp;&apos;&quot;c</name>",
		"<emulator>/opt/q&amp;emu/bin/qemu</emulator>",
		"<kernel>/tmp/k&amp;&lt;&gt;&apos;&quot;</kernel>",
		"<initrd>/tmp/i&apos;n&quot;it&lt;rd&gt;</initrd>",
		"<cmdline>x=&quot;1&quot; y=&apos;2&apos; a&amp;b &lt;c&gt; é</cmdline>",
		"<source path='/tmp/it&apos;s/console.log' append='off'/>",
		"<source path='/tmp/&quot;r&quot;/results&amp;.jsonl' append='off'/>",
	};

	if (!tap_ok(load_topology("4s-8c", &t) == 0, "escaping: topology loads"))
		return;
	if (tap_ok(domain_xml(&spec, &xml) == 0, "escaping: domain_xml returns 0")) {
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			tap_ok(strstr(xml, want[i]) != NULL, "escaping: has %s", want[i]);
		check_valid_string("escaping: XML with escaped strings", xml);
	}
	topology_free(&t);
}

/* Inputs domain_xml must refuse with -EINVAL, leaving *out alone. */
/* Two plugins (the NUMA cost model and the profile): both -plugin arguments, in order, and
 * one without the other. */
static void run_two_plugins(const struct domain_spec *good)
{
	struct domain_spec spec = *good;
	_cleanup_free_ char *both = NULL, *second = NULL;
	const char *a, *b;

	spec.accel = DOMAIN_ACCEL_TCG;
	spec.plugin = "file=/p/numacost.so,out=/r/n.json";
	spec.plugin2 = "file=/p/profile.so,out=/r/p.json";
	a = domain_xml(&spec, &both) == 0 ? strstr(both, "file=/p/numacost.so") : NULL;
	b = a ? strstr(both, "file=/p/profile.so") : NULL;
	tap_ok(a && b && a < b, "two plugins: both -plugin values, the first first");
	spec.plugin = NULL;
	tap_ok(domain_xml(&spec, &second) == 0 && strstr(second, "xmlns:qemu=") &&
		       strstr(second, "<qemu:arg value='-plugin'/>") &&
		       strstr(second, "file=/p/profile.so"), "the second plugin alone: its -plugin");
}

static void run_refusals(void)
{
	struct topology t;

	if (!tap_ok(load_topology("4s-8c", &t) == 0, "refusals: topology loads"))
		return;
	const struct domain_spec good = {
		.name = "n", .topo = &t, .kernel = "/k", .console_path = "/c", .results_path = "/r",
	};
	struct {
		const char *what;
		struct domain_spec spec;
	} cases[] = {
		{"no name", good},
		{"empty name", good},
		{"name with '/'", good},
		{"name with a newline", good},
		{"bad uuid", good},
		{"uuid with a wrong dash", good},
		{"no topology", good},
		{"relative kernel path", good},
		{"no kernel", good},
		{"relative initrd path", good},
		{"relative emulator path", good},
		{"relative firmware path", good},
		{"no console path", good},
		{"no results path", good},
		{"control character in cmdline", good},
		{"invalid UTF-8 in cmdline", good},
		{"overlong UTF-8 in kernel path", good},
		{"unknown accelerator", good},
		{"quantum without icount", good},
		{"quantum without the lab's emulator", good},
		{"quantum above the patch's 65535", good},
		{"a TCG plugin under KVM", good},
		{"a TCG plugin that is not file=/ABSOLUTE", good},
		{"a second TCG plugin under KVM", good},
		{"a second TCG plugin that is not file=/ABSOLUTE", good},
	};
	unsigned i = 0;

	cases[i++].spec.name = NULL;
	cases[i++].spec.name = "";
	cases[i++].spec.name = "a/b";
	cases[i++].spec.name = "a\nb";
	cases[i++].spec.uuid = "not-a-uuid";
	cases[i++].spec.uuid = "6f1d7c1e3-a8b-4c1e-9f5a-2b7d0e4c8a11";
	cases[i++].spec.topo = NULL;
	cases[i++].spec.kernel = "bzImage";
	cases[i++].spec.kernel = NULL;
	cases[i++].spec.initrd = "initrd.cpio";
	cases[i++].spec.emulator = "qemu-system-x86_64";
	cases[i++].spec.firmware = "qboot.rom";
	cases[i++].spec.console_path = NULL;
	cases[i++].spec.results_path = NULL;
	cases[i++].spec.cmdline = "a\x01" "b";
	cases[i++].spec.cmdline = "caf\xe9";
	cases[i++].spec.kernel = "/k\xc0\xaf";
	cases[i++].spec.accel = (enum domain_accel)7;
	cases[i++].spec.quantum = 1000;
	cases[i].spec.accel = DOMAIN_ACCEL_TCG_ICOUNT;
	cases[i++].spec.quantum = 1000;
	cases[i].spec.accel = DOMAIN_ACCEL_TCG_ICOUNT;
	cases[i].spec.emulator = "/q";
	cases[i++].spec.quantum = DOMAIN_QUANTUM_MAX + 1;
	cases[i].spec.accel = DOMAIN_ACCEL_KVM;
	cases[i++].spec.plugin = "file=/p/lockinsn.so";
	cases[i++].spec.plugin = "file=lockinsn.so";
	cases[i].spec.accel = DOMAIN_ACCEL_KVM;
	cases[i++].spec.plugin2 = "file=/p/profile.so";
	cases[i++].spec.plugin2 = "profile.so";

	{
		char *out = NULL;

		tap_ok(domain_xml(&good, &out) == 0 && out, "refusals: the baseline spec works");
		free(out);
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = (char *)"untouched";
		int r = domain_xml(&cases[i].spec, &out);

		tap_ok(r == -EINVAL && strcmp(out, "untouched") == 0, "refusals: %s -> -EINVAL (%d)",
		       cases[i].what, r);
	}
	tap_ok(domain_xml(NULL, NULL) == -EINVAL, "refusals: NULL spec");
	run_two_plugins(&good);
	{
		char arg[64];

		tap_ok(domain_icount_arg(0, arg, sizeof(arg)) == 0 &&
			       !strcmp(arg, "shift=0,sleep=off"), "icount arg: plain (%s)", arg);
		tap_ok(domain_icount_arg(250, arg, sizeof(arg)) == 0 &&
			       !strcmp(arg, "shift=0,sleep=off,quantum=250"), "icount arg: Q 250 (%s)",
		       arg);
		tap_ok(domain_icount_arg(DOMAIN_QUANTUM_MAX + 1, arg, sizeof(arg)) == -EINVAL,
		       "icount arg: Q above the patch's limit refused");
		tap_ok(domain_icount_arg(1000, arg, 10) == -ENOSPC, "icount arg: short buffer");
	}
	topology_free(&t);
}

/* APIC IDs as QEMU packs them, and when the IOMMU becomes necessary. */
static void run_apic_ids(void)
{
	static const struct {
		unsigned sockets, dies, cores, threads;
		unsigned long max_apic_id;
		int iommu;
	} cases[] = {
		{4, 1, 2, 1, 7, 0},      /* 4s-8c */
		{4, 1, 16, 1, 63, 0},    /* 4s-64c */
		{4, 1, 32, 1, 127, 0},   /* 4s-128c */
		{4, 1, 32, 2, 255, 1},   /* 4s-256c: ID 255 needs x2APIC */
		{4, 1, 64, 2, 511, 1},   /* 4s-512c */
		{4, 1, 48, 1, 239, 0},   /* 192 vCPUs with gaps in the IDs */
		{2, 1, 96, 1, 223, 0},
		{3, 1, 96, 1, 351, 1},   /* 288 vCPUs */
		{4, 1, 63, 1, 254, 0},   /* 252 vCPUs: 3<<6 | 62 */
		{1, 1, 255, 1, 254, 0},  /* 255 vCPUs on one socket */
		{2, 2, 3, 3, 58, 0},     /* dies: ((1<<1|1)<<2|2)<<2|2 */
		{1, 1, 1, 1, 0, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct topology t = {
			.sockets = cases[i].sockets, .dies = cases[i].dies, .cores = cases[i].cores,
			.threads = cases[i].threads,
			.vcpus = cases[i].sockets * cases[i].dies * cases[i].cores * cases[i].threads,
		};
		struct domain_spec spec = {.topo = &t};
		unsigned long id = domain_max_apic_id(&t);

		tap_ok(id == cases[i].max_apic_id && domain_wants_iommu(&spec) == cases[i].iommu,
		       "APIC IDs %us x %ud x %uc x %ut: max %lu (want %lu), iommu %d", t.sockets,
		       t.dies, t.cores, t.threads, id, cases[i].max_apic_id, cases[i].iommu);
	}
}

int main(void)
{
	const char *u = getenv("UPDATE_GOLDEN");
	int update = u && strcmp(u, "1") == 0;

	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; i < sizeof(golden_cases) / sizeof(golden_cases[0]); i++)
		run_golden(&golden_cases[i], update);
	run_escaping();
	run_refusals();
	run_apic_ids();
	return tap_done();
}
