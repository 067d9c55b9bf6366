/* lockinsn: a QEMU TCG plugin that counts a guest's instructions inside and outside its
 * spinlocks, per call site, in windows the guest marks itself.  The projection's inputs
 * (lab/analysis/projection.h): the instructions per operation inside a lock (S) and outside it
 * (Z), measured on the plain kernel, not the lock-counting twin, whose lockdep lengthens both.
 *
 * What it sees:
 *  - a window: the guest executes CPUID with EAX = LOCKINSN_LEAF_START or LOCKINSN_LEAF_STOP
 *    and ECX = the window's id (runners/rt_team.c, around each task's measured part).  A
 *    window counts every instruction its vCPU executes between the two, the kernel's included;
 *  - an acquisition: a call to one of the map's spinlock entry points (_raw_spin_lock,
 *    _raw_spin_lock_irq, _irqsave, _bh) inside a window: RDI is the lock, [RSP] the call site;
 *  - its release: a one-byte store of 0 to the lock's address (`movb $0, mem`, what
 *    spin_unlock() and queued_spin_unlock() compile to on x86, inlined or in
 *    _raw_spin_unlock_irqrestore).  Inside = the instructions from the entry point's first to
 *    that store, both counted.  A trylock's sections are not seen (no entry point is called).
 *  - instructions are counted per translation block as it starts: a block cut short by an
 *    exception (a page fault in user space) counts whole, a few instructions at most per fault.
 *
 * Arguments: map=FILE (`nm -n` of the guest's code: the entry points, and the call sites'
 * names), out=FILE (JSON, schema numalab.lockinsn/1, written when QEMU exits).  For more
 * than one vCPU: MTTCG, or one thread for all vCPUs on the lab's QEMU only: stock QEMU 10.0
 * passes callbacks the index of the vCPU that translated a block (accel/tcg/plugin-gen.c,
 * gen_cpu_index), which images/qemu/0003-icount-charge.patch fixes.  Under MTTCG vCPUs run in
 * parallel: the shared tables take a mutex.
 *
 * This file includes QEMU's qemu-plugin.h (lab/plugin/qemu-plugin.h, from QEMU 10.0.2,
 * GPL-2.0-or-later) and is loaded into QEMU: it is GPL-2.0-or-later too. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugutil.h"
#include "qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define LOCKINSN_LEAF_START 0x4c414231u /* "1BAL": a window starts */
#define LOCKINSN_LEAF_STOP 0x4c414230u  /* "0BAL": it stops */
#define MAX_VCPUS 1024
#define MAX_OPEN 16    /* locks one vCPU holds at once */
#define MAX_WINDOWS 64 /* distinct window ids */
#define MAX_SITES 4096

static const char *const lock_entries[] = {"_raw_spin_lock", "_raw_spin_lock_irq",
					   "_raw_spin_lock_irqsave", "_raw_spin_lock_bh"};
#define NR_ENTRIES (sizeof(lock_entries) / sizeof(lock_entries[0]))

struct held {
	uint64_t lock, site, start;
};

struct vcpu {
	uint64_t total, tb_base;
	uint64_t wstart;
	uint32_t window;    /* the id of the window it is in */
	int in_window, win; /* win: index in windows[] */
	struct held open[MAX_OPEN];
	int nr_open;
	struct qemu_plugin_register *rdi, *rsp, *rax, *rcx;
};

struct site {
	uint64_t addr, acquisitions, inside, max_inside, min_inside;
	GHashTable *locks; /* lock address -> bitmask of vCPUs (the first 64) that took it */
};

struct window {
	uint32_t id;
	uint64_t insns, tasks, releases_unmatched, open_at_stop;
	GHashTable *sites; /* call site -> struct site */
	uint64_t nr_sites;
};

static struct vcpu vcpus[MAX_VCPUS];
static struct window windows[MAX_WINDOWS];
static int nr_windows;
static uint64_t entry_addr[NR_ENTRIES];
static GMutex lock;
static char *out_path;
static uint64_t *sym_addr; /* the map, sorted by address */
static char **sym_name;
static size_t nr_syms;
static uint64_t dropped; /* events past a table's bound */

static struct window *window_get(uint32_t id)
{
	for (int i = 0; i < nr_windows; i++)
		if (windows[i].id == id)
			return &windows[i];
	if (nr_windows == MAX_WINDOWS)
		return NULL;
	windows[nr_windows] = (struct window){.id = id,
					      .sites = g_hash_table_new(g_int64_hash,
									g_int64_equal)};
	return &windows[nr_windows++];
}

/* Under the mutex. */
static struct site *site_get(struct window *w, uint64_t addr)
{
	struct site *s = g_hash_table_lookup(w->sites, &addr);

	if (s || w->nr_sites >= MAX_SITES)
		return s;
	s = g_new0(struct site, 1);
	s->addr = addr;
	s->min_inside = UINT64_MAX;
	s->locks = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
	g_hash_table_insert(w->sites, &s->addr, s);
	w->nr_sites++;
	return s;
}

static void on_tb(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];

	v->tb_base = v->total;
	v->total += (uint64_t)(uintptr_t)udata;
}

/* CPUID: a window marker when EAX says so.  Before the instruction: it counts as outside. */
static void on_cpuid(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	uint64_t at = v->tb_base + (uintptr_t)udata;
	uint32_t leaf = (uint32_t)plugutil_reg_read(v->rax), id = (uint32_t)plugutil_reg_read(v->rcx);
	struct window *w;

	if (leaf != LOCKINSN_LEAF_START && leaf != LOCKINSN_LEAF_STOP)
		return;
	g_mutex_lock(&lock);
	if (leaf == LOCKINSN_LEAF_START) {
		w = window_get(id);
		v->in_window = w != NULL;
		v->win = w ? (int)(w - windows) : -1;
		v->window = id;
		v->wstart = at;
		v->nr_open = 0;
		if (!w)
			dropped++;
	} else if (v->in_window && v->window == id) {
		w = &windows[v->win];
		w->insns += at - v->wstart;
		w->tasks++;
		w->open_at_stop += (uint64_t)v->nr_open;
		v->in_window = 0;
		v->nr_open = 0;
	}
	g_mutex_unlock(&lock);
}

static void on_lock_entry(unsigned int cpu, void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	g_autoptr(GByteArray) buf = NULL;
	uint64_t ret = 0;

	if (!v->in_window)
		return;
	if (v->nr_open == MAX_OPEN) {
		__atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	buf = g_byte_array_new();
	if (qemu_plugin_read_memory_vaddr(plugutil_reg_read(v->rsp), buf, 8) && buf->len >= 8)
		memcpy(&ret, buf->data, 8);
	v->open[v->nr_open++] = (struct held){.lock = plugutil_reg_read(v->rdi), .site = ret,
					      .start = v->tb_base + (uintptr_t)udata};
}

/* A byte store of 0: the release of the innermost open lock at that address, if any. */
static void on_zero_store(unsigned int cpu, qemu_plugin_meminfo_t info, uint64_t vaddr,
			  void *udata)
{
	struct vcpu *v = &vcpus[cpu];
	uint64_t inside, mask;
	struct site *s;
	uint64_t *m;
	int i;

	(void)info;
	if (!v->in_window)
		return;
	for (i = v->nr_open - 1; i >= 0 && v->open[i].lock != vaddr; i--)
		;
	if (i < 0)
		return;
	inside = v->tb_base + (uintptr_t)udata + 1 - v->open[i].start;
	g_mutex_lock(&lock);
	s = site_get(&windows[v->win], v->open[i].site);
	if (s) {
		s->acquisitions++;
		s->inside += inside;
		if (inside > s->max_inside)
			s->max_inside = inside;
		if (inside < s->min_inside)
			s->min_inside = inside;
		m = g_hash_table_lookup(s->locks, &v->open[i].lock);
		mask = cpu < 64 ? 1ull << cpu : 0;
		if (m) {
			*m |= mask;
		} else if (g_hash_table_size(s->locks) < MAX_SITES) {
			uint64_t *k = g_new(uint64_t, 1);

			*k = v->open[i].lock;
			m = g_new(uint64_t, 1);
			*m = mask;
			g_hash_table_insert(s->locks, k, m);
		}
	} else {
		dropped++;
	}
	g_mutex_unlock(&lock);
	memmove(&v->open[i], &v->open[i + 1], sizeof(v->open[0]) * (size_t)(v->nr_open - i - 1));
	v->nr_open--;
}

static int is_entry(uint64_t pc)
{
	for (size_t i = 0; i < NR_ENTRIES; i++)
		if (entry_addr[i] && entry_addr[i] == pc)
			return 1;
	return 0;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t b[16];
		size_t len = qemu_plugin_insn_data(insn, b, sizeof(b));

		if (len == 2 && b[0] == 0x0f && b[1] == 0xa2)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_cpuid, QEMU_PLUGIN_CB_R_REGS,
							       (void *)(uintptr_t)i);
		else if (is_entry(qemu_plugin_insn_vaddr(insn)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_lock_entry,
							       QEMU_PLUGIN_CB_R_REGS,
							       (void *)(uintptr_t)i);
		else if (plugutil_is_zero_byte_store(b, len))
			qemu_plugin_register_vcpu_mem_cb(insn, on_zero_store, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_W, (void *)(uintptr_t)i);
	}
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int cpu)
{
	static const char *const names[] = {"rdi", "rsp", "rax", "rcx"};
	struct vcpu *v;

	(void)id;
	if (cpu >= MAX_VCPUS)
		return;
	v = &vcpus[cpu];
	plugutil_regs_find(names, (struct qemu_plugin_register **[]){&v->rdi, &v->rsp, &v->rax, &v->rcx},
			   4);
}

/* ---- the map and the output ----------------------------------------------------------- */

static int map_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[256], type;
	uint64_t addr;
	size_t cap = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 ||
		    (type != 'T' && type != 't'))
			continue;
		if (nr_syms == cap) {
			cap = cap ? 2 * cap : 4096;
			sym_addr = g_renew(uint64_t, sym_addr, cap);
			sym_name = g_renew(char *, sym_name, cap);
		}
		sym_addr[nr_syms] = addr;
		sym_name[nr_syms++] = g_strdup(name);
		for (size_t i = 0; i < NR_ENTRIES; i++)
			if (!strcmp(name, lock_entries[i]))
				entry_addr[i] = addr;
	}
	fclose(f);
	return 0;
}

/* "name+0xoff" of the text symbol at or below addr (the map is `nm -n`: sorted). */
static void symbolize(uint64_t addr, char *buf, size_t len)
{
	size_t lo = plugutil_below(sym_addr, nr_syms, addr);

	if (lo == 0)
		snprintf(buf, len, "0x%" PRIx64, addr);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, sym_name[lo - 1], addr - sym_addr[lo - 1]);
}

static gint site_cmp(gconstpointer a, gconstpointer b)
{
	const struct site *x = *(struct site *const *)a, *y = *(struct site *const *)b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void site_write(FILE *f, const struct site *s, int first)
{
	GHashTableIter it;
	gpointer k, m;
	unsigned max_cpus = 0;
	char name[320];

	g_hash_table_iter_init(&it, s->locks);
	while (g_hash_table_iter_next(&it, &k, &m)) {
		unsigned c = (unsigned)__builtin_popcountll(*(uint64_t *)m);

		if (c > max_cpus)
			max_cpus = c;
	}
	symbolize(s->addr, name, sizeof(name));
	fprintf(f, "%s\n      {\"acquisitions\": %" PRIu64 ", \"inside_insns\": %" PRIu64
		", \"inside_max\": %" PRIu64 ", \"inside_min\": %" PRIu64 ", \"locks\": %u"
		", \"max_cpus_per_lock\": %u, \"site\": \"%s\"}", first ? "" : ",", s->acquisitions,
		s->inside, s->max_inside, s->acquisitions ? s->min_inside : 0,
		g_hash_table_size(s->locks), max_cpus, name);
}

static void window_write(FILE *f, const struct window *w, int first)
{
	GPtrArray *sites = g_ptr_array_new();
	GHashTableIter it;
	gpointer k, s;

	g_hash_table_iter_init(&it, w->sites);
	while (g_hash_table_iter_next(&it, &k, &s))
		g_ptr_array_add(sites, s);
	g_ptr_array_sort(sites, site_cmp);
	fprintf(f, "%s\n    {\"id\": %u, \"insns\": %" PRIu64 ", \"open_at_stop\": %" PRIu64
		", \"sites\": [", first ? "" : ",", w->id, w->insns, w->open_at_stop);
	for (guint i = 0; i < sites->len; i++)
		site_write(f, g_ptr_array_index(sites, i), i == 0);
	fprintf(f, "], \"tasks\": %" PRIu64 "}", w->tasks);
	g_ptr_array_free(sites, TRUE);
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out_path, "w");

	(void)id;
	(void)p;
	if (!f)
		return;
	g_mutex_lock(&lock);
	fprintf(f, "{\"dropped\": %" PRIu64 ", \"entries_found\": %d, \"schema\": "
		"\"numalab.lockinsn/1\", \"windows\": [", dropped,
		(int)(entry_addr[0] != 0) + (entry_addr[1] != 0) + (entry_addr[2] != 0) +
			(entry_addr[3] != 0));
	for (int i = 0; i < nr_windows; i++)
		window_write(f, &windows[i], i == 0);
	fprintf(f, "]}\n");
	g_mutex_unlock(&lock);
	fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *map = NULL;

	if (plugutil_map_out_args("lockinsn", info, argc, argv, &map, &out_path) < 0)
		return -1;
	if (map_load(map) < 0) {
		fprintf(stderr, "lockinsn: cannot read %s\n", map);
		return -1;
	}
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
