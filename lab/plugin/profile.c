/* profile: a QEMU TCG plugin that counts, exactly, the instructions a guest executes per text
 * symbol, in windows the guest marks itself: where a task's instructions go (the kernel's
 * functions, and its own code as one "[user]").
 *
 * What it sees:
 *  - a window: the guest executes CPUID with EAX = PROFILE_LEAF_START or PROFILE_LEAF_STOP and
 *    ECX = the window's id, as lab/plugin/lockinsn.c sees them (runners/rt_team.c, around each
 *    task's measured part); the CPUID itself counts as outside.  A window counts every
 *    instruction its vCPU executes between the two, the kernel's included;
 *  - the symbol of an instruction: the map's text symbol (types T and t) at or below its pc.
 *    A pc outside the map's text (below its first text symbol, or at or past the first symbol
 *    of another type after its last) is "[user]" below 0xffff800000000000 and "[unknown]" above
 *    (modules, BPF programs, the vsyscall page);
 *  - self: the instructions executed whose pc lies in the symbol: exact;
 *  - incl: the instructions executed while the symbol was the current one or a caller on the
 *    vCPU's shadow call stack, each symbol once per instruction (recursion counts once);
 *  - instructions are counted per translation block as it starts: a block cut short by an
 *    exception (a page fault in user space) counts whole, a few instructions at most per fault;
 *  - a block's symbols are those of its pc when it was translated: QEMU (CF_PCREL on x86_64)
 *    runs one block for every virtual address of the same physical code, so code run at two
 *    addresses counts at the first.  The kernel's text is mapped once; user code is all [user].
 *
 * The inclusive count's choice: a shadow stack of CALLERS, per vCPU.  When a call executes
 * (`E8 rel32`, or `FF /2` with legacy or REX prefixes: found at translation, an instruction
 * callback on it, since a block can be cut short before its last instruction), the plugin pushes
 * {its return address, the caller's symbol}.  At the start of each block, if the block's pc is
 * the return address of one of the top 4 frames, the frames down to and including it are popped
 * (a `ret` ends a block on x86: a return always lands at a block's start; looking 4 deep absorbs
 * the frames of tail calls and of retpoline thunks, which call without returning to the site).
 * Why callers and not a stack unwound from the guest's memory: it costs nothing per instruction,
 * it needs no frame pointers nor ORC data, and a block's symbol runs are computed once, at
 * translation.  The stack is emptied when a window starts or stops, and when a block starts in
 * user mode (a return to user space ends every kernel frame); "stack_resets" counts the times it
 * was emptied with frames on it.  At most 64 frames: past that the oldest is dropped
 * ("stack_overflows").  What this means for incl:
 *  - an interrupt taken in a function runs with that function (and its callers) on the stack:
 *    the handler's instructions count in their inclusive counts;
 *  - a context switch leaves the old task's frames on the stack: the new task's returns do not
 *    match them (or pop them, if they happen to), and they stay until its return to user mode;
 *  - a jump to a return address (rare, hand-written assembly) pops as a return would.
 * So incl is what the shadow stack saw, an approximation of the call tree; self is exact, and
 * the sum of self over a window's symbols ([user] and [unknown] included) is its instructions.
 * A symbol's incl counts lazily: from when its first frame is pushed to when its last is popped
 * (a per-symbol count of its frames), plus the instructions it runs with no frame of its own.
 *
 * Per translation block, its runs of consecutive instructions in the same symbol ([(symbol,
 * count)...], mostly one), kept in a table of records shared by identical blocks (a block
 * translated again finds its record): records are never freed, since QEMU may run a block of an
 * older translation, and past MAX_RECORDS new blocks count whole to "[unknown]" (each one
 * counted in "dropped").  Each vCPU adds to its own tables (per window: self and incl for every
 * symbol, an array, allocated when the vCPU first enters the window), without a lock: the
 * tables of a window are summed when QEMU exits.  An array and not a hash: a run's count is one
 * add at its symbol's index, no lookup; a kernel's ~100k text symbols make it 1.6 MB, and
 * calloc's pages stay unbacked until a symbol on them runs.  A window a vCPU has not left at
 * exit counts up to then (its instructions, not its task).
 *
 * Arguments: map=FILE (`nm -n` of the guest's code), out=FILE (JSON, schema numalab.profile/1,
 * written when QEMU exits).  For more than one vCPU: MTTCG, or one thread for all vCPUs on the
 * lab's QEMU only, as for lockinsn.c (stock QEMU 10.0 passes callbacks the index of the vCPU
 * that translated a block).  Under MTTCG vCPUs run in parallel: the shared tables (windows,
 * block records) take a mutex; a vCPU's stack and counts are its own.
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

#define PROFILE_LEAF_START 0x4c414231u /* "1BAL": a window starts (lockinsn's) */
#define PROFILE_LEAF_STOP 0x4c414230u  /* "0BAL": it stops */
#define MAX_VCPUS 1024
#define MAX_WINDOWS 64      /* distinct window ids */
#define MAX_DEPTH 64        /* frames on a vCPU's shadow stack (a power of 2) */
#define RETURN_LOOKUP 4     /* how many of the top frames a block's pc may return to */
#define MAX_SYMBOLS_OUT 4096 /* per window in the output */
#define MAX_RECORDS (1u << 20) /* distinct translation blocks */
#define KERNEL_HALF 0xffff800000000000ull

struct run {
	uint32_t sym, n;
};

/* A translation block as the plugin sees it. */
struct tbrec {
	uint64_t vaddr;    /* its pc; 0 when it starts in user mode (no return to match there) */
	uint64_t call_ret; /* its last instruction is a call: the return address; else 0 */
	uint32_t call_sym; /* the caller's symbol */
	uint32_t n_insns, nr_runs;
	int user_first;    /* it starts in user mode: the stack is emptied */
	struct run runs[];
};

struct count {
	uint64_t self, incl;
};

/* One vCPU's counts in one window. */
struct wtab {
	uint64_t insns, resets;
	struct count c[]; /* per symbol, then [user], [unknown] */
};

struct frame {
	uint64_t ret;
	uint32_t sym;
};

struct vcpu {
	const struct tbrec *cur; /* the block it runs */
	struct wtab *tab;        /* the window it is in; NULL outside */
	uint32_t window;         /* its id */
	int win;                 /* its index in windows[] */
	uint64_t wn;             /* its instructions in the window so far */
	struct frame stack[MAX_DEPTH]; /* a ring: the oldest at bottom */
	unsigned bottom, depth;
	uint8_t *frames;         /* per symbol: its frames on the stack */
	uint64_t *since;         /* per symbol: wn when its first frame was pushed */
	uint64_t overflows;
	struct wtab *tabs[MAX_WINDOWS];
	struct qemu_plugin_register *rax, *rcx;
};

struct window {
	uint32_t id;
	uint64_t tasks;
	uint64_t vcpus[MAX_VCPUS / 64];
};

static struct vcpu vcpus[MAX_VCPUS];
static struct window windows[MAX_WINDOWS];
static int nr_windows;
static GMutex lock;
static GHashTable *records; /* struct tbrec -> itself, under the mutex */
static char *out_path;
static uint64_t *sym_addr; /* the map's text symbols, sorted by address */
static char **sym_name;
static size_t nr_syms;
static uint64_t text_end = UINT64_MAX; /* the first other symbol past the last text one */
static uint64_t dropped;                /* events past a table's bound */

#define SYM_USER ((uint32_t)nr_syms)
#define SYM_UNKNOWN ((uint32_t)nr_syms + 1)

static const char *sym_label(size_t i)
{
	return i < nr_syms ? sym_name[i] : i == nr_syms ? "[user]" : "[unknown]";
}

/* The symbol index of pc: the text symbol at or below it, or [user] / [unknown]. */
static uint32_t sym_of(uint64_t pc)
{
	if (!nr_syms || pc < sym_addr[0] || pc >= text_end)
		return pc < KERNEL_HALF ? SYM_USER : SYM_UNKNOWN;
	return (uint32_t)(plugutil_below(sym_addr, nr_syms, pc) - 1);
}

/* ---- the shadow stack: frames counted per symbol, incl added when a symbol's last goes --- */

static void frame_gone(struct vcpu *v, uint32_t sym)
{
	if (--v->frames[sym] == 0)
		v->tab->c[sym].incl += v->wn - v->since[sym];
}

static void stack_reset(struct vcpu *v)
{
	if (!v->depth)
		return;
	for (unsigned k = 0; k < v->depth; k++)
		frame_gone(v, v->stack[(v->bottom + k) % MAX_DEPTH].sym);
	v->depth = 0;
	v->tab->resets++;
}

static void stack_push(struct vcpu *v, uint64_t ret, uint32_t sym)
{
	if (v->depth == MAX_DEPTH) {
		frame_gone(v, v->stack[v->bottom].sym);
		v->bottom = (v->bottom + 1) % MAX_DEPTH;
		v->depth--;
		v->overflows++;
	}
	v->stack[(v->bottom + v->depth++) % MAX_DEPTH] = (struct frame){.ret = ret, .sym = sym};
	if (v->frames[sym]++ == 0)
		v->since[sym] = v->wn;
}

/* A block starts at pc: a return to one of the top frames pops down to it. */
static void stack_return(struct vcpu *v, uint64_t pc)
{
	for (unsigned k = 1; k <= RETURN_LOOKUP && k <= v->depth; k++) {
		if (v->stack[(v->bottom + v->depth - k) % MAX_DEPTH].ret != pc)
			continue;
		while (k--)
			frame_gone(v, v->stack[(v->bottom + --v->depth) % MAX_DEPTH].sym);
		return;
	}
}

/* Adds (or takes back, sub) the block's instructions from index `from` on.  A symbol with
 * frames on the stack counts them when its last frame goes: here only those without. */
static void tb_count(struct vcpu *v, const struct tbrec *t, uint32_t from, int sub)
{
	uint32_t pos = 0;

	for (uint32_t r = 0; r < t->nr_runs; r++) {
		uint32_t s = t->runs[r].sym, n = t->runs[r].n;
		uint64_t c = pos + n <= from ? 0 : pos >= from ? n : pos + n - from;
		struct count *k = &v->tab->c[s];

		pos += n;
		if (sub) {
			k->self -= c;
			k->incl -= v->frames[s] ? 0 : c;
			v->wn -= c;
		} else {
			k->self += c;
			k->incl += v->frames[s] ? 0 : c;
			v->wn += c;
		}
	}
}

static void on_tb(unsigned int cpu, void *udata)
{
	const struct tbrec *t = udata;
	struct vcpu *v;

	if (cpu >= MAX_VCPUS)
		return;
	v = &vcpus[cpu];
	v->cur = t;
	if (!v->tab)
		return;
	if (v->depth) {
		if (t->user_first)
			stack_reset(v);
		else
			stack_return(v, t->vaddr);
	}
	tb_count(v, t, 0, 0);
}

static void on_call(unsigned int cpu, void *udata)
{
	const struct tbrec *t = udata;

	if (cpu < MAX_VCPUS && vcpus[cpu].tab)
		stack_push(&vcpus[cpu], t->call_ret, t->call_sym);
}

/* ---- windows ----------------------------------------------------------------------------- */

/* Under the mutex. */
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

static void window_enter(struct vcpu *v, int win, uint32_t id)
{
	if (!v->tabs[win])
		v->tabs[win] = g_malloc0(sizeof(struct wtab) + (nr_syms + 2) * sizeof(struct count));
	if (!v->frames) {
		v->frames = g_new0(uint8_t, nr_syms + 2);
		v->since = g_new0(uint64_t, nr_syms + 2);
	}
	v->tab = v->tabs[win];
	v->win = win;
	v->window = id;
	v->wn = 0;
}

static void window_leave(struct vcpu *v)
{
	stack_reset(v);
	v->tab->insns += v->wn;
	v->tab = NULL;
}

/* CPUID: a window marker when EAX says so.  The block counted before it ran: the instructions
 * from the CPUID on move out of the window (a stop) or into it (a start, the CPUID itself not). */
static void on_cpuid(unsigned int cpu, void *udata)
{
	struct vcpu *v;
	uint32_t leaf, id, at = (uint32_t)(uintptr_t)udata;
	struct window *w;

	if (cpu >= MAX_VCPUS)
		return;
	v = &vcpus[cpu];
	leaf = (uint32_t)plugutil_reg_read(v->rax);
	id = (uint32_t)plugutil_reg_read(v->rcx);
	if (leaf == PROFILE_LEAF_START) {
		if (v->tab) { /* started again without a stop: no task */
			tb_count(v, v->cur, at, 1);
			window_leave(v);
		}
		g_mutex_lock(&lock);
		w = window_get(id);
		if (w)
			w->vcpus[cpu / 64] |= 1ull << (cpu % 64);
		else
			dropped++;
		g_mutex_unlock(&lock);
		if (!w)
			return;
		window_enter(v, (int)(w - windows), id);
		tb_count(v, v->cur, at + 1, 0);
	} else if (leaf == PROFILE_LEAF_STOP && v->tab && v->window == id) {
		tb_count(v, v->cur, at, 1);
		window_leave(v);
		g_mutex_lock(&lock);
		windows[v->win].tasks++;
		g_mutex_unlock(&lock);
	}
}

/* ---- translation ------------------------------------------------------------------------- */

/* A near call: `E8 rel32` or `FF /2`, after legacy and REX prefixes. */
static int is_near_call(const uint8_t *b, size_t n)
{
	size_t i = 0;

	while (i < n && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf2 || b[i] == 0xf3 ||
			 b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x36 ||
			 b[i] == 0x64 || b[i] == 0x65 || (b[i] & 0xf0) == 0x40))
		i++;
	if (i >= n)
		return 0;
	if (b[i] == 0xe8)
		return 1;
	return b[i] == 0xff && i + 1 < n && ((b[i + 1] >> 3) & 7) == 2;
}

static size_t tbrec_size(uint32_t nr_runs)
{
	return sizeof(struct tbrec) + nr_runs * sizeof(struct run);
}

static guint tbrec_hash(gconstpointer p)
{
	const struct tbrec *t = p;
	uint64_t h = t->vaddr * 0x9e3779b97f4a7c15ull ^ t->call_ret ^ t->n_insns;

	for (uint32_t r = 0; r < t->nr_runs; r++)
		h = (h ^ t->runs[r].sym) * 0x100000001b3ull + t->runs[r].n;
	return (guint)(h ^ h >> 32);
}

static gboolean tbrec_equal(gconstpointer a, gconstpointer b)
{
	const struct tbrec *x = a, *y = b;

	return x->vaddr == y->vaddr && x->call_ret == y->call_ret && x->call_sym == y->call_sym &&
	       x->n_insns == y->n_insns && x->user_first == y->user_first &&
	       x->nr_runs == y->nr_runs &&
	       !memcmp(x->runs, y->runs, x->nr_runs * sizeof(struct run));
}

/* The shared record equal to t (t's own copy when new); past MAX_RECORDS, a record counting
 * the block whole to [unknown]. */
static const struct tbrec *tbrec_intern(struct tbrec *t)
{
	struct tbrec *r;

	g_mutex_lock(&lock);
	r = g_hash_table_lookup(records, t);
	if (!r && g_hash_table_size(records) >= MAX_RECORDS) {
		dropped++;
		*t = (struct tbrec){.n_insns = t->n_insns, .nr_runs = 1};
		t->runs[0] = (struct run){.sym = SYM_UNKNOWN, .n = t->n_insns};
		r = g_hash_table_lookup(records, t);
	}
	if (!r) {
		r = g_memdup2(t, tbrec_size(t->nr_runs));
		g_hash_table_add(records, r);
	}
	g_mutex_unlock(&lock);
	return r;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct tbrec *t = g_malloc0(tbrec_size((uint32_t)n));
	const struct tbrec *rec;
	struct qemu_plugin_insn *call = NULL;

	(void)id;
	t->n_insns = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		uint32_t s = sym_of(pc);
		uint8_t b[16];
		size_t len = qemu_plugin_insn_data(insn, b, sizeof(b));

		if (len == 2 && b[0] == 0x0f && b[1] == 0xa2)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_cpuid, QEMU_PLUGIN_CB_R_REGS,
							       (void *)(uintptr_t)i);
		if (i == 0) {
			t->user_first = s == SYM_USER;
			t->vaddr = t->user_first ? 0 : pc;
		}
		if (t->nr_runs && t->runs[t->nr_runs - 1].sym == s)
			t->runs[t->nr_runs - 1].n++;
		else
			t->runs[t->nr_runs++] = (struct run){.sym = s, .n = 1};
		/* A call ends a block; one in user mode would be emptied by the next block. */
		if (i + 1 == n && s != SYM_USER && is_near_call(b, len)) {
			call = insn;
			t->call_ret = pc + qemu_plugin_insn_size(insn);
			t->call_sym = s;
		}
	}
	rec = tbrec_intern(t);
	g_free(t);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, (void *)rec);
	if (call && rec->call_ret)
		qemu_plugin_register_vcpu_insn_exec_cb(call, on_call, QEMU_PLUGIN_CB_NO_REGS,
						       (void *)rec);
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int cpu)
{
	static const char *const names[] = {"rax", "rcx"};
	struct vcpu *v;

	(void)id;
	if (cpu >= MAX_VCPUS) {
		__atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	v = &vcpus[cpu];
	plugutil_regs_find(names, (struct qemu_plugin_register **[]){&v->rax, &v->rcx}, 2);
}

/* ---- the map and the output ----------------------------------------------------------- */

struct mapsym {
	uint64_t addr;
	size_t line;
	char *name;
};

static int mapsym_cmp(const void *a, const void *b)
{
	const struct mapsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The text symbols (T, t) by address (`nm -n` sorts them already), and where text ends: the
 * first symbol of another type past the last of them. */
static int map_load(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[256], type;
	GArray *text = g_array_new(FALSE, FALSE, sizeof(struct mapsym));
	GArray *other = g_array_new(FALSE, FALSE, sizeof(uint64_t));
	uint64_t addr;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		if (type == 'T' || type == 't') {
			struct mapsym s = {.addr = addr, .line = text->len, .name = g_strdup(name)};

			g_array_append_val(text, s);
		} else {
			g_array_append_val(other, addr);
		}
	}
	fclose(f);
	g_array_sort(text, mapsym_cmp);
	nr_syms = text->len;
	sym_addr = g_new(uint64_t, nr_syms + 1);
	sym_name = g_new(char *, nr_syms + 1);
	for (size_t i = 0; i < nr_syms; i++) {
		sym_addr[i] = g_array_index(text, struct mapsym, i).addr;
		sym_name[i] = g_array_index(text, struct mapsym, i).name;
	}
	for (guint i = 0; nr_syms && i < other->len; i++) {
		uint64_t a = g_array_index(other, uint64_t, i);

		if (a > sym_addr[nr_syms - 1] && a < text_end)
			text_end = a;
	}
	g_array_free(text, TRUE);
	g_array_free(other, TRUE);
	return 0;
}

struct outsym {
	uint64_t self, incl;
	uint32_t sym;
};

/* By self, then incl, descending, then by name (then by map order: names may repeat). */
static int outsym_cmp(const void *a, const void *b)
{
	const struct outsym *x = a, *y = b;
	int c;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->incl != y->incl)
		return x->incl > y->incl ? -1 : 1;
	c = strcmp(sym_label(x->sym), sym_label(y->sym));
	return c ? c : x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* A window's counts summed over its vCPUs. */
struct wsum {
	uint64_t insns, resets, incl_total;
	struct outsym *syms;
	size_t nr;
};

static void window_sum(int win, struct wsum *s)
{
	struct count *c = g_new0(struct count, nr_syms + 2);

	*s = (struct wsum){0};
	for (int cpu = 0; cpu < MAX_VCPUS; cpu++) {
		const struct wtab *t = vcpus[cpu].tabs[win];

		if (!t)
			continue;
		s->insns += t->insns;
		s->resets += t->resets;
		for (size_t i = 0; i < nr_syms + 2; i++) {
			c[i].self += t->c[i].self;
			c[i].incl += t->c[i].incl;
		}
	}
	s->syms = g_new(struct outsym, nr_syms + 2);
	for (size_t i = 0; i < nr_syms + 2; i++) {
		s->incl_total += c[i].incl;
		if (c[i].self || c[i].incl)
			s->syms[s->nr++] = (struct outsym){c[i].self, c[i].incl, (uint32_t)i};
	}
	qsort(s->syms, s->nr, sizeof(*s->syms), outsym_cmp);
	if (s->nr > MAX_SYMBOLS_OUT) {
		dropped += s->nr - MAX_SYMBOLS_OUT;
		s->nr = MAX_SYMBOLS_OUT;
	}
	g_free(c);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void window_write(FILE *f, const struct window *w, const struct wsum *s, int first)
{
	int n = 0;

	fprintf(f, "%s\n    {\"id\": %u, \"incl_total\": %" PRIu64 ", \"insns\": %" PRIu64
		", \"stack_resets\": %" PRIu64 ", \"symbols\": [", first ? "" : ",", w->id,
		s->incl_total, s->insns, s->resets);
	for (size_t i = 0; i < s->nr; i++) {
		fprintf(f, "%s\n      {\"incl\": %" PRIu64 ", \"self\": %" PRIu64 ", \"symbol\": ",
			i ? "," : "", s->syms[i].incl, s->syms[i].self);
		json_string(f, sym_label(s->syms[i].sym));
		fputc('}', f);
	}
	fprintf(f, "], \"tasks\": %" PRIu64 ", \"vcpus\": [", w->tasks);
	for (int cpu = 0; cpu < MAX_VCPUS; cpu++)
		if (w->vcpus[cpu / 64] >> (cpu % 64) & 1)
			fprintf(f, "%s%d", n++ ? ", " : "", cpu);
	fprintf(f, "]}");
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out_path, "w");
	struct wsum sums[MAX_WINDOWS];
	uint64_t overflows = 0;

	(void)id;
	(void)p;
	if (!f)
		return;
	g_mutex_lock(&lock);
	for (int cpu = 0; cpu < MAX_VCPUS; cpu++) {
		if (vcpus[cpu].tab) /* still in a window: its counts up to now */
			window_leave(&vcpus[cpu]);
		overflows += vcpus[cpu].overflows;
	}
	for (int i = 0; i < nr_windows; i++)
		window_sum(i, &sums[i]);
	fprintf(f, "{\"dropped\": %" PRIu64 ", \"schema\": \"numalab.profile/1\", "
		"\"stack_overflows\": %" PRIu64 ", \"symbols_loaded\": %zu, \"windows\": [",
		dropped, overflows, nr_syms);
	for (int i = 0; i < nr_windows; i++) {
		window_write(f, &windows[i], &sums[i], i == 0);
		g_free(sums[i].syms);
	}
	fprintf(f, "]}\n");
	g_mutex_unlock(&lock);
	fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *map = NULL;

	if (plugutil_map_out_args("profile", info, argc, argv, &map, &out_path) < 0)
		return -1;
	if (map_load(map) < 0) {
		fprintf(stderr, "profile: cannot read %s\n", map);
		return -1;
	}
	records = g_hash_table_new(tbrec_hash, tbrec_equal);
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
