/* The guest's console (console.log, ttyS0): what the lab looks for in it, a panic, oops or
 * BUG signature and the excerpt around it (outcome_scan_console), the kernel's warnings,
 * then the run's outcome. */
#include "core/outcome.h"
#include "fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_scan cs;
	struct outcome_input in = { .end = GUEST_END_STOPPED, .hello = 1, .console = &cs };
	char reason[512];

	memset(&cs, 0, sizeof(cs));
	if (outcome_scan_console((const char *)data, size, &cs) < 0)
		return 0;
	FUZZ_ASSERT(strlen(cs.signature) < sizeof(cs.signature));
	FUZZ_ASSERT(!cs.excerpt || strlen(cs.excerpt) <= 64 * 1024);
	/* The warnings found on the way: bounded (fuzz_kwarn checks each). */
	FUZZ_ASSERT(cs.warnings.n <= KWARN_MAX);
	FUZZ_ASSERT(!cs.warnings.dropped || cs.warnings.n == KWARN_MAX);
	outcome_classify(&in, reason, sizeof(reason));
	console_scan_free(&cs);
	return 0;
}
