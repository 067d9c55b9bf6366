/* Kernel sources (builder/kernel_source.c): their identity (what the cache key says about them), downloads
 * (libcurl, checked by sha256), patches, and the extracted, patched tree under src/SRCKEY. */
#pragma once
#include <stddef.h>

#include "builder/kernel_ctx.h"

/* c->source_id (and a->source_id) from the source: a tarball's sha256, a git commit. */
int ksource_identity(struct kctx *c);
/* Each patch's local file and sha256 (a URL patch: its declared sha256, not fetched yet). */
int ksource_patches(struct kctx *c);
/* Make sure src/SRCKEY holds the extracted, patched tree of a Debian or URL tarball (a git
 * source is a checkout: builder/kernel_git.h). */
int ksource_tree(struct kctx *c);
/* Apply the variant's patches in order to the tree at dir (URL patches fetched first); a
 * patch that does not apply fails with KERNEL_FAIL_PATCH naming it and the file. */
int ksource_apply_patches(struct kctx *c, const char *dir);
