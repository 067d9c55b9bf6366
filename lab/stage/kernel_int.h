/* Internals shared by kernel.c (orchestration, cache), ksource.c (source trees, patches,
 * downloads) and kbuild.c (spawning make, configuring, progress). */
#pragma once
#include <limits.h>
#include <signal.h>
#include <stddef.h>

#include "core/kvariant.h"
#include "stage/kernel.h"

#define KERNEL_PATCH_MAX (16u << 20)
#define KERNEL_FRAGMENT_MAX (1u << 20)
#define KERNEL_TAIL_MAX (16u * 1024)   /* output kept in memory from a spawned program */
#define KERNEL_LOG_TAIL_LINES 40

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
	char src_dir[PATH_MAX + 96], obj_dir[PATH_MAX + 96];
};

/* Fill a->fail/a->error and return a negative errno (r, or -EINVAL when r is 0). */
int kctx_fail(struct kctx *c, enum kernel_fail f, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void kctx_progress(struct kctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- ksource.c ---- */
int ksource_identity(struct kctx *c);
int ksource_patches(struct kctx *c);
/* Make sure src/SRCKEY holds the extracted, patched tree. */
int ksource_tree(struct kctx *c);
/* Fetch url into dest (atomically) and check its sha256; err gets a one-line reason. */
int ksource_fetch(const char *url, const char *sha256, const char *dest, char *err, size_t len);
/* sha256 of a file's bytes. */
int ksource_file_sha256(const char *path, char out[65]);

/* ---- kbuild.c ---- */
struct kspawn {
	char *const *argv;
	const char *const *env;    /* extra NAME=VALUE entries, NULL-terminated; may be NULL */
	const char *cwd;           /* NULL: inherit */
	int log_fd;                /* output also appended here; -1: not */
	void (*line)(void *ud, const char *line);
	void *ud;
	volatile sig_atomic_t *interrupt;
	char tail[KERNEL_TAIL_MAX]; /* the output's last bytes, NUL-terminated */
	size_t tail_len;
};
/* Runs argv niced by 10 in its own process group, output to the log/tail/line callback.
 * *status is the exit code or 128+signal.  -EINTR when interrupted (the group is killed). */
int kspawn_run(struct kspawn *s, int *status);
/* base target + fragments + olddefconfig in the O= tree, then the check; *final gets the
 * final .config text. */
int kbuild_configure(struct kctx *c, char **final);
/* make bzImage with progress lines; log at obj/VARIANT/numalab-build.log. */
int kbuild_make(struct kctx *c, const char *log_path);
/* Last lines of a log file (malloc'd) or NULL. */
char *kbuild_log_tail(const char *path, unsigned lines);
/* Remove a directory tree. */
int kbuild_rm_rf(const char *path);
