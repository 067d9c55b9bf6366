/* Patch series: the lab does not parse patches or mboxes itself (GNU patch applies them;
 * the series is the "patches" list of a variant, fuzz_kvariant).  What it reads of a patch is
 * what GNU patch printed about it when it did not apply: the failing file's name, which
 * comes from the patch (kpatch_failing_file). */
#include "core/kvariant.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), file[256], tiny[4];

	if (!text)
		return 0;
	kpatch_failing_file(text, file, sizeof(file));
	FUZZ_ASSERT(strlen(file) < sizeof(file));
	kpatch_failing_file(text, tiny, sizeof(tiny));
	free(text);
	return 0;
}
