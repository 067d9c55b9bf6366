/* The lab's state directory (statedir.h). */
#include <stdio.h>
#include <stdlib.h>

#include "util/statedir.h"

int statedir_default(char *buf, size_t len)
{
	const char *s = getenv("LAB_STATE_DIR"), *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");

	if (s && s[0])
		snprintf(buf, len, "%s", s);
	else if (x && x[0])
		snprintf(buf, len, "%s/numalab", x);
	else if (h && h[0])
		snprintf(buf, len, "%s/.local/state/numalab", h);
	else
		snprintf(buf, len, "/var/lib/numalab");
	return 0;
}
