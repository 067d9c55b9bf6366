/* labd's reading of `lab run`'s progress lines into events (worker_line_event): the lines
 * lab/run/engine.c prints, and lines that only look like them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/worker.h"
#include "tap.h"

struct line_case {
	const char *line, *type, *want; /* want: the event's data, compact with sorted keys */
};

static const struct line_case cases[] = {
	{ "lab: run 2/3: booting baseline, 8 vCPUs, 4 nodes (tcg)", "run-started",
	  "{\"index\":1,\"total\":3}" },
	{ "lab: run 1/3: ok (all workloads completed) boot 12.1 s, total 15.0 s", "run-ended",
	  "{\"index\":0,\"reason\":\"all workloads completed\",\"status\":\"ok\",\"total\":3}" },
	{ "lab: run 3/3: hang (no progress from the guest for 15 s (timeout 5 s; the guest had "
	  "0.8 s of host CPU in it)) boot 14.1 s, total 30.7 s", "run-ended",
	  "{\"index\":2,\"reason\":\"no progress from the guest for 15 s (timeout 5 s; the guest "
	  "had 0.8 s of host CPU in it)\",\"status\":\"hang\",\"total\":3}" },
	{ "lab: run 1/2: build-failure, not booted: patch 0001 does not apply", "run-ended",
	  "{\"index\":0,\"reason\":\"not booted: patch 0001 does not apply\","
	  "\"status\":\"build-failure\",\"total\":2}" },
	{ "lab: run 2/3: infra-error, not run again: interrupted: the lab was stopped", "run-ended",
	  "{\"index\":1,\"reason\":\"not run again: interrupted: the lab was stopped\","
	  "\"status\":\"infra-error\",\"total\":3}" },
	{ "lab: run 1/3: kept from the earlier report", "progress",
	  "{\"msg\":\"run 1/3: kept from the earlier report\"}" },
	{ "lab: opening libvirt", "progress", "{\"msg\":\"opening libvirt\"}" },
	{ "lab: run 1: the host did not get quiet in 60 s", "progress",
	  "{\"msg\":\"run 1: the host did not get quiet in 60 s\"}" },
	{ "lab: run 4/3: booting x", "progress", "{\"msg\":\"run 4/3: booting x\"}" },
	{ "lab: run 0/3: booting x", "progress", "{\"msg\":\"run 0/3: booting x\"}" },
	{ "report: /tmp/x/report.json", "progress", "{\"msg\":\"report: /tmp/x/report.json\"}" },
	{ "lab: run 1/1: OK?", "progress", "{\"msg\":\"run 1/1: OK?\"}" },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct line_case *c = &cases[i];
		const char *type = NULL;
		json_t *j = worker_line_event(c->line, &type);
		char *got = j ? json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT) : NULL;

		tap_ok(type && !strcmp(type, c->type), "%.50s: %s", c->line, c->type);
		if (!tap_ok(got && !strcmp(got, c->want), "... data %s", c->want))
			printf("# got %s\n", got ? got : "(null)");
		free(got);
		json_decref(j);
	}
	return tap_done();
}
