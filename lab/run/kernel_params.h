/* Kernel command-line parameters the lab derives from the host and the guest kernel. */
#pragma once

/* loops_per_jiffy for `lpj=`: the host's TSC rate over the guest kernel's CONFIG_HZ, read
 * from the config beside the image (a lab build's `config`, or Debian's /boot/config-VER for
 * /boot/vmlinuz-VER).  -ENOENT when either is unknown: then no lpj= is passed.
 *
 * Why: under TCG every secondary CPU fails calibrate_delay() ("Consider using lpj=") and
 * retries, which made 64-vCPU boots 5x slower: measured with a tinyconfig-based 6.12 kernel
 * (NO_HZ_IDLE, HZ=100; TCG on 2 host cores, busybox init), 98 s to power-off without lpj=,
 * 18 s with it.  The value only scales udelay() busy-waits; page-fault paths do not use it. */
int kparams_lpj(const char *kernel_image, unsigned long *lpj);
/* Pure: lpj from a TSC rate in kHz and HZ; 0 when either is 0. */
unsigned long kparams_lpj_from(unsigned long tsc_khz, unsigned long hz);
