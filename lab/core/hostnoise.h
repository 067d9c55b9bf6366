/* How busy the host was around a run, from /proc text, and whether that run was measured
 * under contention.  Pure: callers read /proc/loadavg, /proc/stat and the process list
 * (lab/run/hostload.c) and hand the text and counts in.
 *
 * Under a host-clock timing model (tcg, kvm) every cycle another process takes from the
 * guest's host threads shows up as slower guest code, so a run is flagged "contended" when,
 * between its start and its end, other work took a noticeable share of the host: busy host
 * time beyond what the run's own QEMU used, steal time (the host is itself a guest), or
 * another QEMU running.  Under icount the flag is still recorded, but it does not move
 * figures (the point of that model). */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* Others' share of the host's CPU time during the run above which it is contended. */
#define HOSTNOISE_BUSY_LIMIT 0.25
/* Steal share above which it is contended. */
#define HOSTNOISE_STEAL_LIMIT 0.05
/* A quiet host, before a measurement: others' share over a short window at most this. */
#define HOSTNOISE_QUIET_LIMIT 0.15

/* One look at the host. */
struct host_sample {
	double t;                    /* seconds, monotonic */
	double load1, load5;         /* /proc/loadavg */
	unsigned long running;       /* runnable tasks (procs_running of /proc/stat) */
	unsigned long long busy;     /* jiffies not idle nor iowait nor steal, all CPUs */
	unsigned long long steal;    /* jiffies */
	unsigned long long total;    /* jiffies, all fields */
	unsigned ncpus;              /* "cpuN" lines */
	unsigned other_qemu;         /* QEMU processes that are not this run's */
};

/* Parse /proc/loadavg and /proc/stat text into *s (t and other_qemu left to the caller).
 * -EINVAL when either is not in the kernel's format. */
int hostnoise_parse(const char *loadavg, const char *stat, struct host_sample *s);

/* The run between two samples. */
struct host_noise {
	struct host_sample before, after;
	double own_cpu_s;            /* CPU seconds of the run's own QEMU; < 0 unknown */
	double others_share;         /* others' share of the host's CPU time, 0..1; NAN unknown */
	double steal_share;          /* 0..1 */
	int contended;
	char why[256];               /* what made it contended; "" otherwise */
};

/* Fill n->others_share, steal_share, contended and why from n->before, after, own_cpu_s.
 * hz: jiffies per second (sysconf(_SC_CLK_TCK) at the caller). */
void hostnoise_judge(struct host_noise *n, long hz);

/* Whether a short window [a, b] looked quiet (others' share below HOSTNOISE_QUIET_LIMIT, no
 * other QEMU); own_cpu_s as above, usually 0 before a guest starts. */
int hostnoise_quiet(const struct host_sample *a, const struct host_sample *b, long hz);

/* Host cores that other work left free between a and b: the CPUs less the others' busy time in
 * whole cores (rounded), at least 1. */
unsigned hostnoise_free_cpus(const struct host_sample *a, const struct host_sample *b, long hz);
/* The report's "host.noise" object (reports/SCHEMA.md); NULL on ENOMEM. */
json_t *hostnoise_json(const struct host_noise *n, double waited_s, int quiet_wait);
