/* Building the contention model's QEMU (images/qemu/README.md): Debian's "+ds" source of the
 * QEMU version the lab runs, with the lab's patches, x86_64-softmmu only, cached by content
 * (lab/core/qemusrc.h) like kernels, built the first time something needs it. */
#pragma once
#include <limits.h>
#include <signal.h>
#include <stddef.h>

#include "util/progress.h"

struct qemu_build_opts {
	const char *cache;        /* NULL: $LAB_QEMU_CACHE or cachedir_default("qemu") */
	const char *patch_dir;    /* NULL: images/qemu of the lab's checkout */
	int force;                /* build even when the cache has it */
	int offline;              /* only look: -ENOENT when not built (never fetch or build) */
	unsigned jobs;            /* ninja -j; 0: the host's CPUs */
	volatile sig_atomic_t *interrupt;
	progress_fn *progress;
	void *progress_ud;
};

struct qemu_build {
	char key[65];
	char binary[PATH_MAX];    /* cache/artifacts/KEY/qemu-system-x86_64 */
	char version[128];        /* Debian's version of qemu-system-x86 it is built from */
	int cached;               /* 1: it was there; 0: built now */
	double build_s;
};

/* The cache directory opt, $LAB_QEMU_CACHE or the default. */
void qemu_cache_dir(const char *opt, char *buf, size_t len);
/* Find or build.  0 with out filled, or a negative errno with why set (one sentence, what to
 * do included): -ENOENT not built (offline) or no source (no deb-src entry), -EIO a step
 * failed (the log's path in why), -EINTR interrupted. */
int qemu_build_ensure(const struct qemu_build_opts *o, struct qemu_build *out, char *why,
		      size_t len);
