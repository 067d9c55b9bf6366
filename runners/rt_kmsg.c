#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "proto/oomkill.h"
#include "rt.h"
#include "rt_kmsg.h"

#define KMSG_RECORD_MAX 8192 /* a record is at most 1 KiB of text plus its dictionary */

int rt_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* Every record available now into p; stops at the end (EAGAIN) or after the bound. */
static void kmsg_drain(int fd, struct oomkill_pick *p, unsigned *records)
{
	char rec[KMSG_RECORD_MAX];

	while (*records < RT_KMSG_MAX_RECORDS) {
		ssize_t n = read(fd, rec, sizeof(rec));

		if (n < 0 && (errno == EINTR || errno == EPIPE))
			continue; /* EPIPE: records were overwritten; the read goes on after them */
		if (n <= 0)
			return;
		(*records)++;
		oomkill_pick_record(p, rec, (size_t)n);
	}
}

json_t *rt_kmsg_oom(int fd, double wait_s)
{
	struct oomkill_pick p = {0};
	unsigned records = 0;
	double until = rt_now_s() + wait_s;

	kmsg_drain(fd, &p, &records);
	while (!p.kills && wait_s > 0 && rt_now_s() < until && records < RT_KMSG_MAX_RECORDS) {
		struct timespec ts = {0, 100 * 1000 * 1000};

		nanosleep(&ts, NULL);
		kmsg_drain(fd, &p, &records);
	}
	return oomkill_pick_json(&p);
}
