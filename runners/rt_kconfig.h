/* What the guest tells the host about its kernel (PROTOCOL.md, "kernel" and "vmstat" lines):
 * the .config it was built with, from /proc/config.gz (CONFIG_IKCONFIG_PROC), so the report
 * proves which kernel variant really ran, and the vma_lock_* counters of /proc/vmstat
 * (CONFIG_PER_VMA_LOCK_STATS). */
#pragma once
#include <jansson.h>

/* Longest .config sent; JSON escaping adds a little, and a line may be 1 MiB. */
#define RT_KCONFIG_MAX (768 * 1024)

/* Where the host puts the .config it built the kernel with (initramfs boots only). */
#define RT_KCONFIG_EXPECTED "/numalab/kernel.config"

/* {"t":"kernel","config":TEXT|null,"config_error":"why none"?,"vmstat":{...}|null}, or
 * {"t":"kernel","config_same":true,"vmstat":...} when /proc/config.gz holds byte for byte
 * the text of RT_KCONFIG_EXPECTED: 55 kB less on a serial port that carries ~130 kB/s under
 * TCG.  root prefixes both paths ("" for the real ones).  NULL only when out of memory. */
json_t *rt_kernel_line(const char *root);
/* {"t":"vmstat","vmstat":{"vma_lock_success":N,...}|null}. */
json_t *rt_vmstat_line(const char *root);
