#include "util/cachedir.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

void cachedir_default(const char *what, uid_t uid, char *buf, size_t len)
{
	const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");

	if (uid != 0 && x && x[0] == '/')
		snprintf(buf, len, "%s/numalab/%s", x, what);
	else if (uid != 0 && h && h[0] == '/')
		snprintf(buf, len, "%s/.cache/numalab/%s", h, what);
	else
		snprintf(buf, len, CACHEDIR_SYSTEM "/%s", what);
}

void cachedir_pick(const char *opt, const char *env, const char *what, char *buf, size_t len)
{
	const char *e = getenv(env);

	if (opt && opt[0])
		snprintf(buf, len, "%s", opt);
	else if (e && e[0])
		snprintf(buf, len, "%s", e);
	else
		cachedir_default(what, geteuid(), buf, len);
}
