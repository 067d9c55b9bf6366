/* Resolves a job's "topology": "NAME" to a file: topologies/NAME.json beside the job, then
 * configs/topologies/NAME.json found as util/checkout.h says ($LAB_ROOT, the lab binary's
 * checkout, the current directory). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

#define TOPOLOGY_MAX_SIZE (4u << 20)

int cli_load_topology(const char *ref, void *ud, json_t **out, struct lab_error *err)
{
	const struct cli_topo_ctx *ctx = ud;
	char beside[PATH_MAX + 64], rel[PATH_MAX], found[PATH_MAX + 64];

	if (strchr(ref, '/') || strstr(ref, ".json")) {
		snprintf(beside, sizeof(beside), "%s%s%s", ref[0] == '/' ? "" : ctx->job_dir,
			 ref[0] == '/' ? "" : "/", ref);
		if (fs_exists(beside))
			return jsonio_load_file(beside, TOPOLOGY_MAX_SIZE, out, err);
	} else {
		snprintf(beside, sizeof(beside), "%s/topologies/%s.json", ctx->job_dir, ref);
		if (fs_exists(beside))
			return jsonio_load_file(beside, TOPOLOGY_MAX_SIZE, out, err);
		snprintf(rel, sizeof(rel), "configs/topologies/%s.json", ref);
		if (checkout_find(rel, found, sizeof(found)) == 0)
			return jsonio_load_file(found, TOPOLOGY_MAX_SIZE, out, err);
	}
	return error_set(err, "topology", "no topology named \"%s\" (looked in %s)", ref,
			 beside);
}
