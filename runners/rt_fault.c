/* Hostile output for the host's tests (rt_fault.h): each fault writes what a broken or
 * malicious guest could, built once into a block that is written again and again, so that
 * the guest's CPU (slow under TCG) goes into the serial port and not into formatting. */
#include "rt_fault.h"

#include <errno.h>
#include <string.h>

#include "rt.h"

#define BLOCK (64u * 1024u)

/* Fill buf (len bytes) with copies of line (n bytes, newline included); returns the bytes
 * used: a whole number of lines. */
static size_t fill_lines(char *buf, size_t len, const char *line, size_t n)
{
	size_t used = 0;

	while (used + n <= len) {
		memcpy(buf + used, line, n);
		used += n;
	}
	return used;
}

/* total bytes of buf[0..n) repeated on fd. */
static int write_repeated(int fd, const char *buf, size_t n, unsigned long total)
{
	for (unsigned long sent = 0; sent < total; sent += n) {
		int r = rt_write_full(fd, buf, n);

		if (r < 0)
			return r;
	}
	return 0;
}

/* One line of FAULT_LONG_LINE_BYTES: a heartbeat whose padding string never ends in time. */
static int long_line(int fd, char *buf)
{
	static const char head[] = "{\"t\":\"heartbeat\",\"pad\":\"";
	int r = rt_write_full(fd, head, sizeof(head) - 1);

	memset(buf, 'x', BLOCK);
	if (r == 0)
		r = write_repeated(fd, buf, BLOCK, FAULT_LONG_LINE_BYTES);
	return r < 0 ? r : rt_write_full(fd, "\"}\n", 3);
}

/* Lines that look like results but whose strings hold bytes that are not UTF-8 (a lone
 * continuation byte, an overlong NUL, a surrogate, 0xff). */
static size_t bad_utf8(char *buf)
{
	static const char line[] = "{\"t\":\"error\",\"msg\":\"\x80 \xc0\x80 \xed\xa0\x80 \xff\"}\n"
				   "{\"t\":\"workload-start\",\"index\":0,\"name\":\"pft\xfe\"}\n";

	return fill_lines(buf, 4096, line, sizeof(line) - 1);
}

/* A line of 100000 '[' then as many ']': valid JSON nested far beyond any parser's depth. */
static size_t deep_json(char *buf)
{
	static const char head[] = "{\"t\":\"topology\",\"nodes\":";
	const size_t depth = 30000;
	size_t n = sizeof(head) - 1;

	memcpy(buf, head, n);
	memset(buf + n, '[', depth);
	memset(buf + n + depth, ']', depth);
	n += 2 * depth;
	memcpy(buf + n, "}\n", 2);
	return n + 2;
}

int rt_fault_hostile(enum fault f, int channel, int console)
{
	static const char beat[] = "{\"t\":\"heartbeat\",\"uptime_s\":1.5}\n";
	static const char spam[] = "numalab-agent: fault=flood-console: spam spam spam spam\n";
	static char buf[BLOCK];
	size_t n;

	switch (f) {
	case FAULT_FLOOD_CHANNEL:
		n = fill_lines(buf, BLOCK, beat, sizeof(beat) - 1);
		write_repeated(channel, buf, n, FAULT_FLOOD_BYTES);
		return 1;
	case FAULT_LONG_LINE:
		long_line(channel, buf);
		return 1;
	case FAULT_BAD_UTF8:
		n = bad_utf8(buf);
		write_repeated(channel, buf, n, 256ul * n);
		return 1;
	case FAULT_DEEP_JSON:
		n = deep_json(buf);
		write_repeated(channel, buf, n, 16ul * n);
		return 1;
	case FAULT_FLOOD_CONSOLE:
		n = fill_lines(buf, BLOCK, spam, sizeof(spam) - 1);
		write_repeated(console, buf, n, FAULT_FLOOD_BYTES);
		return 1;
	case FAULT_NONE:
	case FAULT_PANIC:
	case FAULT_HANG:
		break;
	}
	return 0;
}
