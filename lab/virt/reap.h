/* Zombie QEMU processes of the embedded driver, reaped at once.
 *
 * The embedded driver runs inside the lab, which is a child subreaper (virt_open): the QEMU
 * processes libvirt daemonizes, its capability probes included, are re-parented to the lab.
 * libvirt waits for a stopped QEMU to vanish by polling kill(pid, 0), which a zombie still
 * answers; nobody else reaps the lab's children, so on a fresh state directory each of the four
 * capability probes sat as a zombie for 40 s ("Failed to terminate process N with SIGKILL:
 * Device or resource busy" in libvirt's log) and opening libvirt took 2 min 43 s.  A thread
 * reaps them while the connection is open: only zombies that are children of the lab and
 * whose command is QEMU's.  Which ones at once is told by the session: libvirt runs inside
 * the lab, so the QEMU it forks for a capability probe is also the lab's child, in the lab's
 * session, and libvirt waits for that one itself; taken first, libvirt's wait fails with
 * ECHILD and the probe with it (seen once when reaping everything at once).  QEMU's
 * -daemonize (setsid, then fork) puts the probe that stays, and its intermediate, in a
 * session of their own: orphans nobody waits for, reaped at once.  A zombie in the lab's
 * session is reaped only when nobody waited for it within REAP_GRACE_S; when the probes
 * waited that long too, each of the four cost 2.2 s, 9 s of a fresh state directory's
 * first connection. */
#pragma once
#include <pthread.h>
#include <sys/types.h>

/* A zombie nobody waited for this long is an orphan's (libvirt waits for its own children as
 * soon as they exit). */
#define REAP_GRACE_S 2.0
#define REAP_MAX_SEEN 64

struct reap_seen {
	pid_t pid;
	double since;            /* when first seen as a zombie */
};

struct virt_reaper {
	pthread_t thread;
	int started;
	volatile int quit;
	struct reap_seen seen[REAP_MAX_SEEN];
	unsigned nr_seen;
};

/* What the reaper reads of /proc/PID/stat. */
struct reap_stat {
	pid_t ppid;
	pid_t session;
	char state;
	char comm[32];           /* cut to fit */
};

/* Start (0 or a negative errno) and stop the reaping thread. */
int reap_start(struct virt_reaper *rp);
void reap_stop(struct virt_reaper *rp);
/* Whether a zombie QEMU child is reaped now: at once when it is in another session than
 * own_session (an orphan of a QEMU that daemonized itself), else once it has been a zombie
 * for REAP_GRACE_S. */
int reap_due(const struct reap_stat *st, pid_t own_session, double zombie_s);
/* One pass at time now: every zombie child of this process whose command starts with
 * "qemu-system" and that reap_due() gives is reaped; the others are remembered.  Returns how
 * many were reaped. */
unsigned reap_qemu_zombies(struct virt_reaper *rp, double now);
/* A /proc/PID/stat line, "pid (comm) state ppid pgrp session ...", into st: 0 or -EINVAL. */
int reap_stat_parse(const char *line, struct reap_stat *st);
/* /proc/PID/stat of pid into st: 0 or a negative errno. */
int reap_proc_stat(pid_t pid, struct reap_stat *st);
