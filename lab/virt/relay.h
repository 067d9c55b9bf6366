/* A remote guest's serial port, relayed from libvirt's console stream into a local file, so
 * that the watcher (guest.c) and everything after it read a remote guest's console and results
 * exactly as a local one's.  The stream is non-blocking: relay_pump() takes what has arrived
 * and returns. */
#pragma once
#include <stddef.h>
#include <libvirt/libvirt.h>

struct relay {
	virStreamPtr st;
	int fd;
	size_t bytes;  /* received */
	size_t max;    /* written to the file at most (then counted only); 0: no bound */
	int eof, failed;
};

/* Open serial port dev ("serial0") of dom into path (truncated). */
int relay_open(virConnectPtr conn, virDomainPtr dom, const char *dev, const char *path,
	       size_t max, struct relay *rl);
/* Everything that has arrived into the file; 0, or -EIO when the stream failed. */
int relay_pump(struct relay *rl);
void relay_close(struct relay *rl);
