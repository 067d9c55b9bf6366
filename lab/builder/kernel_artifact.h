/* What a kernel build makes and how it is asked for: the artifact, the ways a build fails,
 * the build's options.  kernel.h's API and the build's context (kernel_ctx.h) both speak of
 * them; kept here so that the context, which the build's parts share, needs nothing of the
 * orchestration above it. */
#pragma once
#include <limits.h>
#include <signal.h>

#include "util/progress.h"

/* A variant's O= tree is SRC/O-VARIANT. */
#define KERNEL_OBJ_PREFIX "O-"

enum kernel_fail {
	KERNEL_OK = 0,
	KERNEL_FAIL_SOURCE,      /* source missing, download or checksum failed, extraction */
	KERNEL_FAIL_PATCH,       /* a patch did not apply: error names the patch and file */
	KERNEL_FAIL_CONFIG,      /* a fragment is malformed or an option did not stick */
	KERNEL_FAIL_BUILD,       /* make failed: log and log_tail */
	KERNEL_FAIL_INTERRUPTED, /* SIGINT/SIGTERM */
	KERNEL_FAIL_LAB,         /* the lab itself (files, memory, spawn) */
};

struct kernel_artifact {
	char key[65];
	char dir[PATH_MAX];
	char image[PATH_MAX + 16];
	char config[PATH_MAX + 16];
	char log[PATH_MAX + 64];     /* build log: in the artifact, or logs/ for a failed build */
	char release[128];
	char source_id[256];
	char image_sha256[65];       /* of the image as stored; "" for an artifact stored before it
				      * was recorded (then not checked) */
	char text_sha256[65];        /* of vmlinux's .text (bisection: code identical to another
				      * build's); "" unknown: no objcopy, or an older artifact */
	int cached;                  /* found in the cache: nothing was built */
	double build_s;              /* configure + build wall time of this call */
	enum kernel_fail fail;
	char error[1024];            /* one line: why it failed */
	char *log_tail;              /* last lines of the log of a failed build (malloc'd) */
};

struct kernel_build_opts {
	const char *cache_dir;
	unsigned jobs;               /* 0: nproc */
	int force;                   /* configure and build even when the cache has it */
	volatile sig_atomic_t *interrupt;
	progress_fn *progress;
	void *progress_ud;
};
