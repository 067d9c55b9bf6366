/* The context of one kernel build: the variant, its options, the artifact being filled and
 * what is worked out on the way (keys, paths, patch and fragment hashes), with the one way
 * failures and progress are reported.  kernel.c (orchestration, cache) creates it and hands it
 * to kernel_git.c (a git source's checkout), kernel_source.c (source trees, patches,
 * downloads) and kernel_make.c (configure, make), so the dependency runs one way: kernel.c ->
 * kernel_git.c -> kernel_source.c, kernel_make.c -> kernel_ctx.c -> kernel_artifact.h. */
#pragma once
#include <limits.h>

#include "builder/kernel_artifact.h"
#include "core/kvariant.h"
#include "util/spawn.h"

/* Niceness added to every program a kernel build spawns: the machine is shared. */
#define KERNEL_BUILD_NICE 10

struct kctx {
	const struct kvariant *v;
	const struct kernel_build_opts *o;
	struct kernel_artifact *a;
	char cache[PATH_MAX];
	char compiler[256];
	char source_id[256];
	char (*patch_file)[PATH_MAX + 96]; /* local file of each patch (downloads/ for URLs) */
	char (*patch_sha)[65];
	char **frag_text;
	struct kconfig *frags;
	char (*frag_sha)[65];
	char srckey[65], recipe[65];
	/* The source tree the O= objects depend on (obj/VARIANT/.numalab-src): srckey for an
	 * extracted tree, "git-<16 hex>" for a git source's checkout, the same at every commit,
	 * so that its objects survive a change of commit. */
	char tree_key[65];
	char src_dir[PATH_MAX + 96], obj_dir[PATH_MAX + 96];
};

/* Fill a->fail/a->error and return a negative errno (r, or -EINVAL when r is 0). */
int kctx_fail(struct kctx *c, enum kernel_fail f, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void kctx_progress(struct kctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* spawn_run() of j for this build: niced by KERNEL_BUILD_NICE, stopped by the build's
 * interrupt flag. */
int kctx_spawn(struct kctx *c, struct spawn_job *j, int *status);
/* kctx_spawn() of argv, its output kept only for out (its last bytes; out may be NULL):
 * 0 when it exited 0, -EIO when it exited otherwise, -EINTR when interrupted. */
int kctx_run(struct kctx *c, char *const argv[], const char *cwd, char *out, size_t len);
/* Free what the context allocated (not the context itself). */
void kctx_free(struct kctx *c);
