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
 * source is a checkout: builder/kernel_git.h).  When a tree of the same source with a proper
 * prefix of the variant's patches exists, the new one is hard links to it plus the rest. */
int ksource_tree(struct kctx *c);
/* Apply the variant's patches in order to the tree at dir (URL patches fetched first); a
 * patch that does not apply fails with KERNEL_FAIL_PATCH naming it and the file. */
int ksource_apply_patches(struct kctx *c, const char *dir);
/* The tree c->src_dir was made from (ksource_tree), in dir: -ENOENT if none or gone. */
int ksource_parent(struct kctx *c, char *dir, size_t len);
/* Set to now the times of the files under c->src_dir that are not the same inode as under
 * parent_dir (what its own patches changed or made), so that O= objects copied from the
 * parent's tree are older than them, whenever those objects were built. */
int ksource_freshen(struct kctx *c, const char *parent_dir);
/* Whether ksource_tree() would take seconds: the tree is there, or one to link from. */
int ksource_tree_cheap(struct kctx *c);
