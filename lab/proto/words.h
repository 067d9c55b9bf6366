/* Word lists: the NULL-terminated string arrays that spell the allowed values of the contract's
 * enumerations (fault names, knob modes), and the way error messages list them.  Pure. */
#pragma once
#include <stddef.h>

/* The index of s in words, or -1 (also for a NULL s). */
int words_index(const char *const *words, const char *s);
/* The words quoted and separated by ", ", with `last` (", " or " or ") before the final one:
 * "\"a\", \"b\", \"c\"" or "\"a\" or \"b\"".  Cut short when buf is too small. */
void words_list(const char *const *words, const char *last, char *buf, size_t len);
