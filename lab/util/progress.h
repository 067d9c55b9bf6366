/* Progress lines of long work (kernel builds, image builds, runs): each stage takes a callback
 * and its user data from its options and formats one line for it here. */
#pragma once
#include <stdarg.h>

typedef void progress_fn(void *ud, const char *msg);

/* Format fmt/ap (up to 1023 bytes) and hand the line to fn; nothing when fn is NULL. */
void progress_vemit(progress_fn *fn, void *ud, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
