#include "analysis/format.h"

#include <math.h>
#include <stdio.h>

const char *format_number(char *buf, size_t len, double v, const char *fmt, const char *pos_inf,
			  const char *neg_inf)
{
	if (isnan(v))
		return "-";
	if (isinf(v))
		return v > 0 ? pos_inf : neg_inf;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, len, fmt, v);
#pragma GCC diagnostic pop
	return buf;
}
