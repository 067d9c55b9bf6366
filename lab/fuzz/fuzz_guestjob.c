/* The guest job (/numalab/job.json, numalab.guestjob/1) as the agent reads it
 * (runners/agent.c: at most GUESTJOB_MAX_BYTES, json_loadb rejecting duplicate keys, then
 * guestjob_validate).  What it accepted, built again by the host's guestjob_build(), must be
 * accepted again. */
#include "fuzz/fuzz.h"
#include "proto/guestjob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lab_error err = { 0 };
	struct guestjob gj, again;
	json_t *root, *built;

	if (size > GUESTJOB_MAX_BYTES)
		return 0;
	root = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	if (!root)
		return 0;
	memset(&gj, 0, sizeof(gj));
	if (guestjob_validate(root, &gj, &err) == 0) {
		built = guestjob_build(&gj);
		if (built) {
			int r = guestjob_validate(built, &again, &err);

			if (r < 0)
				fprintf(stderr, "fuzz: rebuilt guest job refused: %s: %s\n",
					err.path, err.msg);
			FUZZ_ASSERT(r == 0);
			FUZZ_ASSERT(again.nr_workloads == gj.nr_workloads);
		}
		json_decref(built);
	}
	json_decref(root);
	return 0;
}
