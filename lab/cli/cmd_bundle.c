/* lab bundle REPORT [-o FILE]: a report and everything its runs used, as one archive that
 * `lab rerun` takes (run/bundle.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/rerun_input.h"
#include "run/bundle.h"

static struct {
	const char *out;
} args;

static const struct cli_opt options[] = {
	OPT_STRING('o', "out", &args.out, "FILE", "the archive (default: bundle-ID.tar.gz here)"),
	OPT_END(),
};

void cmd_bundle_help(void)
{
	cli_synopsis("bundle", "REPORT", options);
	printf("\nOne archive with what a report's runs used, to send with a finding: the job as\n"
	       "run, every kernel variant (its \"extends\" resolved into it) with its patches\n"
	       "and config fragments, each build's final .config, the topology, the NUMA\n"
	       "preset, the image recipe and its files, each boot's seed, the lab's version\n"
	       "and commit, and the report itself; a manifest with each member's sha256.  No\n"
	       "kernels, images or QEMU builds: 'lab rerun' rebuilds them by content, so the\n"
	       "bundle stays small.  A gzip-compressed POSIX tar (libarchive), written\n"
	       "reproducibly: tar tzf lists it.  REPORT is a report directory or its\n"
	       "report.json.\n\n"
	       "EXAMPLES\n"
	       "  lab bundle reports/ab-20261207-101500\n"
	       "  lab bundle reports/ab-20261207-101500 -o fix-regression.tar.gz\n"
	       "  lab rerun fix-regression.tar.gz          # on another machine\n\n"
	       "Exit status: 0 written; 2 a report that cannot be bundled (its job file changed\n"
	       "since, a prebuilt kernel image, a patch that is gone): nothing written; 4 the\n"
	       "archive could not be written.\n");
}

int cmd_bundle(int argc, char **argv)
{
	struct bundle_manifest *m = NULL;
	struct lab_error err = { 0 };
	char report[4200], out[4300], msg[1400];
	size_t bytes = 0;
	int first, r;

	memset(&args, 0, sizeof(args));
	if ((first = cli_parse(argc, argv, options)) < 0)
		return EXIT_BAD_INPUT;
	if (argc - first != 1) {
		cli_usage_err("expected one report");
		return EXIT_BAD_INPUT;
	}
	if (cli_report_json(argv[first], report, sizeof(report)) < 0)
		return EXIT_BAD_INPUT;
	if (args.out)
		snprintf(out, sizeof(out), "%s", args.out);
	else if (cli_report_id(report, out, sizeof(out), "bundle-", ".tar.gz") < 0)
		return EXIT_BAD_INPUT;
	r = bundle_write(report, out, &m, &bytes, &err);
	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", err.msg[0] ? msg : strerror(-r));
		return r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	printf("%s: %zu bytes, %u members: report %s, %u boot(s) under %s%s\n", out, bytes,
	       m->nr_members + 1, m->report_id, m->runs, m->model,
	       m->has_seeds ? " with their seeds" : "");
	for (unsigned i = 0; i < m->nr_notes; i++)
		printf("note: %s\n", m->notes[i]);
	printf("re-run it: lab rerun %s\n", out);
	bundle_manifest_free(m);
	return EXIT_OK;
}
