/* Zombie QEMU processes of the embedded driver, reaped at once.
 *
 * The embedded driver runs inside the lab, which is a child subreaper (virt_open): the QEMU
 * processes libvirt daemonizes, its capability probes included, are re-parented to the lab.
 * libvirt waits for a stopped QEMU to vanish by polling kill(pid, 0), which a zombie still
 * answers; nobody else reaps the lab's children, so on a fresh state directory each of the four
 * capability probes sat as a zombie for 40 s ("Failed to terminate process N with SIGKILL:
 * Device or resource busy" in libvirt's log) and opening libvirt took 2 min 43 s.  A thread
 * reaps them while the connection is open: only zombies that are children of the lab, whose
 * command is QEMU's, and that nobody waited for within REAP_GRACE_S.  The grace matters:
 * libvirt runs inside the lab, so the QEMU it forks before QEMU daemonizes itself is also
 * the lab's child, and libvirt waits for that one itself; taken first, libvirt's wait fails
 * with ECHILD and the capability probe with it (seen once when reaping at once). */
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

/* Start (0 or a negative errno) and stop the reaping thread. */
int reap_start(struct virt_reaper *rp);
void reap_stop(struct virt_reaper *rp);
/* One pass at time now: every zombie child of this process whose command starts with
 * "qemu-system" and that rp saw as a zombie REAP_GRACE_S or more ago is reaped; the others are
 * remembered.  Returns how many were reaped. */
unsigned reap_qemu_zombies(struct virt_reaper *rp, double now);
/* From /proc/PID/stat: the parent, the state letter and the command (at most len - 1 bytes).
 * 0 or a negative errno. */
int reap_proc_stat(pid_t pid, pid_t *ppid, char *state, char *comm, size_t len);
