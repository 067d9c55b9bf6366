#include "util/progress.h"

#include <stdio.h>

void progress_vemit(progress_fn *fn, void *ud, const char *fmt, va_list ap)
{
	char buf[1024];

	if (!fn)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	fn(ud, buf);
}
