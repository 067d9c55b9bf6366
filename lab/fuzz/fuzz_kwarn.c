/* The kernel's warnings on a guest's console (kwarn_scan, lab/core/kwarn.h), as the lab finds
 * them in every run's console, then into the report and back (kwarn_list_to_json, the JSON
 * text, kwarn_list_from_json): the bounds the scan promises (at most 16 distinct, bounded
 * valid UTF-8 strings, each first line in its excerpt), and that the report's reader takes
 * what its writer wrote, unchanged. */
#include "core/kwarn.h"
#include "fuzz/fuzz.h"
#include "util/text.h"

static void check_warning(const struct kwarn_list *l, unsigned i)
{
	const struct kwarn *w = &l->items[i];

	FUZZ_ASSERT((unsigned)w->kind < KWARN__COUNT && w->count >= 1);
	FUZZ_ASSERT(w->where[0] && strlen(w->where) < KWARN_WHERE_MAX);
	FUZZ_ASSERT(text_utf8_valid(w->where) && !text_has_control_chars(w->where));
	FUZZ_ASSERT(w->first_line[0] && strlen(w->first_line) < KWARN_LINE_MAX);
	FUZZ_ASSERT(text_utf8_valid(w->first_line));
	FUZZ_ASSERT(w->excerpt && strlen(w->excerpt) <= KWARN_EXCERPT_MAX);
	FUZZ_ASSERT(text_utf8_valid(w->excerpt) && strstr(w->excerpt, w->first_line));
	for (unsigned j = 0; j < i; j++)
		FUZZ_ASSERT(l->items[j].kind != w->kind || strcmp(l->items[j].where, w->where));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kwarn_list l;

	if (kwarn_scan((const char *)data, size, &l) == 0) {
		FUZZ_ASSERT(l.n <= KWARN_MAX && (!l.dropped || l.n == KWARN_MAX));
		for (unsigned i = 0; i < l.n; i++)
			check_warning(&l, i);
		fuzz_kwarn_round_trip(&l);
	}
	kwarn_list_free(&l);
	return 0;
}
