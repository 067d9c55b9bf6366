/* How busy the host is, read from /proc for lab/core/hostnoise.h: samples around each run and
 * a bounded wait for a quiet host before a run under a host-clock timing model. */
#pragma once
#include <signal.h>

#include "core/hostnoise.h"

/* One sample now.  own_name: the running guest's libvirt name, whose QEMU is not counted as
 * "other" (NULL: count every QEMU).  0 or a negative errno. */
int hostload_sample(const char *own_name, struct host_sample *s);

/* Sample the host over half-second windows until one is quiet (hostnoise_quiet) or max_s passed or
 * *interrupt is set.  *waited_s: how long it waited; returns 1 quiet, 0 not quiet in time, or a
 * negative errno.  last gets the final sample (the run's "before"). */
int hostload_wait_quiet(double max_s, volatile sig_atomic_t *interrupt, double *waited_s,
			struct host_sample *last);
/* This machine's online CPUs (at least 1). */
unsigned hostload_cpus(void);
/* MemTotal and MemAvailable from /proc/meminfo, in MiB: 0, or -ENODATA when either is
 * missing. */
int hostload_memory(unsigned long *total_mib, unsigned long *available_mib);
/* Host cores other work leaves free, over a window of window_s seconds (hostnoise_free_cpus);
 * on a read error every online CPU counts as free. */
unsigned hostload_free_cpus(double window_s);
