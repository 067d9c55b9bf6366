/* Guest image recipes (images/NAME.json): img_recipe_from_json, then the recipe as JSON, its
 * cache key text and the mmdebstrap command line made of it. */
#include "core/imgrecipe.h"
#include "fuzz/fuzz.h"

#define FUZZ_SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void fuzz_recipe_use(const struct img_recipe *r)
{
	struct img_input files[IMG_MAX_FILES], prog = { .name = "agent", .sha256 = FUZZ_SHA };
	char entry[128], **argv;

	for (unsigned i = 0; i < r->nr_files; i++)
		files[i] = (struct img_input){ .name = r->files[i].dest, .sha256 = FUZZ_SHA,
					       .mode = r->files[i].mode };
	json_decref(img_recipe_to_json(r));
	free(img_key_text(r, files, &prog, 1));
	img_entry_name(r, FUZZ_SHA, entry, sizeof(entry));
	argv = img_mmdebstrap_argv(r, "/nonexistent/root.tar", 1);
	img_argv_free(argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *j = fuzz_json(data, size);
	struct lab_error err = { 0 };
	struct img_recipe r;

	memset(&r, 0, sizeof(r));
	if (j && img_recipe_from_json(j, "fuzz", &r, &err) == 0) {
		fuzz_recipe_use(&r);
		img_recipe_free(&r);
	}
	json_decref(j);
	return 0;
}
