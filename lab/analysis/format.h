/* Numbers for the text table and the dashboard: NaN as "-", infinities as the caller's
 * words, anything else with a printf format.  Pure. */
#pragma once
#include <stddef.h>

const char *format_number(char *buf, size_t len, double v, const char *fmt, const char *pos_inf,
			  const char *neg_inf) __attribute__((format_arg(4)));
