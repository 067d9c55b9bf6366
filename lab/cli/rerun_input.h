/* `lab bundle` and `lab rerun` name a report alike: a directory holding report.json, or the
 * file itself.  Said on stderr when it is neither. */
#pragma once
#include <stddef.h>

/* arg's report.json into buf: -ENOENT (said) when there is none. */
int cli_report_json(const char *arg, char *buf, size_t len);
/* prefix + the report's id + suffix into buf ("bundle-ID.tar.gz"); -EINVAL (said) when the
 * report cannot be read or has no usable id. */
int cli_report_id(const char *report_json, char *buf, size_t len, const char *prefix,
		  const char *suffix);
