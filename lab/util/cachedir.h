/* Where the lab's content-keyed caches (kernels, images, qemu) live by default: the system's
 * /var/cache/numalab/WHAT for root (a shared lab, labd), else the user's XDG cache,
 * $XDG_CACHE_HOME/numalab/WHAT or ~/.cache/numalab/WHAT, so that a plain user needs no
 * root to build or run.  Each cache's own variable ($LAB_KERNEL_CACHE ...) and option come
 * first (lab/builder/kernel.c, image.c, qemu.c). */
#pragma once
#include <stddef.h>
#include <sys/types.h>

#define CACHEDIR_SYSTEM "/var/cache/numalab"

/* The default directory of cache what ("kernels") for user uid, into buf. */
void cachedir_default(const char *what, uid_t uid, char *buf, size_t len);
/* A cache's directory: opt (an option) when given, else $env, else the default for this
 * process's user. */
void cachedir_pick(const char *opt, const char *env, const char *what, char *buf, size_t len);
