/* What a timing model can show of a series (analysis/modelfit.h): the cases in
 * lab/tests/data/modelfit/cases.tsv against lab/tests/golden/modelfit.txt, one line each:
 * "inside|partly|outside<TAB>why".  UPDATE_GOLDEN=1 rewrites the golden. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/modelfit.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/strbuf.h"

static const char *const fit_names[] = { "inside", "partly", "outside" };

/* One case line: key, cpus, workload, params, metric, tasks (tab-separated). */
static int run_case(char *line, struct strbuf *out)
{
	char *f[6], *save = NULL, why[512];
	json_t *params;
	enum modelfit r;
	int n = 0;

	for (char *t = strtok_r(line, "\t", &save); t && n < 6; t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	if (n != 6 || !(params = json_loads(f[3], JSON_REJECT_DUPLICATES, NULL)))
		return -EINVAL;
	int size;

	r = modelfit_series(f[0], (unsigned)atoi(f[1]), f[2], params, f[4], (unsigned)atoi(f[5]),
			    why, sizeof(why));
	size = modelfit_size_bound(f[0], f[2], params, f[4], (unsigned)atoi(f[5]));
	json_decref(params);
	/* the last column: whether the model shows the size of a change too, or its direction */
	strbuf_appendf(out, "%s cpus=%s %s %s %s x%s\t%s\t%s\t%s\n", f[0], f[1], f[2], f[3], f[4],
		       f[5], fit_names[r], why, size ? "direction-only" : "size");
	/* A reason exactly when the model misses something. */
	tap_ok((r == MODELFIT_INSIDE) == !why[0], "%s %s %s x%s: %s, reason %s", f[0], f[2], f[4],
	       f[5], fit_names[r], why[0] ? "given" : "none");
	return 0;
}

int main(void)
{
	_cleanup_free_ char *cases = NULL, *want = NULL, *got = NULL;
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const char *u = getenv("UPDATE_GOLDEN");
	const char *golden = "lab/tests/golden/modelfit.txt";
	char *save = NULL;

	if (!tap_ok(fs_read_file("lab/tests/data/modelfit/cases.tsv", 1 << 20, &cases, NULL) == 0,
		    "cases readable"))
		return tap_done();
	for (char *l = strtok_r(cases, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (l[0] != '#')
			tap_ok(run_case(l, &sb) == 0, "case line parses");
	if (strbuf_take(&sb, &got) < 0)
		return tap_done();
	if (u && !strcmp(u, "1"))
		tap_ok(fs_write_atomic(golden, got, strlen(got)) == 0, "golden rewritten");
	else if (!tap_ok(fs_read_file(golden, 1 << 20, &want, NULL) == 0, "golden readable"))
		return tap_done();
	else
		tap_ok(!strcmp(want, got), "matches golden %s%s", golden,
		       strcmp(want, got) ? " (UPDATE_GOLDEN=1 to rewrite after a reviewed change)" : "");
	return tap_done();
}
