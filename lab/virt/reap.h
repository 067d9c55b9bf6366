/* Zombie QEMU processes of the embedded driver, reaped at once.
 *
 * The embedded driver runs inside the lab, which is a child subreaper (virt_open): the QEMU
 * processes libvirt daemonizes, its capability probes included, are re-parented to the lab.
 * libvirt waits for a stopped QEMU to vanish by polling kill(pid, 0), which a zombie still
 * answers; nobody else reaps the lab's children, so on a fresh state directory each of the four
 * capability probes sat as a zombie for 40 s ("Failed to terminate process N with SIGKILL:
 * Device or resource busy" in libvirt's log) and opening libvirt took 2 min 43 s.  A thread
 * reaps them while the connection is open: only zombies that are children of the lab and
 * whose command is QEMU's, so no other child's exit status is ever taken. */
#pragma once
#include <pthread.h>
#include <sys/types.h>

struct virt_reaper {
	pthread_t thread;
	int started;
	volatile int quit;
};

/* Start (0 or a negative errno) and stop the reaping thread. */
int reap_start(struct virt_reaper *rp);
void reap_stop(struct virt_reaper *rp);
/* One pass: every zombie child of this process whose command starts with "qemu-system" is
 * reaped.  Returns how many. */
unsigned reap_qemu_zombies(void);
/* From /proc/PID/stat: the parent, the state letter and the command (at most len - 1 bytes).
 * 0 or a negative errno. */
int reap_proc_stat(pid_t pid, pid_t *ppid, char *state, char *comm, size_t len);
