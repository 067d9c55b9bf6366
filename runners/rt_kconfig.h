/* What the guest tells the host about its kernel (PROTOCOL.md, "kernel" and "vmstat" lines):
 * the .config it was built with, from /proc/config.gz (CONFIG_IKCONFIG_PROC), so the report
 * proves which kernel variant really ran, and the vma_lock_* counters of /proc/vmstat
 * (CONFIG_PER_VMA_LOCK_STATS). */
#pragma once
#include <jansson.h>

/* Longest .config sent; JSON escaping adds a little, and a line may be 1 MiB. */
#define RT_KCONFIG_MAX (768 * 1024)

/* {"t":"kernel","config":TEXT|null,"config_error":"why none"?,"vmstat":{...}|null}.  root
 * prefixes /proc ("" for the real one).  NULL only when out of memory. */
json_t *rt_kernel_line(const char *root);
/* {"t":"vmstat","vmstat":{"vma_lock_success":N,...}|null}. */
json_t *rt_vmstat_line(const char *root);
