/* Running the kernel's make (kbuild.c): configuring a variant's O= tree and building it. */
#pragma once

#include "stage/kctx.h"

#define KERNEL_LOG_TAIL_LINES 40 /* lines of a failed build's log kept in the artifact */

/* base target + fragments + olddefconfig in the O= tree, then the check; *final gets the
 * final .config text. */
int kbuild_configure(struct kctx *c, char **final);
/* make bzImage with progress lines; log at obj/VARIANT/numalab-build.log. */
int kbuild_make(struct kctx *c, const char *log_path);
/* Last lines of a log file (malloc'd, plain ASCII) or NULL. */
char *kbuild_log_tail(const char *path, unsigned lines);
