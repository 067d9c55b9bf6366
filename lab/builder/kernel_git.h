/* A git source's tree (builder/kernel_git.c): one persistent checkout per variant, src/git-<16 hex>/, a
 * clone that shares the repository's objects (`git clone --shared`: nothing is copied, and the
 * repository gets no worktree entry or anything else), moved to each build's commit.  git
 * rewrites only the files that differ, so the others keep their mtimes and Kbuild rebuilds,
 * in the variant's O= tree that survives the change of commit, only what the commit changed:
 * what building one variant at many commits (bisection) needs. */
#pragma once

#include "builder/kernel_ctx.h"

/* c->tree_key: "git-" and the first 16 hex digits of sha256("git-checkout\n" REALPATH "\n"
 * VARIANT), REALPATH the repository's real path. */
int kgit_key(struct kctx *c);
/* c->src_dir at the commit of c->source_id ("git:COMMIT"), with nothing left of earlier
 * builds (their patches, files they created) and the variant's patches applied.  The caller
 * holds the variant's obj lock, which serializes everything done to this checkout. */
int kgit_tree(struct kctx *c);
