/* Bytes as they arrive -> complete lines, each at most max bytes: a line longer than that is
 * dropped whole (counted), up to its newline.  The host's framing of what a guest writes to
 * the results channel (lab/virt/guest.c); pure, fuzzed with the channel's reader
 * (lab/fuzz/fuzz_results.c). */
#pragma once
#include <stddef.h>

struct linesplit {
	char *line;       /* the partial line, max + 1 bytes */
	size_t len, max;
	int dropping;     /* inside an over-long line: skip to its newline */
};

/* 0 or -ENOMEM. */
int linesplit_init(struct linesplit *ls, size_t max);
void linesplit_free(struct linesplit *ls);
/* Feed n bytes: on_line gets each complete line (without its newline, NUL-terminated; the
 * buffer is reused after it returns).  Returns how many lines were dropped as too long. */
size_t linesplit_feed(struct linesplit *ls, const char *buf, size_t n,
		      void (*on_line)(const char *line, size_t len, void *ud), void *ud);
