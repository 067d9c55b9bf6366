#include "virt/reap.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/clock.h"

/* Often enough that libvirt's kill(pid, 0) polling sees an orphan gone soon after it exits. */
#define REAP_PERIOD_NS 100000000L

int reap_stat_parse(const char *line, struct reap_stat *st)
{
	const char *open_paren = strchr(line, '('), *close_paren = strrchr(line, ')');
	char *end;
	long f[3];
	size_t c;

	/* comm may hold spaces and parentheses: it ends at the last ')'. */
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ' ||
	    !close_paren[2] || close_paren[3] != ' ')
		return -EINVAL;
	end = (char *)close_paren + 3;
	for (int i = 0; i < 3; i++) { /* ppid pgrp session */
		const char *p = end;

		f[i] = strtol(p, &end, 10);
		if (end == p)
			return -EINVAL;
	}
	c = (size_t)(close_paren - open_paren - 1);
	c = c < sizeof(st->comm) - 1 ? c : sizeof(st->comm) - 1;
	memcpy(st->comm, open_paren + 1, c);
	st->comm[c] = '\0';
	st->state = close_paren[2];
	st->ppid = (pid_t)f[0];
	st->session = (pid_t)f[2];
	return 0;
}

int reap_proc_stat(pid_t pid, struct reap_stat *st)
{
	char path[64], buf[512];
	_cleanup_close_ int fd = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return n < 0 ? -errno : -ENODATA;
	buf[n] = '\0';
	return reap_stat_parse(buf, st);
}

int reap_due(const struct reap_stat *st, pid_t own_session, double zombie_s)
{
	return st->session != own_session || zombie_s >= REAP_GRACE_S;
}

/* How long pid has been seen as a zombie, remembering it from now on. */
static double reap_age(struct virt_reaper *rp, const struct reap_seen *was, unsigned nr_was,
		       pid_t pid, double now)
{
	double since = now;

	for (unsigned i = 0; i < nr_was; i++)
		if (was[i].pid == pid)
			since = was[i].since;
	if (rp->nr_seen < REAP_MAX_SEEN)
		rp->seen[rp->nr_seen++] = (struct reap_seen){ pid, since };
	return now - since;
}

unsigned reap_qemu_zombies(struct virt_reaper *rp, double now)
{
	struct reap_seen was[REAP_MAX_SEEN];
	unsigned nr_was = rp->nr_seen, n = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid(), session = getsid(0);
	struct reap_stat st;

	if (!d)
		return 0;
	memcpy(was, rp->seen, nr_was * sizeof(was[0]));
	rp->nr_seen = 0; /* zombies not seen again were reaped by someone else */
	while ((e = readdir(d))) {
		pid_t pid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)atol(e->d_name);
		if (reap_proc_stat(pid, &st) < 0 || st.ppid != self || st.state != 'Z' ||
		    strncmp(st.comm, "qemu-system", 11) != 0)
			continue;
		if (reap_due(&st, session, reap_age(rp, was, nr_was, pid, now)) &&
		    waitpid(pid, NULL, WNOHANG) == pid) {
			/* Gone: forget it (reap_age remembered it last). */
			if (rp->nr_seen && rp->seen[rp->nr_seen - 1].pid == pid)
				rp->nr_seen--;
			n++;
		}
	}
	closedir(d);
	return n;
}

static void *reap_main(void *arg)
{
	struct virt_reaper *rp = arg;
	const struct timespec ts = { 0, REAP_PERIOD_NS };

	while (!rp->quit) {
		reap_qemu_zombies(rp, clock_now_s());
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int reap_start(struct virt_reaper *rp)
{
	int r;

	rp->quit = 0;
	rp->nr_seen = 0;
	r = pthread_create(&rp->thread, NULL, reap_main, rp);
	if (r != 0)
		return -r;
	rp->started = 1;
	return 0;
}

void reap_stop(struct virt_reaper *rp)
{
	if (!rp->started)
		return;
	rp->quit = 1;
	pthread_join(rp->thread, NULL);
	rp->started = 0;
}
