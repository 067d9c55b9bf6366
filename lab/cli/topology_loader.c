/* Resolves a job's "topology": "NAME" to a file: topologies/NAME.json beside the job, then
 * $LAB_ROOT/configs/topologies/, then configs/topologies/ of the checkout the lab binary was
 * built in (build/lab -> ../configs/topologies). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

#define TOPOLOGY_MAX_SIZE (4u << 20)

static void exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	buf[n > 0 ? n : 0] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
}

int cli_load_topology(const char *ref, void *ud, json_t **out, struct lab_error *err)
{
	const struct cli_topo_ctx *ctx = ud;
	const char *root = getenv("LAB_ROOT");
	char paths[3][PATH_MAX + 64], dir[PATH_MAX];
	int n = 0;

	if (strchr(ref, '/') || strstr(ref, ".json")) {
		snprintf(paths[n++], sizeof(paths[0]), "%s%s%s", ref[0] == '/' ? "" : ctx->job_dir,
			 ref[0] == '/' ? "" : "/", ref);
	} else {
		snprintf(paths[n++], sizeof(paths[0]), "%s/topologies/%s.json", ctx->job_dir, ref);
		if (root && root[0])
			snprintf(paths[n++], sizeof(paths[0]), "%s/configs/topologies/%s.json", root,
				 ref);
		exe_dir(dir, sizeof(dir));
		snprintf(paths[n++], sizeof(paths[0]), "%s/../configs/topologies/%s.json", dir, ref);
	}
	for (int i = 0; i < n; i++) {
		if (!fs_exists(paths[i]))
			continue;
		return jsonio_load_file(paths[i], TOPOLOGY_MAX_SIZE, out, err);
	}
	return error_set(err, "topology", "no topology named \"%s\" (looked in %s)", ref,
			 paths[0]);
}
