#include "core/numacost.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NOBODY UINT16_MAX /* a line's owner before its first write; a home outside the RAM */
#define HOLE_640K_START 0xa0000ull
#define HOLE_640K_END 0x100000ull
/* Fibonacci hashing of the line number: spreads the consecutive lines of one structure over
 * the table, and depends on the address alone (never on a host pointer). */
#define HASH_MUL 0x9e3779b97f4a7c15ull

struct numacost_line {
	uint64_t tag;   /* line number + 1; 0 marks an empty slot */
	uint64_t wtime; /* the last writer's clock when its write completed */
	uint16_t owner; /* the last writer, always among the sharers; NOBODY before any write */
	uint16_t home;  /* node of the line's memory, for the DRAM tier; NOBODY in a hole */
	uint16_t nr_sharers;
};

struct numacost {
	unsigned nr_vcpus, nr_nodes;
	unsigned words; /* 64-bit words of one sharer set */
	uint16_t *vcpu_node;
	struct numacost_range ranges[NUMACOST_MAX_RANGES];
	unsigned nr_ranges;
	uint64_t *c2c, *mem; /* instruction-times, nr_nodes x nr_nodes */
	int forward;         /* clock forwarding on: some c2c latency is not 0 */
	unsigned bits;       /* the table has 1 << bits slots */
	unsigned nr_lines, max_lines;
	struct numacost_line *lines;
	uint64_t *sharers; /* words per slot */
	struct numacost_stats *stats;
};

static int range_add(struct numacost_range *out, unsigned *n, uint64_t base, uint64_t len,
		     unsigned node)
{
	if (len == 0)
		return 0;
	if (*n >= NUMACOST_MAX_RANGES)
		return -EINVAL;
	out[(*n)++] = (struct numacost_range){.base = base, .len = len, .node = node};
	return 0;
}

/* One node's pieces, as build_srat's loop body: next is where the previous node ended. */
static int srat_node(struct numacost_range *out, unsigned *n, unsigned node, uint64_t mem,
		     uint64_t below_4g, uint64_t above_4g_start, uint64_t *next)
{
	uint64_t base = *next, len = mem;
	int r;

	*next = base + len;
	if (base <= HOLE_640K_START && *next > HOLE_640K_START) {
		/* The node keeps what lies below the hole; the hole eats the rest up to 1 MiB. */
		if ((r = range_add(out, n, base, HOLE_640K_START - base, node)) < 0)
			return r;
		if (*next <= HOLE_640K_END) {
			*next = HOLE_640K_END;
			return 0;
		}
		base = HOLE_640K_END;
		len = *next - HOLE_640K_END;
	}
	if (base <= below_4g && *next > below_4g) {
		/* Below 4G up to below_4g; the rest moves above the PCI hole, and so do the nodes
		 * after it. */
		if ((r = range_add(out, n, base, below_4g - base, node)) < 0)
			return r;
		base = above_4g_start;
		len = *next - below_4g;
		*next = base + len;
	}
	return range_add(out, n, base, len, node);
}

int numacost_srat(const uint64_t *node_mem, unsigned nr_nodes, uint64_t below_4g,
		  uint64_t above_4g_start, struct numacost_range *out, unsigned *nr)
{
	uint64_t next = 0;
	unsigned n = 0;

	if (!above_4g_start)
		above_4g_start = NUMACOST_4G;
	if (!node_mem || !out || !nr || nr_nodes < 1 || nr_nodes > NUMACOST_MAX_NODES ||
	    below_4g > above_4g_start)
		return -EINVAL;
	for (unsigned i = 0; i < nr_nodes; i++) {
		int r;

		/* Far below any overflow: 2^56 bytes is 64 PiB. */
		if (node_mem[i] > (1ull << 56) || next > (1ull << 62))
			return -EINVAL;
		r = srat_node(out, &n, i, node_mem[i], below_4g, above_4g_start, &next);
		if (r < 0)
			return r;
	}
	*nr = n;
	return 0;
}

static int ns_valid(double ns)
{
	return ns >= 0 && ns <= NUMACOST_MAX_NS; /* false for NaN too */
}

/* round(ns * ipns) without libm: both are checked non-negative and bounded. */
static uint64_t ns_to_it(double ns, double ipns)
{
	return (uint64_t)(ns * ipns + 0.5);
}

static int config_valid(const struct numacost_config *c)
{
	size_t n2 = (size_t)c->nr_nodes * c->nr_nodes;

	if (c->nr_vcpus < 1 || c->nr_vcpus > NUMACOST_MAX_VCPUS || c->nr_nodes < 1 ||
	    c->nr_nodes > NUMACOST_MAX_NODES || !c->vcpu_node || !c->node_mem ||
	    !(c->ipns >= 0 && c->ipns <= NUMACOST_MAX_IPNS) || c->max_lines > NUMACOST_MAX_LINES)
		return 0;
	for (unsigned v = 0; v < c->nr_vcpus; v++)
		if (c->vcpu_node[v] >= c->nr_nodes)
			return 0;
	for (size_t i = 0; i < n2; i++)
		if ((c->c2c_ns && !ns_valid(c->c2c_ns[i])) || (c->mem_ns && !ns_valid(c->mem_ns[i])))
			return 0;
	return 1;
}

/* The table: a power of two at least 4/3 of the lines it may hold, so that a probe stays
 * short when it is full. */
static int table_alloc(struct numacost *m, unsigned max_lines)
{
	uint64_t want = (uint64_t)max_lines + max_lines / 3 + 1;

	m->max_lines = max_lines;
	m->bits = 1;
	while ((1ull << m->bits) < want)
		m->bits++;
	m->lines = calloc((size_t)1 << m->bits, sizeof(*m->lines));
	m->sharers = calloc(((size_t)1 << m->bits) * m->words, sizeof(*m->sharers));
	return m->lines && m->sharers ? 0 : -ENOMEM;
}

static int model_fill(struct numacost *m, const struct numacost_config *c)
{
	size_t n2 = (size_t)c->nr_nodes * c->nr_nodes;
	int r;

	m->nr_vcpus = c->nr_vcpus;
	m->nr_nodes = c->nr_nodes;
	m->words = (c->nr_vcpus + 63) / 64;
	r = numacost_srat(c->node_mem, c->nr_nodes, c->below_4g, c->above_4g_start, m->ranges,
			  &m->nr_ranges);
	if (r < 0)
		return r;
	m->vcpu_node = calloc(c->nr_vcpus, sizeof(*m->vcpu_node));
	m->stats = calloc(c->nr_vcpus, sizeof(*m->stats));
	m->c2c = calloc(n2, sizeof(*m->c2c));
	m->mem = calloc(n2, sizeof(*m->mem));
	if (!m->vcpu_node || !m->stats || !m->c2c || !m->mem)
		return -ENOMEM;
	for (unsigned v = 0; v < c->nr_vcpus; v++)
		m->vcpu_node[v] = (uint16_t)c->vcpu_node[v];
	for (size_t i = 0; i < n2; i++) {
		m->c2c[i] = c->c2c_ns ? ns_to_it(c->c2c_ns[i], c->ipns) : 0;
		m->mem[i] = c->mem_ns ? ns_to_it(c->mem_ns[i], c->ipns) : 0;
		m->forward |= m->c2c[i] != 0;
	}
	return table_alloc(m, c->max_lines ? c->max_lines : NUMACOST_DEFAULT_LINES);
}

int numacost_new(const struct numacost_config *cfg, struct numacost **out)
{
	struct numacost *m;
	int r;

	if (!cfg || !out || !config_valid(cfg))
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	r = model_fill(m, cfg);
	if (r < 0) {
		numacost_free(m);
		return r;
	}
	*out = m;
	return 0;
}

void numacost_free(struct numacost *m)
{
	if (!m)
		return;
	free(m->vcpu_node);
	free(m->c2c);
	free(m->mem);
	free(m->lines);
	free(m->sharers);
	free(m->stats);
	free(m);
}

int numacost_pa_node(const struct numacost *m, uint64_t pa)
{
	unsigned lo = 0, hi = m->nr_ranges;

	/* The ranges ascend: find the last that starts at or below pa. */
	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (m->ranges[mid].base <= pa)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pa - m->ranges[lo - 1].base >= m->ranges[lo - 1].len)
		return -ENOENT;
	return (int)m->ranges[lo - 1].node;
}

/* The slot of line, a new one (an empty line homed by the SRAT layout) when it is not there
 * yet; -ENOSPC when it would be one more than max_lines. */
static long line_slot(struct numacost *m, uint64_t line)
{
	uint64_t mask = (1ull << m->bits) - 1, i = (line * HASH_MUL) >> (64 - m->bits);
	struct numacost_line *l;
	int home;

	while (m->lines[i].tag && m->lines[i].tag != line + 1)
		i = (i + 1) & mask;
	l = &m->lines[i];
	if (l->tag)
		return (long)i;
	if (m->nr_lines >= m->max_lines)
		return -ENOSPC;
	home = numacost_pa_node(m, line << NUMACOST_LINE_SHIFT);
	*l = (struct numacost_line){
		.tag = line + 1, .owner = NOBODY, .home = home < 0 ? NOBODY : (uint16_t)home,
	};
	m->nr_lines++;
	return (long)i;
}

int numacost_tracked(const struct numacost *m, uint64_t pa)
{
	uint64_t line = pa >> NUMACOST_LINE_SHIFT;
	uint64_t mask = (1ull << m->bits) - 1, i = (line * HASH_MUL) >> (64 - m->bits);

	while (m->lines[i].tag && m->lines[i].tag != line + 1)
		i = (i + 1) & mask;
	return m->lines[i].tag != 0;
}

static int bit_test(const uint64_t *set, unsigned v)
{
	return (set[v / 64] >> (v % 64)) & 1;
}

static void count_transfer(struct numacost_stats *s, int remote, uint64_t fwd, uint64_t charge)
{
	if (remote)
		s->transfers_remote++;
	else
		s->transfers_local++;
	s->forwarded += fwd;
	s->charged += charge;
}

static uint64_t access_load(struct numacost *m, struct numacost_line *l, uint64_t *set,
			    unsigned v, uint64_t t)
{
	unsigned nv = m->vcpu_node[v], no;
	uint64_t fwd;

	if (bit_test(set, v))
		return 0;
	set[v / 64] |= 1ull << (v % 64);
	l->nr_sharers++;
	if (l->owner == NOBODY)
		return 0; /* read-shared, never written: nothing to wait for */
	no = m->vcpu_node[l->owner];
	fwd = m->forward && l->wtime > t ? l->wtime - t : 0;
	count_transfer(&m->stats[v], no != nv, fwd, fwd + m->c2c[nv * m->nr_nodes + no]);
	return fwd + m->c2c[nv * m->nr_nodes + no];
}

/* The largest latency from v's node to a holder other than v, and whether one is remote. */
static uint64_t farthest_holder(const struct numacost *m, const uint64_t *set, unsigned v,
				int *remote)
{
	unsigned nv = m->vcpu_node[v];
	uint64_t worst = 0;

	*remote = 0;
	for (unsigned w = 0; w < m->words; w++) {
		uint64_t bits = set[w] & ~(w == v / 64 ? 1ull << (v % 64) : 0);

		while (bits) {
			unsigned h = w * 64 + (unsigned)__builtin_ctzll(bits), nh = m->vcpu_node[h];
			uint64_t lat = m->c2c[nv * m->nr_nodes + nh];

			bits &= bits - 1;
			worst = lat > worst ? lat : worst;
			*remote |= nh != nv;
		}
	}
	return worst;
}

static uint64_t access_store(struct numacost *m, struct numacost_line *l, uint64_t *set,
			     unsigned v, uint64_t t)
{
	unsigned others = l->nr_sharers - (unsigned)bit_test(set, v);
	uint64_t fwd = 0, charge = 0;

	if (others) {
		int remote;
		uint64_t worst = farthest_holder(m, set, v, &remote);

		fwd = m->forward && l->wtime > t ? l->wtime - t : 0;
		charge = fwd + worst;
		count_transfer(&m->stats[v], remote, fwd, charge);
		m->stats[v].invalidations += others;
	}
	memset(set, 0, m->words * sizeof(*set));
	set[v / 64] |= 1ull << (v % 64);
	l->nr_sharers = 1;
	l->owner = (uint16_t)v;
	l->wtime = t + charge;
	return charge;
}

int64_t numacost_access(struct numacost *m, unsigned vcpu, enum numacost_op op, uint64_t pa,
			uint64_t clock)
{
	struct numacost_line *l;
	uint64_t *set, charge;
	long slot;

	if (!m || vcpu >= m->nr_vcpus || (unsigned)op >= NUMACOST_OP__COUNT)
		return -EINVAL;
	slot = line_slot(m, pa >> NUMACOST_LINE_SHIFT);
	if (slot < 0)
		return slot;
	l = &m->lines[slot];
	set = &m->sharers[(size_t)slot * m->words];
	if (op == NUMACOST_LOAD)
		charge = access_load(m, l, set, vcpu, clock);
	else
		charge = access_store(m, l, set, vcpu, clock);
	m->stats[vcpu].accesses++;
	return (int64_t)charge;
}

int numacost_vcpu_node(const struct numacost *m, unsigned vcpu)
{
	return vcpu < m->nr_vcpus ? (int)m->vcpu_node[vcpu] : -EINVAL;
}

uint64_t numacost_c2c(const struct numacost *m, unsigned a, unsigned b)
{
	return a < m->nr_nodes && b < m->nr_nodes ? m->c2c[a * m->nr_nodes + b] : 0;
}

uint64_t numacost_mem(const struct numacost *m, unsigned a, unsigned b)
{
	return a < m->nr_nodes && b < m->nr_nodes ? m->mem[a * m->nr_nodes + b] : 0;
}

int numacost_stats(const struct numacost *m, unsigned vcpu, struct numacost_stats *out)
{
	if (vcpu >= m->nr_vcpus)
		return -EINVAL;
	*out = m->stats[vcpu];
	return 0;
}

unsigned numacost_lines(const struct numacost *m)
{
	return m->nr_lines;
}
