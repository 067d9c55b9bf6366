/* Bounded line assembly (linesplit.h). */
#include "util/linesplit.h"

#include <errno.h>
#include <stdlib.h>

int linesplit_init(struct linesplit *ls, size_t max)
{
	ls->line = malloc(max + 1);
	ls->len = 0;
	ls->max = max;
	ls->dropping = 0;
	return ls->line ? 0 : -ENOMEM;
}

void linesplit_free(struct linesplit *ls)
{
	free(ls->line);
	ls->line = NULL;
	ls->len = 0;
}

size_t linesplit_feed(struct linesplit *ls, const char *buf, size_t n,
		      void (*on_line)(const char *line, size_t len, void *ud), void *ud)
{
	size_t dropped = 0;

	for (size_t i = 0; i < n; i++) {
		char c = buf[i];

		if (c == '\n') {
			if (!ls->dropping) {
				ls->line[ls->len] = '\0';
				on_line(ls->line, ls->len, ud);
			}
			ls->len = 0;
			ls->dropping = 0;
			continue;
		}
		if (ls->dropping)
			continue;
		if (ls->len >= ls->max) {
			ls->dropping = 1;
			dropped++;
			continue;
		}
		ls->line[ls->len++] = c;
	}
	return dropped;
}
