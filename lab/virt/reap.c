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

/* Often enough that libvirt's kill(pid, 0) polling sees the probe gone at once. */
#define REAP_PERIOD_NS 50000000L

int reap_proc_stat(pid_t pid, pid_t *ppid, char *state, char *comm, size_t len)
{
	char path[64], buf[512];
	_cleanup_close_ int fd = -1;
	const char *open_paren, *close_paren;
	ssize_t n;
	size_t c;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return n < 0 ? -errno : -ENODATA;
	buf[n] = '\0';
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] != ' ' ||
	    !close_paren[2] || close_paren[3] != ' ')
		return -EINVAL;
	c = (size_t)(close_paren - open_paren - 1);
	if (comm && len) {
		c = c < len - 1 ? c : len - 1;
		memcpy(comm, open_paren + 1, c);
		comm[c] = '\0';
	}
	if (state)
		*state = close_paren[2];
	if (ppid)
		*ppid = (pid_t)atol(close_paren + 4);
	return 0;
}

unsigned reap_qemu_zombies(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t self = getpid(), ppid;
	unsigned n = 0;
	char state, comm[32];

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		pid_t pid;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = (pid_t)atol(e->d_name);
		if (reap_proc_stat(pid, &ppid, &state, comm, sizeof(comm)) < 0 || ppid != self ||
		    state != 'Z' || strncmp(comm, "qemu-system", 11) != 0)
			continue;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			n++;
	}
	closedir(d);
	return n;
}

static void *reap_main(void *arg)
{
	struct virt_reaper *rp = arg;
	const struct timespec ts = { 0, REAP_PERIOD_NS };

	while (!rp->quit) {
		reap_qemu_zombies();
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int reap_start(struct virt_reaper *rp)
{
	int r;

	rp->quit = 0;
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
