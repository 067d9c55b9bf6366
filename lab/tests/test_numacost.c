/* The NUMA cost model (core/numacost.c) and its presets (core/numapreset.c).
 *
 * Scripted traces (vCPU, op, line, clock) against exact charges on hand-made models: one vCPU,
 * ping-pong within a node and across two, padded and packed counters, clock forwarding,
 * invalidation fan-out, all latencies 0, a full directory, the same trace twice.  Golden files
 * (UPDATE_GOLDEN=1 rewrites them): the SRAT address map of 4-node topologies
 * (numacost/srat-4s.txt) and the canonical form of every configs/numa/NAME.json
 * (numapreset/NAME.txt).  Then a table of bad presets and misfits, each refused with the
 * message users see. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numacost.h"
#include "core/numapreset.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/sha256.h"
#include "util/strbuf.h"

#define LINE(n) ((uint64_t)(n) << NUMACOST_LINE_SHIFT)
#define L NUMACOST_LOAD
#define S NUMACOST_STORE
#define X NUMACOST_RMW

/* Three nodes in a row, two vCPUs each (0-1, 2-3, 4-5); c2c 50 ns to the own node, 150 to
 * the next, 250 to the far end; ipns 2: 100, 300 and 500 instruction-times. */
static const unsigned vcpu_node3[] = {0, 0, 1, 1, 2, 2};
static const uint64_t node_mem3[] = {1ull << 30, 1ull << 30, 1ull << 30};
static const double c2c3[] = {50, 150, 250, 150, 50, 150, 250, 150, 50};
static const double mem3[] = {80, 140, 200, 140, 80, 140, 200, 140, 80};

static struct numacost *model3(double ipns, int zero, unsigned max_lines)
{
	struct numacost_config c = {
		.nr_vcpus = 6, .nr_nodes = 3, .vcpu_node = vcpu_node3, .node_mem = node_mem3,
		.below_4g = 2ull << 30, .c2c_ns = zero ? NULL : c2c3, .mem_ns = zero ? NULL : mem3,
		.ipns = ipns, .max_lines = max_lines,
	};
	struct numacost *m = NULL;

	tap_ok(numacost_new(&c, &m) == 0, "model: 3 nodes, 6 vCPUs, ipns %g%s", ipns,
	       zero ? ", latencies all 0" : "");
	return m;
}

struct step {
	unsigned vcpu;
	enum numacost_op op;
	unsigned line;
	uint64_t clock;
	int64_t want;
};

/* Every step's charge as wanted; the first that is not, as a diagnostic. */
static int run_steps(struct numacost *m, const struct step *s, size_t n, int zero)
{
	for (size_t i = 0; i < n; i++) {
		int64_t got = numacost_access(m, s[i].vcpu, s[i].op, LINE(s[i].line) + 8, s[i].clock);

		if (got != (zero ? 0 : s[i].want)) {
			printf("# step %zu: vCPU %u line %u at %" PRIu64 ": charge %" PRId64
			       ", want %" PRId64 "\n",
			       i, s[i].vcpu, s[i].line, s[i].clock, got, zero ? 0 : s[i].want);
			return 0;
		}
	}
	return 1;
}

static struct numacost_stats sum_stats(const struct numacost *m, unsigned nr_vcpus)
{
	struct numacost_stats t = {0}, s;

	for (unsigned v = 0; v < nr_vcpus; v++) {
		numacost_stats(m, v, &s);
		t.accesses += s.accesses;
		t.transfers_local += s.transfers_local;
		t.transfers_remote += s.transfers_remote;
		t.invalidations += s.invalidations;
		t.charged += s.charged;
		t.forwarded += s.forwarded;
	}
	return t;
}

static void test_one_vcpu(void)
{
	static const struct step s[] = {
		{0, L, 1, 10, 0}, {0, S, 1, 20, 0}, {0, X, 1, 30, 0}, {0, L, 1, 40, 0},
		{0, X, 2, 50, 0}, {0, S, 3, 60, 0}, {0, L, 2, 70, 0}, {0, X, 1, 80, 0},
	};
	struct numacost *m = model3(2, 0, 0);
	struct numacost_stats t;

	if (!m)
		return;
	tap_ok(run_steps(m, s, sizeof(s) / sizeof(s[0]), 0), "one vCPU: every access free");
	t = sum_stats(m, 6);
	tap_ok(t.accesses == 8 && t.transfers_local + t.transfers_remote == 0 && t.charged == 0,
	       "one vCPU: 8 accesses, no transfer, nothing charged");
	tap_ok(numacost_lines(m) == 3, "one vCPU: 3 lines tracked");
	tap_ok(numacost_tracked(m, LINE(1)) && numacost_tracked(m, LINE(1) + 63) &&
		       numacost_tracked(m, LINE(3)) && !numacost_tracked(m, LINE(4)) &&
		       !numacost_tracked(m, LINE(0) + 63) && numacost_lines(m) == 3,
	       "one vCPU: tracked says which lines are in, and adds none");
	numacost_free(m);
}

/* a and b take turns at a locked RMW of one line, R times each, after b held it: 2R
 * transfers.  Clocks far apart, so that nothing is forwarded.  Returns the charges' sum. */
static uint64_t ping_pong(struct numacost *m, unsigned a, unsigned b, unsigned rounds,
			  unsigned nr_vcpus, int remote, const char *what)
{
	struct numacost_stats t;
	uint64_t clock = 1000, sum = 0;
	int ok = numacost_access(m, b, X, LINE(7), clock) == 0;

	for (unsigned r = 0; r < 2 * rounds; r++) {
		int64_t c = numacost_access(m, r % 2 ? b : a, X, LINE(7), clock += 100000);

		ok &= c >= 0;
		sum += (uint64_t)c;
	}
	t = sum_stats(m, nr_vcpus);
	tap_ok(ok && (remote ? t.transfers_remote : t.transfers_local) == 2ull * rounds &&
		       (remote ? t.transfers_local : t.transfers_remote) == 0 && t.forwarded == 0 &&
		       t.invalidations == 2ull * rounds && t.charged == sum,
	       "%s: exactly 2R = %u %s transfers, %" PRIu64 " instruction-times", what,
	       2 * rounds, remote ? "remote" : "local", sum);
	return sum;
}

static void test_ping_pong(void)
{
	struct numacost *m1 = model3(2, 0, 0), *m2 = model3(2, 0, 0);
	uint64_t local, remote;

	if (!m1 || !m2)
		return;
	local = ping_pong(m1, 0, 1, 1000, 6, 0, "ping-pong within node 0");
	remote = ping_pong(m2, 0, 2, 1000, 6, 1, "ping-pong between nodes 0 and 1");
	tap_ok(local == 2000 * 100 && remote == 2000 * 300,
	       "ping-pong: 2R x c2c, 100 and 300 instruction-times each");
	tap_ok(remote * 50 == local * 150, "ping-pong: remote/local charge = c2c 150/50 ns");
	numacost_free(m1);
	numacost_free(m2);
}

/* 4 vCPUs (two on node 0, two on node 1) increment counters in turn, R rounds: each its own
 * line (padded), or one line for all (packed). */
static void test_counters(void)
{
	struct numacost *pad = model3(2, 0, 0), *pack = model3(2, 0, 0);
	const unsigned R = 500, order[] = {0, 1, 2, 3};
	struct numacost_stats tp, tk;
	uint64_t clock = 0, want = 0;
	int ok = 1;

	if (!pad || !pack)
		return;
	for (unsigned r = 0; r < R; r++)
		for (unsigned i = 0; i < 4; i++) {
			clock += 10000;
			ok &= numacost_access(pad, order[i], X, LINE(100 + 64 * order[i]), clock) == 0;
			ok &= numacost_access(pack, order[i], X, LINE(100) + 8 * order[i], clock) >= 0;
		}
	tp = sum_stats(pad, 6);
	tk = sum_stats(pack, 6);
	tap_ok(ok && tp.transfers_local + tp.transfers_remote == 0 && tp.charged == 0,
	       "padded counters: nothing moves, nothing charged");
	/* 0->1 and 2->3 stay on a node (100), 1->2 and 3->0 cross (300); the first is free. */
	want = (uint64_t)R * (100 + 300 + 100 + 300) - 300;
	tap_ok(tk.transfers_local + tk.transfers_remote == 4ull * R - 1 &&
		       tk.transfers_remote == 2ull * R - 1 && tk.charged == want,
	       "packed counters: one transfer per switch (%u), %" PRIu64 " instruction-times",
	       4 * R - 1, want);
	numacost_free(pad);
	numacost_free(pack);
}

/* vCPU 2 (node 1) writes late in a round; vCPU 0, run earlier in the round at a smaller
 * clock, reads it and waits for it: wtime - t on top of the transfer. */
static const struct step forward_steps[] = {
	{0, S, 5, 100, 0},                 /* vCPU 0 owns the line */
	{2, S, 5, 900, 300},               /* takes it from node 0: wtime = 900 + 300 */
	{0, L, 5, 200, (1200 - 200) + 300}, /* earlier in its round: forwarded to 1200 */
	{1, L, 5, 1500, 300},              /* later than the write: the transfer alone */
	{0, L, 5, 1600, 0},                /* has a copy since the write */
	{3, X, 5, 1000, (1200 - 1000) + 300}, /* node 1: holders 0 and 1 on node 0, 2 here */
};

static void test_forwarding(int zero)
{
	struct numacost *m = model3(2, zero, 0);
	struct numacost_stats s0, s3;

	if (!m)
		return;
	tap_ok(run_steps(m, forward_steps, sizeof(forward_steps) / sizeof(forward_steps[0]), zero),
	       "clock forwarding%s: a reader earlier in the round pays wtime - t",
	       zero ? " (latencies 0)" : "");
	numacost_stats(m, 0, &s0);
	numacost_stats(m, 3, &s3);
	tap_ok(s0.forwarded == (zero ? 0 : 1000) && s0.transfers_remote == 1,
	       "clock forwarding: vCPU 0 was forwarded %" PRIu64 " in one remote transfer",
	       s0.forwarded);
	tap_ok(s3.invalidations == 3 && s3.transfers_remote == 1,
	       "clock forwarding: vCPU 3's RMW invalidated 3 copies");
	numacost_free(m);
}

/* A line written on node 0 and read on all three nodes; stores then pay the farthest copy. */
static const struct step fan_steps[] = {
	{0, S, 9, 1000, 0},
	{1, L, 9, 2000, 100},  /* node 0 from node 0 */
	{2, L, 9, 3000, 300},  /* node 1 from node 0 */
	{4, L, 9, 4000, 500},  /* node 2 from node 0 */
	{1, S, 9, 5000, 500},  /* copies on nodes 0, 1 and 2: the far end's 500 */
	{0, L, 9, 6000, 100},
	{0, S, 9, 7000, 100},  /* one copy, on its own node */
	{5, L, 9, 8000, 500},
	{2, L, 9, 9000, 300},
	{3, S, 9, 10000, 300}, /* node 1: copies on 0 (300), 2 (300) and 1 (100) */
};

static void test_fan_out(int zero)
{
	struct numacost *m = model3(2, zero, 0);
	struct numacost_stats s0, s1, s3, t;

	if (!m)
		return;
	tap_ok(run_steps(m, fan_steps, sizeof(fan_steps) / sizeof(fan_steps[0]), zero),
	       "invalidation fan-out%s: a store to a line with k sharers pays the farthest",
	       zero ? " (latencies 0)" : "");
	numacost_stats(m, 0, &s0);
	numacost_stats(m, 1, &s1);
	numacost_stats(m, 3, &s3);
	t = sum_stats(m, 6);
	tap_ok(s1.invalidations == 3 && s0.invalidations == 1 && s3.invalidations == 3 &&
		       s0.transfers_local == 2 && s0.transfers_remote == 0 &&
		       s1.transfers_local == 1 && s1.transfers_remote == 1,
	       "invalidation fan-out%s: copies invalidated 3, 1 and 3; local and remote counted",
	       zero ? " (latencies 0)" : "");
	tap_ok(t.transfers_local + t.transfers_remote == 9 &&
		       t.charged == (zero ? 0 : 2700u) && t.forwarded == 0,
	       "invalidation fan-out%s: 9 transfers, %" PRIu64 " instruction-times",
	       zero ? " (latencies 0)" : "", t.charged);
	numacost_free(m);
}

static void test_limits(void)
{
	struct numacost *m = model3(2, 0, 4);
	const unsigned bad_node[] = {0, 0, 1, 1, 2, 3};
	const double bad_ns[] = {50, -1, 250, 150, 50, 150, 250, 150, 50};
	struct numacost_config c = {
		.nr_vcpus = 6, .nr_nodes = 3, .vcpu_node = vcpu_node3, .node_mem = node_mem3,
		.below_4g = 2ull << 30, .c2c_ns = c2c3, .ipns = 2,
	};
	struct numacost *bad = NULL;
	int ok = 1;

	if (!m)
		return;
	for (unsigned i = 0; i < 4; i++)
		ok &= numacost_access(m, 0, S, LINE(i), 10) == 0;
	tap_ok(ok && numacost_access(m, 0, S, LINE(4), 20) == -ENOSPC &&
		       numacost_access(m, 1, L, LINE(2), 30) == 100 && numacost_lines(m) == 4,
	       "a full directory refuses a new line (-ENOSPC), keeps charging the others");
	tap_ok(numacost_access(m, 6, L, 0, 0) == -EINVAL &&
		       numacost_access(m, 0, NUMACOST_OP__COUNT, 0, 0) == -EINVAL,
	       "a vCPU or an op out of range: -EINVAL");
	numacost_free(m);
	c.vcpu_node = bad_node;
	ok = numacost_new(&c, &bad) == -EINVAL;
	c.vcpu_node = vcpu_node3;
	c.c2c_ns = bad_ns;
	ok &= numacost_new(&c, &bad) == -EINVAL;
	c.c2c_ns = c2c3;
	c.ipns = NUMACOST_MAX_IPNS * 2;
	ok &= numacost_new(&c, &bad) == -EINVAL;
	c.ipns = 2;
	c.nr_vcpus = NUMACOST_MAX_VCPUS + 1;
	ok &= numacost_new(&c, &bad) == -EINVAL;
	tap_ok(ok && !bad, "a config out of range (a vCPU's node, a latency, ipns, vCPUs): -EINVAL");
}

/* A long pseudo-random trace (a fixed LCG: no host state) on a fresh model. */
static uint64_t random_trace(struct numacost *m, unsigned n)
{
	uint64_t x = 12345, clocks[6] = {0}, digest = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned v, line, op;
		int64_t c;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		v = (unsigned)(x >> 33) % 6;
		line = (unsigned)(x >> 40) % 64;
		op = (unsigned)(x >> 50) % 3;
		clocks[v] += 1 + (x >> 56);
		c = numacost_access(m, v, (enum numacost_op)op, LINE(line * 3), clocks[v]);
		digest = digest * 1099511628211ull ^ (uint64_t)c;
	}
	return digest;
}

static void test_determinism(void)
{
	struct numacost *a = model3(2.4, 0, 0), *b = model3(2.4, 0, 0);
	struct numacost_stats sa[6], sb[6];
	uint64_t da, db;
	int same = 1;

	if (!a || !b)
		return;
	da = random_trace(a, 200000);
	db = random_trace(b, 200000);
	for (unsigned v = 0; v < 6; v++) {
		numacost_stats(a, v, &sa[v]);
		numacost_stats(b, v, &sb[v]);
	}
	same = da == db && !memcmp(sa, sb, sizeof(sa));
	tap_ok(same && sum_stats(a, 6).transfers_remote > 0 && sum_stats(a, 6).forwarded > 0,
	       "determinism: the same trace twice, the same charges and counters");
	numacost_free(a);
	numacost_free(b);
}

static int load_topology(const char *rel, struct topology *t)
{
	_cleanup_json_ json_t *j = testutil_load(rel);
	struct lab_error err = {0};

	return j ? topology_from_json(j, "topology", t, &err) : -EINVAL;
}

/* One SRAT layout: its ranges, and the node of the first and last byte of each and of the
 * byte after it. */
static void srat_layout(struct strbuf *sb, const char *what, const uint64_t *mem, unsigned n,
			uint64_t below_4g)
{
	struct numacost_range r[NUMACOST_MAX_RANGES];
	unsigned vcpu_node[NUMACOST_MAX_NODES], nr = 0;
	struct numacost_config c = {
		.nr_vcpus = n, .nr_nodes = n, .vcpu_node = vcpu_node, .node_mem = mem,
		.below_4g = below_4g,
	};
	struct numacost *m = NULL;

	for (unsigned i = 0; i < n; i++)
		vcpu_node[i] = i;
	strbuf_appendf(sb, "## %s, below_4g 0x%" PRIx64 "\n", what, below_4g);
	if (numacost_srat(mem, n, below_4g, 0, r, &nr) < 0 || numacost_new(&c, &m) < 0) {
		strbuf_append(sb, "refused\n");
		return;
	}
	for (unsigned i = 0; i < nr; i++)
		strbuf_appendf(sb, "node %u: 0x%012" PRIx64 "-0x%012" PRIx64 " (%" PRIu64 " KiB)\n",
			       r[i].node, r[i].base, r[i].base + r[i].len - 1, r[i].len >> 10);
	for (unsigned i = 0; i < nr; i++) {
		const uint64_t pa[] = {r[i].base, r[i].base + r[i].len - 1, r[i].base + r[i].len};

		/* The byte after a range is often the next one's first: said once. */
		for (unsigned k = 0; k < 3; k++) {
			int node = numacost_pa_node(m, pa[k]);

			if (k == 0 && i > 0 && pa[0] == r[i - 1].base + r[i - 1].len)
				continue;
			if (node < 0)
				strbuf_appendf(sb, "pa 0x%012" PRIx64 " -> no node\n", pa[k]);
			else
				strbuf_appendf(sb, "pa 0x%012" PRIx64 " -> node %d\n", pa[k], node);
		}
	}
	numacost_free(m);
}

static void srat_topology(struct strbuf *sb, const char *name, uint64_t below_4g)
{
	_cleanup_free_ char *rel = fs_join("configs/topologies", name);
	uint64_t mem[NUMACOST_MAX_NODES];
	struct topology t;
	char what[128];

	if (!tap_ok(rel && load_topology(rel, &t) == 0, "%s parses", name))
		return;
	for (unsigned i = 0; i < t.nr_nodes; i++)
		mem[i] = (uint64_t)t.nodes[i].memory_mib << 20;
	snprintf(what, sizeof(what), "%s: %u nodes of %lu MiB", name, t.nr_nodes,
		 t.nodes[0].memory_mib);
	srat_layout(sb, what, mem, t.nr_nodes, below_4g);
	topology_free(&t);
}

static void test_srat(void)
{
	/* The 640 KiB hole eats node 1 whole: it ends below 1 MiB (build_srat's rare case). */
	const uint64_t tiny[] = {640 << 10, 256 << 10, 1 << 20, 1 << 20};
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;

	/* q35 keeps RAM under 2816 MiB below 4G whole and otherwise puts 2 GiB there
	 * (lab/core/memfit.c); 3 GiB is what max-ram-below-4g=3G gives. */
	srat_topology(&sb, "4s-8c.json", 2048ull << 20);
	srat_topology(&sb, "4s-512c.json", 2048ull << 20);
	srat_topology(&sb, "4s-512c.json", 3072ull << 20);
	srat_layout(&sb, "4 nodes of 640 KiB, 256 KiB, 1 MiB, 1 MiB", tiny, 4, 5ull << 19);
	testutil_golden("numacost/srat-4s.txt", strbuf_take(&sb, &text) == 0 ? text : NULL);
}

/* A 64-node topology, one vCPU a node, in the shape of configs/numa/uv-64s.json: node n is
 * socket n, n/2 its blade, n/16 its IRU.  dist gives the SLIT of local, blade, IRU, rack. */
static json_t *uv_topology(const char *name, const unsigned dist[4])
{
	json_t *t = json_pack("{s:s,s:i,s:i,s:i,s:[]}", "name", name, "sockets", 64, "cores", 1,
			      "node_memory_mib", 64, "distances");
	json_t *rows = json_object_get(t, "distances");

	for (unsigned a = 0; t && a < 64; a++) {
		json_t *row = json_array();

		for (unsigned b = 0; b < 64; b++) {
			unsigned k = a == b ? 0 : a / 2 == b / 2 ? 1 : a / 16 == b / 16 ? 2 : 3;

			json_array_append_new(row, json_integer(dist[k]));
		}
		json_array_append_new(rows, row);
	}
	return t;
}

static const unsigned uv_hops[4] = {10, 16, 32, 48}, uv_flat[4] = {10, 20, 20, 20},
		      uv_reversed[4] = {10, 40, 30, 20};

static int load_preset(const char *rel, struct numa_preset *p, struct lab_error *err)
{
	_cleanup_json_ json_t *j = testutil_load(rel);

	return j ? numapreset_from_json(j, "preset", p, err) : -EINVAL;
}

/* A shipped preset: loads, is named after its file, its canonical form is the golden one and
 * its sha256 that form's. */
static void preset_golden(const char *name)
{
	_cleanup_free_ char *rel = fs_join("configs/numa", name), *golden = NULL, *text = NULL;
	struct lab_error err = {0};
	struct numa_preset p;
	char sha[65], want[65];

	if (!tap_ok(rel && load_preset(rel, &p, &err) == 0, "%s loads%s%s", name,
		    err.msg[0] ? ": " : "", err.msg))
		return;
	tap_ok(strlen(name) == strlen(p.name) + 5 && !strncmp(name, p.name, strlen(p.name)),
	       "%s: named \"%s\"", name, p.name);
	text = numapreset_canonical(&p);
	if (asprintf(&golden, "numapreset/%.*s.txt", (int)strlen(name) - 5, name) > 0)
		testutil_golden(golden, text);
	tap_ok(text && numapreset_sha256(&p, sha) == 0 &&
		       sha256_hex(text, strlen(text), want) == 0 && !strcmp(sha, want),
	       "%s: sha256 of the canonical form %.16s...", name, sha);
	numapreset_free(&p);
}

static void test_presets_shipped(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "configs/numa");
	tap_ok(d.n >= 3, "configs/numa has the shipped presets (%d)", d.n);
	for (int i = 0; i < d.n; i++)
		preset_golden(d.ents[i]->d_name);
}

static const struct numa_path *path_named(const struct numa_preset *p, const char *name)
{
	static const struct numa_path none = {.c2c = {.estimate = -1}, .mem = {.estimate = -1}};

	for (unsigned i = 0; i < p->nr_paths; i++)
		if (!strcmp(p->paths[i].name, name))
			return &p->paths[i];
	return &none;
}

/* Which figures are measured: the Cascade Lake ones all, Westmere-EX's DRAM, none of UV's. */
static void test_preset_estimates(void)
{
	struct numa_preset clx, wsm, uv;
	struct lab_error err = {0};
	int uv_all = 1;

	if (!tap_ok(load_preset("configs/numa/clx-2s.json", &clx, &err) == 0 &&
			    load_preset("configs/numa/wsm-ex-4s.json", &wsm, &err) == 0 &&
			    load_preset("configs/numa/uv-64s.json", &uv, &err) == 0,
		    "clx-2s, wsm-ex-4s, uv-64s load"))
		return;
	for (unsigned i = 0; i < uv.nr_paths; i++)
		uv_all &= uv.paths[i].c2c.estimate && uv.paths[i].mem.estimate;
	tap_ok(uv_all && uv.ipns.estimate && numapreset_is_estimate(&uv),
	       "uv-64s: every figure an estimate");
	tap_ok(clx.nr_paths == 2 && !path_named(&clx, "local")->c2c.estimate &&
		       !path_named(&clx, "local")->mem.estimate &&
		       !path_named(&clx, "remote")->c2c.estimate &&
		       !path_named(&clx, "remote")->mem.estimate,
	       "clx-2s: every latency measured (ipns an estimate)");
	tap_ok(wsm.nr_paths == 2 && !path_named(&wsm, "local")->mem.estimate &&
		       path_named(&wsm, "local")->c2c.estimate == 1 &&
		       !path_named(&wsm, "remote")->mem.estimate &&
		       path_named(&wsm, "remote")->c2c.estimate == 1,
	       "wsm-ex-4s: DRAM measured, c2c estimated");
	numapreset_free(&clx);
	numapreset_free(&wsm);
	numapreset_free(&uv);
}

/* clx-2s through numapreset_model_new: the ping-pong's ratio is the preset's. */
static void test_preset_model(void)
{
	_cleanup_json_ json_t *tj = testutil_quoted(
		"{'name':'2s-4c','sockets':2,'cores':2,'node_memory_mib':512}");
	struct numacost *m1 = NULL, *m2 = NULL, *w = NULL;
	struct numa_preset clx, wsm;
	struct lab_error err = {0};
	struct topology t, t4;
	uint64_t local, remote, cl, cr;

	if (!tap_ok(tj && topology_from_json(tj, "topology", &t, &err) == 0 &&
			    load_topology("configs/topologies/4s-8c.json", &t4) == 0 &&
			    load_preset("configs/numa/clx-2s.json", &clx, &err) == 0 &&
			    load_preset("configs/numa/wsm-ex-4s.json", &wsm, &err) == 0,
		    "presets and topologies load"))
		return;
	tap_ok(numapreset_model_new(&clx, "preset", &t, 2048ull << 20, 0, &m1, &err) == 0 &&
		       numapreset_model_new(&clx, "preset", &t, 2048ull << 20, 0, &m2, &err) == 0,
	       "clx-2s makes a model for 2s-4c");
	cl = numacost_c2c(m1, 0, 0);
	cr = numacost_c2c(m1, 0, 1);
	local = ping_pong(m1, 0, 1, 1000, 4, 0, "clx-2s ping-pong within a socket");
	remote = ping_pong(m2, 1, 2, 1000, 4, 1, "clx-2s ping-pong across sockets");
	tap_ok(cl == 123 && cr == 284 && remote * cl == local * cr &&
		       fabs((double)remote / (double)local / (113.5 / 49.3) - 1) < 0.01,
	       "clx-2s: ping-pong charges %" PRIu64 "/%" PRIu64 " = c2c %" PRIu64 "/%" PRIu64
	       " instruction-times (113.5/49.3 ns x ipns 2.5, rounded)",
	       remote, local, cr, cl);
	tap_ok(numapreset_model_new(&wsm, "preset", &t4, 2048ull << 20, 0, &w, &err) == 0 &&
		       numacost_c2c(w, 0, 0) == 120 && numacost_c2c(w, 3, 1) == 360 &&
		       numacost_mem(w, 2, 2) == 324 && numacost_mem(w, 0, 1) == 475 &&
		       numacost_vcpu_node(w, 5) == 2 && numacost_pa_node(w, 1536ull << 20) == 3,
	       "wsm-ex-4s on 4s-8c: c2c 120/360, mem 324/475 instruction-times; vCPU 5 and the "
	       "last 512 MiB on their nodes");
	numacost_free(m1);
	numacost_free(m2);
	numacost_free(w);
	numapreset_free(&clx);
	numapreset_free(&wsm);
	topology_free(&t);
	topology_free(&t4);
}

/* A 2-node preset the cases below change one key of. */
static const char base_preset[] =
	"{'name':'t2','machine':'a test machine','nodes':2,"
	"'ipns':{'value':2,'estimate':true,'source':'test'},"
	"'paths':{'local':{'c2c':{'ns':50,'estimate':false,'source':'test'},"
	"'mem':{'ns':80,'estimate':false,'source':'test'}},"
	"'remote':{'c2c':{'ns':150,'estimate':false,'source':'test'},"
	"'mem':{'ns':140,'estimate':false,'source':'test'}}},"
	"'matrix':[['local','remote'],['remote','local']]}";
static const char topo_2s[] = "{'name':'2s-2c','sockets':2,'cores':1,'node_memory_mib':256}";
static const char topo_8s[] = "{'name':'8s-8c','sockets':8,'cores':1,'node_memory_mib':256}";
static const char far_path[] = "{'c2c':{'ns':300,'estimate':true,'source':'x'},"
			       "'mem':{'ns':300,'estimate':true,'source':'x'}}";

static const struct preset_case {
	const char *preset;   /* a file below the repo root; NULL for base_preset */
	const char *object;   /* dotted path of the object to change ("" the top); NULL: none */
	const char *key;
	const char *value;    /* JSON with ' for "; NULL deletes the key */
	const char *topology; /* NULL: none; "uv:NAME": uv_topology(); a file; inline JSON */
	const char *want;     /* "PATH: REASON", or NULL when it must load and fit */
} preset_cases[] = {
	{NULL, NULL, NULL, NULL, topo_2s, NULL},
	{NULL, "", "speed", "1", NULL, "preset.speed: unknown key"},
	{NULL, "", "matrx", "1", NULL, "preset.matrx: unknown key (did you mean \"matrix\"?)"},
	{NULL, "", "name", NULL, NULL, "preset.name: required"},
	{NULL, "", "nodes", "0", NULL, "preset.nodes: must be an integer 1..64"},
	{NULL, "paths.remote.c2c", "ns", "-1", NULL,
	 "preset.paths.remote.c2c.ns: must be a latency in ns, 0..100000"},
	{NULL, "paths.local.mem", "ns", "'fast'", NULL,
	 "preset.paths.local.mem.ns: must be a latency in ns, 0..100000"},
	{NULL, "paths.local.c2c", "source", NULL, NULL, "preset.paths.local.c2c.source: required"},
	{NULL, "paths.local", "mem", NULL, NULL, "preset.paths.local.mem: required"},
	{NULL, "ipns", "estimate", "'no'", NULL, "preset.ipns.estimate: must be true or false"},
	{NULL, "ipns", "value", "1000", NULL,
	 "preset.ipns.value: must be instruction-times per ns, 0..100"},
	{NULL, "", "matrix", "[['local','remote']]", NULL,
	 "preset.matrix: must be a 2x2 matrix of path names (nodes is 2)"},
	{NULL, "", "matrix", "[['local','remote'],['remote']]", NULL,
	 "preset.matrix: must be a 2x2 matrix of path names (nodes is 2)"},
	{NULL, "", "matrix", "[['local','remot'],['remote','local']]", NULL,
	 "preset.matrix[0][1]: unknown path \"remot\" (did you mean \"remote\"?)"},
	{NULL, "", "matrix", "[['local',1],['remote','local']]", NULL,
	 "preset.matrix[0][1]: must be the name of one of paths"},
	{NULL, "paths", "far", far_path, NULL, "preset.paths.far: no cell of matrix names it"},
	{NULL, "paths", "Far", far_path, NULL,
	 "preset.paths.Far: a path's name must match [a-z0-9_]{1,31}"},
	{"configs/numa/wsm-ex-4s.json", NULL, NULL, NULL, topo_8s,
	 "preset.nodes: preset wsm-ex-4s is for 4 nodes, topology 8s-8c has 8"},
	{"configs/numa/wsm-ex-4s.json", NULL, NULL, NULL, "configs/topologies/4s-8c.json", NULL},
	{"configs/numa/clx-2s.json", NULL, NULL, NULL, "configs/topologies/4s-8c.json",
	 "preset.nodes: preset clx-2s is for 2 nodes, topology 4s-8c has 4"},
	{NULL, "", "matrix", "[['local','remote'],['local','local']]", topo_2s,
	 "preset.matrix[1][0]: does not fit topology 2s-2c: its distances[1][0] and [0][1] are "
	 "both 20, but preset t2's c2c latency is 50 ns here and 150 ns there"},
	{"configs/numa/uv-64s.json", NULL, NULL, NULL, "uv:uv-hops", NULL},
	{"configs/numa/uv-64s.json", NULL, NULL, NULL, "uv:uv-flat",
	 "preset.matrix[0][2]: does not fit topology uv-flat: its distances[0][2] and [0][1] are "
	 "both 20, but preset uv-64s's c2c latency is 500 ns here and 150 ns there"},
	{"configs/numa/uv-64s.json", NULL, NULL, NULL, "uv:uv-reversed",
	 "preset.matrix[0][1]: does not fit topology uv-reversed: its distances[0][1] = 40 is "
	 "more than [0][2] = 30, but preset uv-64s's c2c latency is 150 ns here, less than "
	 "500 ns there"},
};

/* The case's preset JSON, changed as it says. */
static json_t *case_preset(const struct preset_case *c)
{
	json_t *j = c->preset ? testutil_load(c->preset) : testutil_quoted(base_preset), *o = j;
	char buf[128], *save = NULL;

	if (!j || !c->object)
		return j;
	snprintf(buf, sizeof(buf), "%s", c->object);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		o = json_object_get(o, k);
	if (o && c->value)
		json_object_set_new(o, c->key, testutil_quoted(c->value));
	else if (o)
		json_object_del(o, c->key);
	return j;
}

static json_t *case_topology(const char *spec)
{
	if (!strcmp(spec, "uv:uv-hops"))
		return uv_topology("uv-hops", uv_hops);
	if (!strcmp(spec, "uv:uv-flat"))
		return uv_topology("uv-flat", uv_flat);
	if (!strcmp(spec, "uv:uv-reversed"))
		return uv_topology("uv-reversed", uv_reversed);
	return spec[0] == '{' ? testutil_quoted(spec) : testutil_load(spec);
}

static void run_preset_case(size_t i, const struct preset_case *c)
{
	_cleanup_json_ json_t *pj = case_preset(c);
	_cleanup_json_ json_t *tj = c->topology ? case_topology(c->topology) : NULL;
	struct lab_error err = {0};
	struct numa_preset p;
	struct topology t = {0};
	char got[1024];
	int r, loaded;

	r = pj ? numapreset_from_json(pj, "preset", &p, &err) : -ENOENT;
	loaded = r == 0;
	if (r == 0 && c->topology) {
		r = tj ? topology_from_json(tj, "topology", &t, &err) : -ENOENT;
		if (r == 0)
			r = numapreset_check_topology(&p, "preset", &t, &err);
		topology_free(&t);
	}
	snprintf(got, sizeof(got), "%s%s%s", err.path, err.path[0] ? ": " : "", err.msg);
	if (c->want) {
		char name[32];

		snprintf(name, sizeof(name), "preset case %zu", i);
		testutil_check_error(name, r, got, c->want);
	} else {
		tap_ok(r == 0, "preset case %zu: %s fits %s%s%s", i, c->preset ? c->preset : "t2",
		       c->topology[0] == '{' ? "an inline topology" : c->topology, r ? ": " : "",
		       r ? got : "");
	}
	if (loaded)
		numapreset_free(&p);
}

static void test_preset_cases(void)
{
	for (size_t i = 0; i < sizeof(preset_cases) / sizeof(preset_cases[0]); i++)
		run_preset_case(i, &preset_cases[i]);
}

/* More vCPUs than the directory's sharer sets hold. */
static void test_preset_too_many_vcpus(void)
{
	_cleanup_json_ json_t *pj = testutil_quoted(base_preset);
	_cleanup_json_ json_t *tj = testutil_quoted(
		"{'name':'2s-1024c','sockets':2,'cores':512,'node_memory_mib':256}");
	struct lab_error err = {0};
	struct numacost *m = NULL;
	struct numa_preset p;
	struct topology t;
	char got[1024];
	int r;

	if (!tap_ok(numapreset_from_json(pj, "preset", &p, &err) == 0 &&
			    topology_from_json(tj, "topology", &t, &err) == 0,
		    "t2 and 2s-1024c load"))
		return;
	r = numapreset_model_new(&p, "preset", &t, 2048ull << 20, 0, &m, &err);
	snprintf(got, sizeof(got), "%s: %s", err.path, err.msg);
	testutil_check_error("1024 vCPUs", r, got,
			     "preset: the NUMA cost model takes at most 512 vCPUs, topology "
			     "2s-1024c has 1024");
	numapreset_free(&p);
	topology_free(&t);
}

int main(void)
{
	test_one_vcpu();
	test_ping_pong();
	test_counters();
	test_forwarding(0);
	test_forwarding(1);
	test_fan_out(0);
	test_fan_out(1);
	test_limits();
	test_determinism();
	test_srat();
	test_presets_shipped();
	test_preset_estimates();
	test_preset_model();
	test_preset_cases();
	test_preset_too_many_vcpus();
	return tap_done();
}
