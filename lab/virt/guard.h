/* A guard process that kills a guest's QEMU if the lab dies without destroying it.  libvirt's
 * embedded driver has no AUTODESTROY, and a QEMU it started outlives the process that
 * embedded it (seen here: a panicked guest kept running after virsh exited). */
#pragma once
#include <sys/types.h>

struct guard {
	pid_t pid;   /* the guard process, 0 when none */
	int fd;      /* write end of the pipe the guard waits on */
};

/* Start a guard, before the guest starts, for the QEMU whose command line names the guest
 * `name` (which must be unique to this lab process).  When the pipe closes without a
 * release byte, the guard kills every such QEMU. */
int guard_start(struct guard *g, const char *name);
/* The guest is gone (or destroyed): release the guard. */
void guard_release(struct guard *g);
