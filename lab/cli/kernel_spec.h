/* `lab run JOB --kernel SPEC...`: the job's kernels replaced on the command line.  SPEC is
 * [LABEL=]VARIANT[+PATCH...]: a variant name or path, and patches on top of it (a variant of
 * its own is written for them under STATE/variants/, extending VARIANT). */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* The "kernels" array for specs[0..n), variant paths and patches made absolute from the
 * current directory; derived variants written under state_dir.  NULL with msg said on
 * failure (a bad spec: *bad 1). */
json_t *kernel_spec_array(char *const *specs, size_t n, const char *state_dir, char *msg,
			  size_t len, int *bad);
