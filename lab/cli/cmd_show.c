/* lab show REPORT: one report as text (lab/analysis/show.h), and its decision when it holds
 * two or more labels. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "analysis/show.h"
#include "cli/cli.h"
#include "cli/report_decision.h"
#include "cli/report_files.h"
#include "util/cleanup.h"
#include "util/strbuf.h"

void cmd_show_help(void)
{
	printf("usage: lab show REPORT\n\n"
	       "One report as text: its job, timing model and lab; one line a run (kernel\n"
	       "label, outcome, boot and total seconds, and the reason when it was not ok);\n"
	       "the primary metrics per workload, task count and label, each the mean over\n"
	       "boots (harmonic for rates).  A report of two or more labels ends with the\n"
	       "decision, every label against the first, as 'lab compare REPORT' prints it.\n"
	       "REPORT is a report.json or the directory holding it.\n\n"
	       "EXAMPLES\n"
	       "  lab show reports/ID\n"
	       "  lab show reports/ID/report.json | less\n\n"
	       "Exit status: a decision's, as 'lab compare' gives it (0 no regression, 1 a\n"
	       "regression, 3 undecided); 0 a report of one label; 2 not one readable report.\n");
}

int cmd_show(int argc, char **argv)
{
	struct report_files f = { 0 };
	struct lab_error err = { 0 };
	struct series_set s;
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL;
	enum compare_decision d;
	int rc = EXIT_BAD_INPUT, r;

	if (argc != 2) {
		cli_usage_err("expected one report");
		return EXIT_BAD_INPUT;
	}
	series_init(&s);
	r = report_files_add(&f, argv[1], &err);
	if (r == 0 && f.n != 1)
		r = error_set(&err, "", "%s holds %zu reports: show takes one", argv[1], f.n);
	if (r == 0)
		r = report_files_read(&f, &err);
	if (r == 0)
		r = series_add_report(&s, f.doc[0], f.path[0], NULL, &err);
	if (r < 0) {
		char msg[1400];

		error_format(&err, msg, sizeof(msg));
		cli_err("%s", err.msg[0] ? msg : strerror(-r));
		goto cleanup;
	}
	rc = EXIT_LAB_ERROR;
	if (show_report(f.doc[0], &s, &sb) < 0 || strbuf_take(&sb, &text) < 0)
		goto cleanup;
	fputs(text, stdout);
	rc = EXIT_OK;
	if (s.nr_variants > 1) {
		fputs("\n", stdout);
		fflush(stdout);
		/* the decision printed is the status, as `lab compare` gives it */
		rc = report_decision_print(&s, &d) < 0 ? EXIT_UNDECIDED : report_decision_exit(d);
	}
cleanup:
	series_free(&s);
	report_files_free(&f);
	return rc;
}
