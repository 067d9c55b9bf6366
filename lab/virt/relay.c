/* A remote serial port into a local file: see relay.h. */
#include "virt/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#define RELAY_CHUNK 65536

int relay_open(virConnectPtr conn, virDomainPtr dom, const char *dev, const char *path,
	       size_t max, struct relay *rl)
{
	memset(rl, 0, sizeof(*rl));
	rl->max = max;
	rl->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (rl->fd < 0)
		return -errno;
	rl->st = virStreamNew(conn, VIR_STREAM_NONBLOCK);
	/* FORCE: a console left open by a lab that died must not keep this one out. */
	if (!rl->st || virDomainOpenConsole(dom, dev, rl->st, VIR_DOMAIN_CONSOLE_FORCE) < 0) {
		relay_close(rl);
		return -EIO;
	}
	return 0;
}

static void relay_write(struct relay *rl, const char *buf, size_t n)
{
	size_t room = rl->max ? (rl->bytes < rl->max + RELAY_CHUNK ? rl->max + RELAY_CHUNK -
								     rl->bytes : 0)
			      : n;
	size_t done = 0;

	/* Past its bound by a chunk, enough for the watcher to see the overflow: no more. */
	if (n > room)
		n = room;
	while (done < n) {
		ssize_t w = write(rl->fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
}

int relay_pump(struct relay *rl)
{
	char buf[RELAY_CHUNK];

	while (rl->st && !rl->eof && !rl->failed) {
		int n = virStreamRecv(rl->st, buf, sizeof(buf));

		if (n == -2)
			return 0;
		if (n == 0) {
			rl->eof = 1;
			break;
		}
		if (n < 0) {
			rl->failed = 1;
			return -EIO;
		}
		relay_write(rl, buf, (size_t)n);
		rl->bytes += (size_t)n;
	}
	return rl->failed ? -EIO : 0;
}

void relay_close(struct relay *rl)
{
	if (rl->st) {
		if (rl->eof)
			virStreamFinish(rl->st);
		else
			virStreamAbort(rl->st);
		virStreamFree(rl->st);
		rl->st = NULL;
	}
	if (rl->fd >= 0)
		close(rl->fd);
	rl->fd = -1;
}
