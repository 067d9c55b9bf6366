/* Run a program from an argv array (never a shell string) and capture its output. */
#pragma once
#include <stddef.h>

/* Runs argv[0] (PATH lookup), stdin from /dev/null, stdout+stderr captured (at most max
 * bytes kept, the rest drained).  *status gets the exit code, or 128+signal.  Kills the
 * child after timeout_s seconds (0 = no limit) and returns -ETIMEDOUT. */
int spawn_capture(char *const argv[], size_t max, double timeout_s, char **out, int *status);
