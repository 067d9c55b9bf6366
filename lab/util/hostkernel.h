/* Picking a kernel image among the files a glob matches ("kernel": {"image": "/boot/vmlinuz-*"}
 * of configs/quick.json), the same for `lab run`, `lab doctor` and `lab image`.  The rule: the
 * highest version by strverscmp(3), so vmlinuz-6.1.0-10-amd64 wins over vmlinuz-6.1.0-9-amd64
 * (an alphabetical sort, glob's own order, would take -9). */
#pragma once
#include <stddef.h>

/* What `lab doctor` and `lab image` check: the kernel configs/quick.json boots. */
#define HOSTKERNEL_GLOB "/boot/vmlinuz-*"

/* The highest version among the paths matching pattern, into out; -ENOENT when none does. */
int hostkernel_pick(const char *pattern, char *out, size_t len);
