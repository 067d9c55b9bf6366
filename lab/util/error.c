#include "util/error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int error_setv(struct lab_error *err, const char *path, const char *fmt, va_list ap)
{
	if (!err)
		return -EINVAL;
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return -EINVAL;
}

int error_set(struct lab_error *err, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(err, path, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void error_set_file(struct lab_error *err, const char *file)
{
	if (err && file)
		snprintf(err->file, sizeof(err->file), "%s", file);
}

void error_format(const struct lab_error *err, char *buf, unsigned long len)
{
	snprintf(buf, len, "%s%s%s%s%s", err->file, err->file[0] ? ": " : "", err->path,
		 err->path[0] ? ": " : "", err->msg);
}
