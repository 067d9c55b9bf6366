#include "run/hostload.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"

/* /proc/stat grows with the CPU count: 512 CPUs take about 60 KiB. */
#define STAT_MAX (1u << 20)
#define SMALL_MAX 4096

/* /proc/PID/WHAT into buf (NUL-terminated); the bytes read, or -1. */
static ssize_t read_proc(const char *pid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Whether process pid is a QEMU system emulator other than own_name's. */
static int other_qemu(const char *pid, const char *own_name)
{
	char buf[SMALL_MAX];
	size_t own = own_name ? strlen(own_name) : 0;
	ssize_t n;

	if (read_proc(pid, "comm", buf, sizeof(buf)) <= 0 || strncmp(buf, "qemu-system-", 12))
		return 0;
	if (!own_name)
		return 1;
	/* The command line holds "-name guest=NAME,..." (NUL-separated arguments). */
	n = read_proc(pid, "cmdline", buf, sizeof(buf));
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
		const char *g = strstr(buf + i, "guest=");

		if (g && !strncmp(g + 6, own_name, own) && (g[6 + own] == ',' || g[6 + own] == '\0'))
			return 0;
	}
	return 1;
}

static unsigned count_other_qemu(const char *own_name)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]) && other_qemu(e->d_name, own_name))
			n++;
	closedir(d);
	return n;
}

int hostload_sample(const char *own_name, struct host_sample *s)
{
	_cleanup_free_ char *la = NULL, *st = NULL;
	int r;

	memset(s, 0, sizeof(*s));
	if ((r = fs_read_file("/proc/loadavg", SMALL_MAX, &la, NULL)) < 0 ||
	    (r = fs_read_file("/proc/stat", STAT_MAX, &st, NULL)) < 0)
		return r;
	s->t = clock_now_s();
	if ((r = hostnoise_parse(la, st, s)) < 0)
		return r;
	s->other_qemu = count_other_qemu(own_name);
	return 0;
}

int hostload_wait_quiet(double max_s, volatile sig_atomic_t *interrupt, double *waited_s,
			struct host_sample *last)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct host_sample a;
	double t0 = clock_now_s();
	int r;

	*waited_s = 0;
	if ((r = hostload_sample(NULL, &a)) < 0)
		return r;
	for (;;) {
		struct timespec half = {0, 500000000};

		nanosleep(&half, NULL);
		if ((r = hostload_sample(NULL, last)) < 0)
			return r;
		*waited_s = clock_now_s() - t0;
		if (hostnoise_quiet(&a, last, hz))
			return 1;
		if (*waited_s >= max_s || (interrupt && *interrupt))
			return 0;
		a = *last;
	}
}

unsigned hostload_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned)n : 1;
}

unsigned hostload_free_cpus(double window_s)
{
	struct host_sample a, b;
	struct timespec ts = { (time_t)window_s,
			       (long)((window_s - (double)(time_t)window_s) * 1e9) };

	if (hostload_sample(NULL, &a) < 0)
		return hostload_cpus();
	nanosleep(&ts, NULL);
	if (hostload_sample(NULL, &b) < 0)
		return hostload_cpus();
	return hostnoise_free_cpus(&a, &b, sysconf(_SC_CLK_TCK));
}

/* MemTotal and MemAvailable of /proc/meminfo, in MiB. */
int hostload_memory(unsigned long *total_mib, unsigned long *available_mib)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	unsigned long kib;

	*total_mib = *available_mib = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemTotal: %lu kB", &kib) == 1)
			*total_mib = kib >> 10;
		else if (sscanf(line, "MemAvailable: %lu kB", &kib) == 1)
			*available_mib = kib >> 10;
	}
	return *total_mib && *available_mib ? 0 : -ENODATA;
}
