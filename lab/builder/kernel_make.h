/* Running the kernel's make (builder/kernel_make.c): configuring a variant's O= tree and building it. */
#pragma once

#include "builder/kernel_ctx.h"

#define KERNEL_LOG_TAIL_LINES 40 /* lines of a failed build's log kept in the artifact */

/* base target + fragments + olddefconfig in the O= tree, then the check; *final gets the
 * final .config text.  The tree's .config is kept as it is, without make, when its record
 * (kbuild_config_record) says nothing configuring reads has changed. */
int kbuild_configure(struct kctx *c, char **final);
/* After a successful build: record that final is what configuring this tree gives while
 * Kconfig's inputs stay as they are now. */
int kbuild_config_record(struct kctx *c, const char *final);
/* make TARGET (the image the build boots: vmlinux or bzImage) with progress lines; log at
 * obj/VARIANT/numalab-build.log.  count: the config is not the one the O= tree's objects were
 * built with (or there are none), so that most of the tree rebuilds: `make -n` counts the
 * steps first, for a percentage and an ETA. */
int kbuild_make(struct kctx *c, const char *target, const char *log_path, int count);
/* The sha256 of the built vmlinux's .text (objcopy): code identical to another build's shows
 * as an equal hash.  out is "" when it cannot be had (no objcopy, no ELF vmlinux): never a
 * reason to fail a build; only an interruption is an error. */
int kbuild_text_sha256(struct kctx *c, char out[65]);
/* Last lines of a log file (malloc'd, plain ASCII) or NULL. */
char *kbuild_log_tail(const char *path, unsigned lines);
