/* The NUMA cost model's outside input (core/numarun.h, core/numapreset.h): the plugin's file
 * as a run reads it after QEMU exits (numarun_parse for a boot of 4s-8c, then the run's
 * numa_cost object, numarun_report), nm's text of a QEMU binary (numarun_nm_exports), and a
 * preset file a job names (numapreset_from_json, then what a job does with one: the fit to
 * 4s-8c, its key and the plugin's configuration). */
#include "core/numarun.h"
#include "fuzz/fuzz.h"
#include "util/cleanup.h"

/* 4s-8c and wsm-ex-4s, read once from the checkout. */
static void fuzz_numacost_setup(struct topology *t, struct numa_preset *p, char sha[65])
{
	char path[4096];
	struct lab_error err = { 0 };
	json_t *tj = NULL, *pj = NULL;

	if (fuzz_topology_loader("4s-8c", NULL, &tj, &err) < 0 ||
	    topology_from_json(tj, "topology", t, &err) < 0 ||
	    checkout_find("configs/numa/wsm-ex-4s.json", path, sizeof(path)) < 0 ||
	    jsonio_load_file(path, 1u << 20, &pj, &err) < 0 ||
	    numapreset_from_json(pj, "", p, &err) < 0 || numapreset_sha256(p, sha) < 0) {
		fprintf(stderr, "fuzz: the harness's topology and preset: %s: %s\n", err.path,
			err.msg);
		abort();
	}
	json_decref(tj);
	json_decref(pj);
}

static void fuzz_preset(const uint8_t *data, size_t size, const struct topology *t)
{
	json_t *j = fuzz_json(data, size);
	struct lab_error err = { 0 };
	struct numa_preset p;
	char sha[65];

	if (j && numapreset_from_json(j, "numa_cost", &p, &err) == 0) {
		FUZZ_ASSERT(numapreset_sha256(&p, sha) == 0);
		if (numapreset_check_topology(&p, "numa_cost", t, &err) == 0) {
			char *cfg = numapreset_plugin_cfg(&p, t, memfit_below_4g(t));

			FUZZ_ASSERT(cfg && !strncmp(cfg, NUMAPRESET_CFG_SCHEMA "\n",
						    strlen(NUMAPRESET_CFG_SCHEMA) + 1));
			free(cfg);
		}
		numapreset_free(&p);
	}
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct topology t;
	static struct numa_preset p;
	static char sha[65];
	_cleanup_free_ char *text = fuzz_text(data, size);
	json_t *out = NULL, *rep;
	struct lab_error err = { 0 };

	if (!t.vcpus)
		fuzz_numacost_setup(&t, &p, sha);
	if (numarun_parse((const char *)data, size, &t, &out, &err) == 0) {
		rep = numarun_report(out, &p, sha);
		FUZZ_ASSERT(rep && json_array_size(json_object_get(rep, "vcpus")) == t.vcpus);
		json_decref(rep);
		json_decref(out);
	}
	if (text)
		numarun_nm_exports(text, NUMARUN_QEMU_SYMBOL);
	fuzz_preset(data, size, &t);
	return 0;
}
