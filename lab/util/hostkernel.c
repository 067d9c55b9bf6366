#include "util/hostkernel.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int hostkernel_pick(const char *pattern, char *out, size_t len)
{
	glob_t g = { 0 };

	if (glob(pattern, 0, NULL, &g) != 0) {
		globfree(&g);
		return -ENOENT;
	}
	qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), cmp_version);
	snprintf(out, len, "%s", g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return 0;
}
