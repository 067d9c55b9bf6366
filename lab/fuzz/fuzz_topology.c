/* Topologies (configs/topologies/NAME.json, or inline in a job): topology_from_json, then
 * what a run does with one: its report shape, the memory plan, the guest's observation
 * compared against it (here: itself). */
#include "core/collect.h"
#include "core/topology.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = fuzz_json(data, size), *rep, *mism = NULL;
	struct lab_error err = { 0 };
	struct topology t;
	struct memplan plan;

	memset(&t, 0, sizeof(t));
	if (!j || topology_from_json(j, "topology", &t, &err) < 0) {
		json_decref(j);
		return 0;
	}
	rep = topology_to_report_json(&t, 1);
	if (rep) {
		/* A guest that sees exactly what was asked for matches. */
		FUZZ_ASSERT(collect_compare_topology(&t, rep, &mism) == 1);
		json_decref(mism);
	}
	json_decref(rep);
	memplan_build(&t, &plan);
	json_decref(memplan_to_json(&plan));
	topology_free(&t);
	json_decref(j);
	return 0;
}
