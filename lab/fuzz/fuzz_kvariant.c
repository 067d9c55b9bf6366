/* Kernel variants (kernels/NAME.json): kvariant_from_json, its source, patch series and
 * config fragment lists. */
#include "core/kvariant.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = fuzz_json(data, size);
	struct lab_error err = { 0 };
	struct kvariant v;

	memset(&v, 0, sizeof(v));
	if (j && kvariant_from_json(j, "fuzz", "/nonexistent/kernels", &v, &err) == 0)
		kvariant_free(&v);
	json_decref(j);
	return 0;
}
