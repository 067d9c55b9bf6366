/* `lab run`: a parsed job -> guests booted (one after the other, or several at once under the
 * deterministic timing model) -> report.json. */
#pragma once
#include <stddef.h>

#include "core/job.h"
#include "run/request.h"

/* Returns 0 when a report was written (whatever the outcomes; see sum->status), or a
 * negative errno when the lab itself could not proceed; msg then says why. */
int run_job(const struct run_opts *o, const struct job *job, struct run_summary *sum,
	    char *msg, size_t msglen);
