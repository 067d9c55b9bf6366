#include "virt/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Only async-signal-safe calls below: the lab is multi-threaded when it forks. */
static int pid_is_guest(pid_t pid, const char *needle)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* getdents64 rather than opendir(): no malloc in a child forked from a threaded process. */
static void kill_guests(const char *needle)
{
	char buf[8192];
	int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 {
				unsigned long long d_ino;
				long long d_off;
				unsigned short d_reclen;
				unsigned char d_type;
				char d_name[];
			} *de = (void *)(buf + off);
			pid_t pid = (pid_t)atoi(de->d_name);

			if (pid > 1 && pid != getpid() && pid_is_guest(pid, needle))
				kill(pid, SIGKILL);
			off += de->d_reclen;
		}
	}
	close(fd);
}

static void guard_main(int rfd, const char *needle)
{
	char c;
	ssize_t n;

	/* Hold nothing of the lab's (its state-dir lock, libvirt sockets): only the pipe. */
	if (rfd > 3)
		close_range(3, (unsigned)rfd - 1, 0);
	close_range((unsigned)rfd + 1, ~0U, 0);
	/* A fork keeps the lab's command line: its own name at least tells `ps` and `pgrep`
	 * (without -f) that this is the guard, not a second lab. */
	prctl(PR_SET_NAME, "lab-guard");
	/* A Ctrl-C reaches the whole process group; the guard must outlive the lab. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	do
		n = read(rfd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1)
		_exit(0);
	/* The lab died.  Its QEMU may still be starting (the lab can die inside
	 * virDomainCreateXML), so look a few times. */
	for (int i = 0; i < 10; i++) {
		kill_guests(needle);
		usleep(200000);
	}
	_exit(0);
}

int guard_start(struct guard *g, const char *name)
{
	char needle[300];
	int p[2];
	pid_t pid;

	g->pid = 0;
	g->fd = -1;
	snprintf(needle, sizeof(needle), "guest=%s,", name);
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		close(p[1]);
		guard_main(p[0], needle);
	}
	close(p[0]);
	g->pid = pid;
	g->fd = p[1];
	return 0;
}

void guard_release(struct guard *g)
{
	if (g->fd >= 0) {
		if (write(g->fd, "x", 1) < 0) {
			/* The guard is gone already; nothing to release. */
		}
		close(g->fd);
		g->fd = -1;
	}
	if (g->pid > 0) {
		while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
			;
		g->pid = 0;
	}
}
