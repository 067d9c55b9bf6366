/* Kernel variants -> a bootable image, cached by content (kernels/README.md).
 *
 * Cache directory (--cache, else $LAB_KERNEL_CACHE, else util/cachedir.h's: /var/cache/numalab/kernels
 * for root, ~/.cache/numalab/kernels for a user):
 *   artifacts/KEY/        the image (vmlinux for a PVH build, else bzImage: kconfig_boot_image),
 *                         config, build.log, meta.json; KEY = sha256 of (source
 *                         identity, patch contents, final .config, compiler version).  Made in
 *                         artifacts/.tmp-* and renamed, so it is complete or absent.
 *   index/RECIPE.json     recipe key (source, patches, base, fragments, compiler) -> KEY: a hit
 *                         needs no `make` at all.
 *   src/SRCKEY/           extracted, patched source of a tarball (SRCKEY: source identity
 *                         + patches)
 *   src/git-HEX/          a git source's checkout, one per variant (repository, variant
 *                         name), moved from commit to commit (builder/kernel_git.h)
 *   src/.../O-VARIANT/    the variant's O= tree inside its source tree, kept for incremental
 *                         rebuilds (for a git source across commits too); a new variant
 *                         starts from a copy of a sibling O- tree of the same source.  One
 *                         level below the source, Kbuild names every file relative to it,
 *                         so equal files hit the same ccache entries in any tree.  (obj/ of
 *                         older labs is removed once.)
 *   ccache/               ccache's store;  logs/  failed builds' logs;  locks/  flock files
 *   downloads/SHA256      fetched tarballs and patches;  srcid/  memo of tarball hashes */
#pragma once
#include <jansson.h>
#include <limits.h>
#include <signal.h>

#include "builder/kernel_artifact.h"
#include "core/kvariant.h"
#include "util/error.h"
#include "util/progress.h"

/* $opt, else $LAB_KERNEL_CACHE, else cachedir_default("kernels") (util/cachedir.h). */
void kernel_cache_dir(const char *opt, char *buf, size_t len);
/* The kernels/ directory, found as util/checkout.h says ($LAB_ROOT, the lab binary's checkout,
 * the current directory); -ENOENT when there is none. */
int kernel_variants_dir(char *buf, size_t len);
/* ref is a variant name (kernels/NAME.json) or a path (holds '/' or ends in .json, relative
 * to base_dir).  Parses it and checks that its patches, fragments and local source exist.
 * err->file names the variant file for errors inside it. */
int kernel_variant_load(const char *ref, const char *base_dir, struct kvariant *v,
			struct lab_error *err);
/* The variant's JSON with every "extends" resolved into it (the base's relative paths made
 * absolute; its own still relative to *dir, the caller's to free), and its name. */
int kernel_variant_flat(const char *ref, const char *base_dir, json_t **out, char *name,
			size_t nlen, char **dir, struct lab_error *err);

/* Returns 0 with a->image ready (a->cached says whether it was built now), or a negative
 * errno with a->fail and a->error saying why. */
int kernel_build(const struct kvariant *v, const struct kernel_build_opts *o,
		 struct kernel_artifact *a);
/* The variant's patches applied to its source before anything is built: its source tree made
 * (from a tree it extends, in seconds, or, when may_extract, from the tarball).  0 they apply
 * (or it was built before), 1 not checked now (a git source, no patches, or no tree to start
 * from without may_extract), negative with a->fail (KERNEL_FAIL_PATCH: the patch, file and
 * hunk that fail; KERNEL_FAIL_SOURCE) and a->error. */
int kernel_check_patches(const struct kvariant *v, const struct kernel_build_opts *o,
			 int may_extract, struct kernel_artifact *a);
/* Cache lookup only (no configure, no build): 1 hit (a filled), 0 miss, negative on error. */
int kernel_lookup(const struct kvariant *v, const struct kernel_build_opts *o,
		  struct kernel_artifact *a);
void kernel_artifact_free(struct kernel_artifact *a);
const char *kernel_fail_name(enum kernel_fail f);
