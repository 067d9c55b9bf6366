/* The NUMA cost model in a run ("numa_cost", core/job.h): what the lab hands the plugin
 * lab/plugin/numacost.c and what it takes back.
 *
 * Golden files (UPDATE_GOLDEN=1 rewrites them): the plugin's configuration
 * (numapreset_plugin_cfg) for wsm-ex-4s on 4s-8c and clx-2s on a 2-node topology whose nodes
 * interleave the vCPUs and hold memory on both sides of 4 GiB (numarun/cfg-*.txt).  QEMU's
 * below_4g_mem_size for q35 at its edges (memfit_below_4g). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memfit.h"
#include "core/numapreset.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"

/* Two nodes that interleave the vCPUs (QEMU's order is not the nodes'), 3 GiB in all: the
 * first 2 GiB below 4 GiB, the rest above. */
static const char topo_interleaved[] =
	"{'name':'2s-interleaved','sockets':2,'cores':2,'threads':1,"
	"'nodes':[{'id':0,'cpus':'0,2','memory_mib':2048},{'id':1,'cpus':'1,3','memory_mib':1024}],"
	"'distances':[[10,21],[21,10]]}";

static int load_preset(const char *rel, struct numa_preset *p)
{
	_cleanup_json_ json_t *j = testutil_load(rel);
	struct lab_error err = {0};
	int r = j ? numapreset_from_json(j, "", p, &err) : -ENOENT;

	if (r < 0)
		printf("# %s: %s: %s\n", rel, err.path, err.msg);
	return r;
}

static int load_topology(const char *spec, struct topology *t)
{
	_cleanup_json_ json_t *j = spec[0] == '{' ? testutil_quoted(spec) : testutil_load(spec);
	struct lab_error err = {0};
	int r = j ? topology_from_json(j, "topology", t, &err) : -ENOENT;

	if (r < 0)
		printf("# %s: %s: %s\n", spec, err.path, err.msg);
	return r;
}

static void cfg_golden(const char *preset, const char *topo, const char *golden)
{
	struct numa_preset p;
	struct topology t;
	_cleanup_free_ char *text = NULL;

	if (!tap_ok(load_preset(preset, &p) == 0 && load_topology(topo, &t) == 0,
		    "%s: preset and topology load", golden)) {
		return;
	}
	text = numapreset_plugin_cfg(&p, &t, memfit_below_4g(&t));
	testutil_golden(golden, text);
	numapreset_free(&p);
	topology_free(&t);
}

static void test_cfg(void)
{
	struct numa_preset p;
	struct topology t;

	cfg_golden("configs/numa/wsm-ex-4s.json", "configs/topologies/4s-8c.json",
		   "numarun/cfg-wsm-ex-4s-4s-8c.txt");
	cfg_golden("configs/numa/clx-2s.json", topo_interleaved,
		   "numarun/cfg-clx-2s-interleaved.txt");
	if (load_preset("configs/numa/clx-2s.json", &p) < 0 ||
	    load_topology("configs/topologies/4s-8c.json", &t) < 0)
		return;
	tap_ok(!numapreset_plugin_cfg(&p, &t, 0), "cfg: a preset of 2 nodes on 4 nodes: none");
	numapreset_free(&p);
	topology_free(&t);
}

/* q35: all of the RAM below 4 GiB up to 2816 MiB, else its first 2 GiB. */
static void test_below_4g(void)
{
	static const struct {
		unsigned long mib;
		unsigned long long want;
	} cases[] = {
		{256, 256ull << 20}, {2048, 2048ull << 20}, {2815, 2815ull << 20},
		{2816, 2048ull << 20}, {65536, 2048ull << 20},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct topo_node n = {.memory_mib = cases[i].mib};
		struct topology t = {.nr_nodes = 1, .nodes = &n};

		tap_ok(memfit_below_4g(&t) == cases[i].want, "below_4g of %lu MiB: %llu MiB",
		       cases[i].mib, cases[i].want >> 20);
	}
}

int main(void)
{
	test_cfg();
	test_below_4g();
	return tap_done();
}
