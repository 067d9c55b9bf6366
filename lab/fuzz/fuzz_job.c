/* Job files (configs/NAME.json, `lab run JOB.json`, labd's POST /v1/jobs): the JSON parser
 * and job_from_json, with the checkout's topologies, the memory plan and the guest job. */
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = fuzz_json(data, size);

	if (j)
		fuzz_job_json(j);
	json_decref(j);
	return 0;
}
