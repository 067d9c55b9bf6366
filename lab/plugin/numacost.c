/* numacost: a QEMU TCG plugin that makes cache lines cost what they cost on a NUMA machine.
 * It feeds the guest's accesses to shared lines to the NUMA cost model (lab/core/numacost.h,
 * compiled in as it is) and charges each vCPU what the model says with
 * qemu_plugin_vcpu_stall() (images/qemu/0003-icount-charge.patch): under the lab's contention
 * model (-icount quantum=Q) a vCPU that waits for a line from another socket runs fewer
 * instructions in its rounds, so a lock handed across sockets is held longer, as on the
 * machine the preset describes.
 *
 * What it sees, chosen when a block is translated (instruction bytes and the map):
 *  - every locked instruction and every `xchg` with memory (one store callback each: under
 *    round-robin TCG a locked read-modify-write is a load and a store, and cmpxchg always
 *    stores): a read-modify-write of the line;
 *  - every `movb $0, mem` (spin_unlock()'s release) when its line is already tracked, i.e.
 *    a lock's line: a store;
 *  - every load and store of the spinlock functions of the map (the entry points and the
 *    queued spinlock's slow path: the waiters' reads of the lock and of their MCS nodes);
 *  - tier b (the default) also: every other load and store of the map's text (the kernel),
 *    acted on only while the vCPU holds a spinlock taken through an entry point: the data a
 *    section touches travels with the lock.  String instructions never (under icount each
 *    iteration of `rep stos` is its own block execution).
 * Lines touched only outside sections are not followed: a write outside a section and a read
 * inside it cost nothing (NUMA-MODEL.md, open points).
 *
 * Windows: CPUID with EAX = "1BAL" / "0BAL" and ECX = an id, as lab/plugin/lockinsn.c; each
 * window sums its vCPUs' charges, transfers and clock.  cpuid_stall=on (tests): CPUID with
 * EAX = "2BAL" charges ECX instruction-times.
 *
 * Arguments: cfg=FILE (numalab.numacost-cfg/1, written by the lab: core/numapreset.h),
 * out=FILE (JSON numalab.numacost/1 at exit), map=FILE (`nm -n` text symbols; without it only
 * locked instructions and releases are seen), tier=a|b, cpuid_stall=on|off.  Only under
 * -icount with one thread for all vCPUs: the model's state is not shared between threads and
 * the clock needs icount (a charge that fails is counted in stall_failed, which the lab reads
 * as a failed run).  A QEMU without the charge does not load the plugin at all (undefined
 * symbol qemu_plugin_vcpu_stall).
 *
 * This file includes QEMU's qemu-plugin.h (GPL-2.0-or-later) and is loaded into QEMU: it is
 * GPL-2.0-or-later too. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numacost.h"
#include "plugutil.h"
#include "qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define LEAF_START 0x4c414231u /* "1BAL" */
#define LEAF_STOP 0x4c414230u  /* "0BAL" */
#define LEAF_STALL 0x4c414232u /* "2BAL" */
#define MAX_STALL 1000000u     /* per CPUID: a test's charge, bounded */
#define MAX_HELD 16
#define MAX_WINDOWS 64
#define MAX_FUNCS 16

/* What a memory callback is for (its udata). */
enum kind {
	K_RMW,  /* locked or xchg: always */
	K_ZERO, /* movb $0: a release if the line is tracked */
	K_LOCK, /* inside a spinlock function: always */
	K_DATA, /* tier b: while the vCPU holds a lock */
};

struct vcpu {
	uint64_t held[MAX_HELD]; /* the locks' virtual addresses, innermost last */
	int nr_held;
	int win; /* index in windows[], -1 outside */
	struct numacost_stats at_start;
	int64_t clock_start;
	struct qemu_plugin_register *rdi, *rax, *rcx;
};

struct window {
	uint32_t id;
	uint64_t tasks, charged, forwarded, local, remote, clock;
};

static struct numacost *model;
static struct vcpu *vcpus;
static unsigned nr_vcpus;
static struct window windows[MAX_WINDOWS];
static int nr_windows;
static uint64_t stall_failed, directory_full, charged_total;
static char *out_path;
static int tier_b = 1, cpuid_stall;

/* The map: spinlock entry points, the spinlock functions' ranges, the text's range. */
static const char *const entry_names[] = {"_raw_spin_lock", "_raw_spin_lock_irq",
					  "_raw_spin_lock_irqsave", "_raw_spin_lock_bh"};
static const char *const slow_names[] = {"native_queued_spin_lock_slowpath",
					 "queued_spin_lock_slowpath",
					 "__pv_queued_spin_lock_slowpath"};
#define NR_ENTRIES (sizeof(entry_names) / sizeof(entry_names[0]))
#define NR_SLOW (sizeof(slow_names) / sizeof(slow_names[0]))
static uint64_t entry_addr[NR_ENTRIES];
static uint64_t func_lo[MAX_FUNCS], func_hi[MAX_FUNCS];
static unsigned nr_funcs;
static uint64_t text_lo = UINT64_MAX, text_hi;

/* ---- the configuration ------------------------------------------------------------------ */

/* Reads "KEY" then count numbers from line: unsigned 64-bit ones into u, or (u NULL) doubles
 * into d; 0 or -EINVAL. */
static int read_nums(const char *line, const char *key, uint64_t *u, double *d, unsigned count)
{
	size_t n = strlen(key);
	const char *p = line + n;
	char *end;

	if (strncmp(line, key, n) || *p != ' ')
		return -EINVAL;
	for (unsigned i = 0; i < count; i++) {
		if (*p != ' ' || (u && p[1] == '-'))
			return -EINVAL;
		errno = 0;
		if (u)
			u[i] = strtoull(p + 1, &end, 10);
		else
			d[i] = strtod(p + 1, &end);
		if (errno || end == p + 1)
			return -EINVAL;
		p = end;
	}
	return *p == '\n' || *p == '\0' ? 0 : -EINVAL;
}

static int read_u64s(const char *line, const char *key, uint64_t *v, unsigned count)
{
	return read_nums(line, key, v, NULL, count);
}

static int read_doubles(const char *line, const char *key, double *v, unsigned count)
{
	return read_nums(line, key, NULL, v, count);
}

struct cfg {
	uint64_t vcpus, nodes, below_4g, above_4g, max_lines;
	unsigned *vcpu_node;
	uint64_t *node_mem;
	double ipns, *c2c, *mem;
	char *line;
	size_t cap;
};

static int cfg_line(FILE *f, struct cfg *c)
{
	return getline(&c->line, &c->cap, f) > 0 ? 0 : -EINVAL;
}

/* The sizes first, then the arrays they size.  Which line was wrong goes to *bad. */
static int cfg_read(FILE *f, struct cfg *c, const char **bad)
{
	uint64_t *vn = NULL;
	int r = -EINVAL;

#define STEP(name, expr)            \
	do {                        \
		*bad = name;        \
		if (cfg_line(f, c) < 0 || (expr) < 0) \
			goto out;   \
	} while (0)
	STEP("schema", strcmp(c->line, "numalab.numacost-cfg/1\n") ? -1 : 0);
	STEP("vcpus", read_u64s(c->line, "vcpus", &c->vcpus, 1));
	STEP("nodes", read_u64s(c->line, "nodes", &c->nodes, 1));
	*bad = "vcpus or nodes out of range";
	if (!c->vcpus || c->vcpus > NUMACOST_MAX_VCPUS || !c->nodes ||
	    c->nodes > NUMACOST_MAX_NODES)
		goto out;
	vn = calloc(c->vcpus, sizeof(*vn));
	c->vcpu_node = calloc(c->vcpus, sizeof(*c->vcpu_node));
	c->node_mem = calloc(c->nodes, sizeof(*c->node_mem));
	c->c2c = calloc(c->nodes * c->nodes, sizeof(*c->c2c));
	c->mem = calloc(c->nodes * c->nodes, sizeof(*c->mem));
	if (!vn || !c->vcpu_node || !c->node_mem || !c->c2c || !c->mem) {
		r = -ENOMEM;
		goto out;
	}
	STEP("vcpu_node", read_u64s(c->line, "vcpu_node", vn, (unsigned)c->vcpus));
	STEP("node_mem", read_u64s(c->line, "node_mem", c->node_mem, (unsigned)c->nodes));
	STEP("below_4g", read_u64s(c->line, "below_4g", &c->below_4g, 1));
	STEP("above_4g_start", read_u64s(c->line, "above_4g_start", &c->above_4g, 1));
	STEP("ipns", read_doubles(c->line, "ipns", &c->ipns, 1));
	STEP("c2c", read_doubles(c->line, "c2c", c->c2c, (unsigned)(c->nodes * c->nodes)));
	STEP("mem", read_doubles(c->line, "mem", c->mem, (unsigned)(c->nodes * c->nodes)));
	STEP("max_lines", read_u64s(c->line, "max_lines", &c->max_lines, 1));
#undef STEP
	*bad = "vcpu_node: a node out of range";
	for (uint64_t i = 0; i < c->vcpus; i++) {
		if (vn[i] >= c->nodes)
			goto out;
		c->vcpu_node[i] = (unsigned)vn[i];
	}
	*bad = "max_lines out of range";
	if (c->max_lines > NUMACOST_MAX_LINES)
		goto out;
	r = 0;
out:
	free(vn);
	return r;
}

static void cfg_free(struct cfg *c)
{
	free(c->vcpu_node);
	free(c->node_mem);
	free(c->c2c);
	free(c->mem);
	free(c->line);
}

static int model_load(const char *path, unsigned smp)
{
	struct cfg c = {0};
	const char *bad = "?";
	FILE *f = fopen(path, "r");
	int r;

	if (!f) {
		fprintf(stderr, "numacost: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	r = cfg_read(f, &c, &bad);
	fclose(f);
	if (r == 0 && c.vcpus != smp) {
		bad = "vcpus is not the guest's number of vCPUs";
		r = -EINVAL;
	}
	if (r == 0) {
		struct numacost_config mc = {
			.nr_vcpus = (unsigned)c.vcpus, .nr_nodes = (unsigned)c.nodes,
			.vcpu_node = c.vcpu_node, .node_mem = c.node_mem, .below_4g = c.below_4g,
			.above_4g_start = c.above_4g, .c2c_ns = c.c2c, .mem_ns = c.mem,
			.ipns = c.ipns, .max_lines = (unsigned)c.max_lines,
		};

		bad = "the model refused the configuration (a latency or ipns out of range)";
		r = numacost_new(&mc, &model);
	}
	if (r < 0)
		fprintf(stderr, "numacost: %s: %s\n", path, bad);
	nr_vcpus = (unsigned)c.vcpus;
	cfg_free(&c);
	return r < 0 ? -1 : 0;
}

/* ---- the map ---------------------------------------------------------------------------- */

static int map_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[256], type;
	uint64_t addr, prev_addr = 0;
	int prev_slow = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int slow = 0;

		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 ||
		    (type != 'T' && type != 't'))
			continue;
		/* nm -n: a function ends where the next text symbol starts. */
		if (prev_slow && nr_funcs < MAX_FUNCS && addr > prev_addr) {
			func_lo[nr_funcs] = prev_addr;
			func_hi[nr_funcs++] = addr;
		}
		for (size_t i = 0; i < NR_ENTRIES; i++)
			if (!strcmp(name, entry_names[i])) {
				entry_addr[i] = addr;
				slow = 1;
			}
		for (size_t i = 0; i < NR_SLOW; i++)
			slow |= !strcmp(name, slow_names[i]);
		if (addr < text_lo)
			text_lo = addr;
		if (addr > text_hi)
			text_hi = addr;
		prev_addr = addr;
		prev_slow = slow;
	}
	fclose(f);
	return 0;
}

static int in_lock_func(uint64_t pc)
{
	for (unsigned i = 0; i < nr_funcs; i++)
		if (pc >= func_lo[i] && pc < func_hi[i])
			return 1;
	return 0;
}

static int is_entry(uint64_t pc)
{
	for (size_t i = 0; i < NR_ENTRIES; i++)
		if (entry_addr[i] == pc)
			return 1;
	return 0;
}

/* ---- the callbacks ---------------------------------------------------------------------- */

static void charge(unsigned cpu, enum numacost_op op, uint64_t pa)
{
	int64_t clock = qemu_plugin_vcpu_clock(), c;

	if (clock < 0) {
		stall_failed++;
		return;
	}
	c = numacost_access(model, cpu, op, pa, (uint64_t)clock);
	if (c == -ENOSPC)
		directory_full++;
	if (c <= 0)
		return;
	charged_total += (uint64_t)c;
	if (!qemu_plugin_vcpu_stall((uint64_t)c))
		stall_failed++;
}

/* A release: the innermost held lock at vaddr is let go. */
static void release(struct vcpu *v, uint64_t vaddr)
{
	for (int i = v->nr_held - 1; i >= 0; i--)
		if (v->held[i] == vaddr) {
			memmove(&v->held[i], &v->held[i + 1],
				sizeof(v->held[0]) * (size_t)(v->nr_held - i - 1));
			v->nr_held--;
			return;
		}
}

static void on_mem(unsigned int cpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	enum kind k = (enum kind)(uintptr_t)udata;
	struct qemu_plugin_hwaddr *hw;
	struct vcpu *v;
	uint64_t pa;

	if (cpu >= nr_vcpus)
		return;
	v = &vcpus[cpu];
	if (k == K_DATA && !v->nr_held)
		return;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;
	pa = qemu_plugin_hwaddr_phys_addr(hw);
	if (k == K_ZERO) {
		release(v, vaddr);
		if (!numacost_tracked(model, pa))
			return;
	}
	charge(cpu, k == K_RMW ? NUMACOST_RMW
			       : qemu_plugin_mem_is_store(info) ? NUMACOST_STORE : NUMACOST_LOAD,
	       pa);
}

/* A call to a spinlock entry point: RDI is the lock. */
static void on_entry(unsigned int cpu, void *udata)
{
	struct vcpu *v;

	(void)udata;
	if (cpu >= nr_vcpus)
		return;
	v = &vcpus[cpu];
	if (v->nr_held == MAX_HELD) /* a leak (a trylock path we missed): forget the oldest */
		release(v, v->held[0]);
	v->held[v->nr_held++] = plugutil_reg_read(v->rdi);
}

static struct window *window_get(uint32_t id)
{
	for (int i = 0; i < nr_windows; i++)
		if (windows[i].id == id)
			return &windows[i];
	if (nr_windows == MAX_WINDOWS)
		return NULL;
	windows[nr_windows] = (struct window){.id = id};
	return &windows[nr_windows++];
}

static void window_stop(struct vcpu *v, unsigned cpu)
{
	struct window *w = &windows[v->win];
	struct numacost_stats s;
	int64_t clock = qemu_plugin_vcpu_clock();

	numacost_stats(model, cpu, &s);
	w->tasks++;
	w->charged += s.charged - v->at_start.charged;
	w->forwarded += s.forwarded - v->at_start.forwarded;
	w->local += s.transfers_local - v->at_start.transfers_local;
	w->remote += s.transfers_remote - v->at_start.transfers_remote;
	if (clock >= v->clock_start)
		w->clock += (uint64_t)(clock - v->clock_start);
	v->win = -1;
}

static void on_cpuid(unsigned int cpu, void *udata)
{
	struct vcpu *v;
	uint32_t leaf, id;
	struct window *w;

	(void)udata;
	if (cpu >= nr_vcpus)
		return;
	v = &vcpus[cpu];
	leaf = (uint32_t)plugutil_reg_read(v->rax);
	id = (uint32_t)plugutil_reg_read(v->rcx);
	if (leaf == LEAF_STALL && cpuid_stall) {
		if (id && !qemu_plugin_vcpu_stall(id < MAX_STALL ? id : MAX_STALL))
			stall_failed++;
		else
			charged_total += id < MAX_STALL ? id : MAX_STALL;
	} else if (leaf == LEAF_START && (w = window_get(id))) {
		v->win = (int)(w - windows);
		numacost_stats(model, cpu, &v->at_start);
		v->clock_start = qemu_plugin_vcpu_clock();
	} else if (leaf == LEAF_STOP && v->win >= 0 && windows[v->win].id == id) {
		window_stop(v, cpu);
	}
}

/* ---- translation: what each instruction gets ------------------------------------------- */

struct decoded {
	int lock, rep, string, xchg_mem, zero_store, cpuid;
};

static void decode(const uint8_t *b, size_t n, struct decoded *d)
{
	size_t i = 0;

	memset(d, 0, sizeof(*d));
	for (; i < n; i++) {
		if (b[i] == 0xf0)
			d->lock = 1;
		else if (b[i] == 0xf2 || b[i] == 0xf3)
			d->rep = 1;
		else if (!(b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x36 ||
			   b[i] == 0x64 || b[i] == 0x65 || b[i] == 0x66 || b[i] == 0x67))
			break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40) /* REX */
		i++;
	if (i >= n)
		return;
	d->string = (b[i] >= 0xa4 && b[i] <= 0xa7) || (b[i] >= 0xaa && b[i] <= 0xaf);
	d->xchg_mem = (b[i] == 0x86 || b[i] == 0x87) && i + 1 < n && (b[i + 1] >> 6) != 3;
	d->cpuid = b[i] == 0x0f && i + 1 < n && b[i + 1] == 0xa2;
	d->zero_store = plugutil_is_zero_byte_store(b, n);
}

static void mem_cb(struct qemu_plugin_insn *insn, enum qemu_plugin_mem_rw rw, enum kind k)
{
	qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, rw,
					 (void *)(uintptr_t)k);
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		uint8_t b[16];
		size_t len = qemu_plugin_insn_data(insn, b, sizeof(b));
		struct decoded d;

		decode(b, len, &d);
		if (d.cpuid)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_cpuid, QEMU_PLUGIN_CB_R_REGS,
							       NULL);
		if (is_entry(pc))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_entry, QEMU_PLUGIN_CB_R_REGS,
							       NULL);
		if (d.string)
			continue;
		if (d.lock || d.xchg_mem)
			mem_cb(insn, QEMU_PLUGIN_MEM_W, K_RMW);
		else if (d.zero_store)
			mem_cb(insn, QEMU_PLUGIN_MEM_W, K_ZERO);
		else if (in_lock_func(pc))
			mem_cb(insn, QEMU_PLUGIN_MEM_RW, K_LOCK);
		else if (tier_b && pc >= text_lo && pc <= text_hi)
			mem_cb(insn, QEMU_PLUGIN_MEM_RW, K_DATA);
	}
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int cpu)
{
	static const char *const names[] = {"rdi", "rax", "rcx"};
	struct vcpu *v;

	(void)id;
	if (cpu >= nr_vcpus)
		return;
	v = &vcpus[cpu];
	v->win = -1;
	plugutil_regs_find(names, (struct qemu_plugin_register **[]){&v->rdi, &v->rax, &v->rcx}, 3);
}

/* ---- the output ------------------------------------------------------------------------- */

static void vcpu_write(FILE *f, unsigned cpu)
{
	struct numacost_stats s = {0};

	numacost_stats(model, cpu, &s);
	fprintf(f, "%s\n  {\"accesses\": %" PRIu64 ", \"charged\": %" PRIu64
		", \"forwarded\": %" PRIu64 ", \"invalidations\": %" PRIu64 ", \"node\": %d"
		", \"transfers_local\": %" PRIu64 ", \"transfers_remote\": %" PRIu64
		", \"vcpu\": %u}", cpu ? "," : "", s.accesses, s.charged, s.forwarded,
		s.invalidations, numacost_vcpu_node(model, cpu), s.transfers_local,
		s.transfers_remote, cpu);
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out_path, "w");

	(void)id;
	(void)p;
	if (!f)
		return;
	fprintf(f, "{\"charged\": %" PRIu64 ", \"directory_full\": %" PRIu64 ", \"lines\": %u"
		", \"schema\": \"numalab.numacost/1\", \"stall_failed\": %" PRIu64
		", \"vcpus\": [", charged_total, directory_full, numacost_lines(model), stall_failed);
	for (unsigned i = 0; i < nr_vcpus; i++)
		vcpu_write(f, i);
	fprintf(f, "],\n \"windows\": [");
	for (int i = 0; i < nr_windows; i++) {
		const struct window *w = &windows[i];

		fprintf(f, "%s\n  {\"charged\": %" PRIu64 ", \"clock\": %" PRIu64
			", \"forwarded\": %" PRIu64 ", \"id\": %u, \"tasks\": %" PRIu64
			", \"transfers_local\": %" PRIu64 ", \"transfers_remote\": %" PRIu64 "}",
			i ? "," : "", w->charged, w->clock, w->forwarded, w->id, w->tasks, w->local,
			w->remote);
	}
	fprintf(f, "]}\n");
	fclose(f);
}

static int arg_onoff(const char *v, int *out)
{
	if (!strcmp(v, "on"))
		*out = 1;
	else if (!strcmp(v, "off"))
		*out = 0;
	else
		return -1;
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *cfg = NULL, *map = NULL;

	if (strcmp(info->target_name, "x86_64") || !info->system_emulation) {
		fprintf(stderr, "numacost: x86_64 system emulation only\n");
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "cfg=", 4))
			cfg = a + 4;
		else if (!strncmp(a, "out=", 4))
			out_path = (char *)a + 4;
		else if (!strncmp(a, "map=", 4))
			map = a + 4;
		else if (!strcmp(a, "tier=a") || !strcmp(a, "tier=b"))
			tier_b = a[5] == 'b';
		else if (strncmp(a, "cpuid_stall=", 12) || arg_onoff(a + 12, &cpuid_stall) < 0) {
			fprintf(stderr, "numacost: unknown argument %s (cfg=FILE, out=FILE, "
				"map=FILE, tier=a|b, cpuid_stall=on|off)\n", a);
			return -1;
		}
	}
	if (!cfg || !out_path) {
		fprintf(stderr, "numacost: cfg=FILE and out=FILE are needed\n");
		return -1;
	}
	if (model_load(cfg, (unsigned)info->system.smp_vcpus) < 0)
		return -1;
	if (map && map_load(map) < 0) {
		fprintf(stderr, "numacost: cannot read %s\n", map);
		return -1;
	}
	vcpus = calloc(nr_vcpus, sizeof(*vcpus));
	if (!vcpus)
		return -1;
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
