/* Cache keys of kernel builds.  Each key is the sha256 of a canonical text: one "name value"
 * line per input, in a fixed order, with a version line first so that a change to what goes
 * in makes old keys unreachable instead of wrong.  Pure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/kvariant.h"
#include "util/cleanup.h"
#include "util/sha256.h"
#include "util/strbuf.h"

/* Inputs are single lines: a newline inside one would let two inputs collide. */
static int line(struct strbuf *sb, const char *name, const char *value)
{
	if (!value || strchr(value, '\n'))
		return -EINVAL;
	return strbuf_appendf(sb, "%s %s\n", name, value);
}

static int common(struct strbuf *sb, const char *version, const struct kkey_input *in)
{
	int r = line(sb, "key", version);

	if (r == 0)
		r = line(sb, "source", in->source_id);
	for (unsigned i = 0; r == 0 && i < in->nr_patches; i++)
		r = line(sb, "patch", in->patch_sha256[i]);
	return r;
}

/* What configuring starts from: the base target, the fragments, the compiler. */
static int configuration(struct strbuf *sb, const struct kkey_input *in)
{
	int r = line(sb, "base", in->base);

	for (unsigned i = 0; r == 0 && i < in->nr_fragments; i++)
		r = line(sb, "fragment", in->fragment_sha256[i]);
	if (r == 0)
		r = line(sb, "compiler", in->compiler);
	return r;
}

static int finish(struct strbuf *sb, int r, char out[65])
{
	_cleanup_free_ char *text = NULL;

	if (r < 0)
		return r;
	r = strbuf_take(sb, &text);
	if (r < 0)
		return r;
	return sha256_hex(text, strlen(text), out);
}

int kkey_artifact(const struct kkey_input *in, char out[65])
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	int r = common(&sb, "numalab.kernel-artifact/1", in);

	if (r == 0)
		r = line(&sb, "config", in->config_sha256);
	if (r == 0)
		r = line(&sb, "compiler", in->compiler);
	return finish(&sb, r, out);
}

int kkey_recipe(const struct kkey_input *in, char out[65])
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	int r = common(&sb, "numalab.kernel-recipe/1", in);

	return finish(&sb, r < 0 ? r : configuration(&sb, in), out);
}

int kkey_source(const struct kkey_input *in, char out[65])
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	return finish(&sb, common(&sb, "numalab.kernel-source/1", in), out);
}

int kkey_kconfig(const struct kkey_input *in, const char *files, char out[65])
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	int r = line(&sb, "key", "numalab.kernel-kconfig/1");

	if (r == 0)
		r = configuration(&sb, in);
	for (const char *p = files; r == 0 && p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		r = n ? strbuf_appendf(&sb, "file %.*s\n", (int)n, p) : 0;
		p += n + (nl != NULL);
	}
	return finish(&sb, r, out);
}
