/* Kconfig text: a .config, also the one the guest sends on the results channel (parsed
 * leniently), and a variant's config fragment (strictly): kconfig_parse, then what the kernel
 * stage and the report make of each (merge, check, confounds, the report's subset) with a
 * small fixed fragment or base on the other side, as in the lab (fragments are a few lines;
 * whole configs on both sides would only measure the lookups' n x m). */
#include "core/kvariant.h"
#include "fuzz/fuzz.h"

static const char fuzz_small[] =
	"# CONFIG_PER_VMA_LOCK is not set\n"
	"CONFIG_NUMA=y\n"
	"CONFIG_NR_CPUS=512\n"
	"CONFIG_LOCALVERSION=\"-lab\"\n";

/* frags applied onto base: merged, parsed back, checked. */
static void fuzz_kconfig_merge(const char *base, const struct kconfig *frags)
{
	struct kconfig merged = { 0 };
	struct lab_error err = { 0 };
	struct kmismatch m[4];
	const char *name = "fragment";
	char *out = NULL, line[1024];
	unsigned n;

	if (kconfig_merge(base, frags, 1, &out) < 0)
		return;
	if (kconfig_parse(out, 0, &merged, &err) == 0) {
		n = kconfig_check(frags, &name, 1, &merged, m, 4);
		for (unsigned i = 0; i < n && i < 4; i++)
			kmismatch_format(&m[i], line, sizeof(line));
		kconfig_free(&merged);
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct kconfig small;
	static int ready;
	struct lab_error err = { 0 };
	struct kconfig c = { 0 };
	char *text = fuzz_text(data, size);

	if (!ready) {
		FUZZ_ASSERT(kconfig_parse(fuzz_small, 1, &small, &err) == 0);
		ready = 1;
	}
	if (!text)
		return 0;
	/* A .config: the report's view of it, and a fragment applied onto it. */
	if (kconfig_parse(text, 0, &c, &err) == 0) {
		json_decref(kconfig_confounds(&c));
		json_decref(kconfig_subset(&c, &small, 1));
		if (c.n)
			kconfig_get(&c, c.opts[c.n - 1].name);
		fuzz_kconfig_merge(text, &small);
		kconfig_free(&c);
	}
	/* A fragment, applied onto a base: checking what stuck looks each of its options up in
	 * the result, n x m, so only fragments of fragment size (whole configs parse above). */
	if (kconfig_parse(text, 1, &c, &err) == 0) {
		if (c.n <= 256)
			fuzz_kconfig_merge(fuzz_small, &c);
		kconfig_free(&c);
	}
	free(text);
	return 0;
}
