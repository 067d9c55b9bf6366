/* lab export REPORT... --format kcidb|lkp|csv [-o FILE]: a report's figures for other tools
 * (lab/analysis/export.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/export.h"
#include "cli/cli.h"
#include "cli/report_files.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

/* In format_names' order. */
enum export_format { EXPORT_KCIDB, EXPORT_LKP, EXPORT_CSV };

static const char *const format_names[] = { "kcidb", "lkp", "csv", NULL };

struct export_args {
	int format; /* enum export_format; -1: no --format given */
	const char *out;
};

/* One command line a process: what the table writes to. */
static struct export_args args;

static const struct cli_opt options[] = {
	OPT_CHOICE(0, "format", &args.format, "F", format_names,
		   "needed: kcidb (KernelCI's KCIDB v5.3), lkp or csv"),
	OPT_STRING('o', "out", &args.out, "FILE",
		   "write FILE (replaced whole) instead of standard output"),
	OPT_END(),
};

void cmd_export_help(void)
{
	cli_synopsis("export", "REPORT...", options);
	printf("       lab export BISECTION-DIR --format kcidb [--out FILE]\n\n"
	       "A report's figures for other tools.  REPORT is a report file or a directory\n"
	       "holding report.json (or whose subdirectories do, such as reports/).  Every\n"
	       "figure is a series' mean over its boots, each boot's repetitions averaged first,\n"
	       "harmonic for rates: the figures `lab compare` tests.  A bisection directory\n"
	       "(lab bisect) exports as KCIDB only: its culprit commit's checkout and build, an\n"
	       "issue saying which figure changed, and its incident.  Each option at length:\n"
	       "man lab, \"OPTIONS OF LAB EXPORT\".\n\nOPTIONS\n");
	args.format = -1; /* no default: --format must be given */
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab export reports/ID --format kcidb -o kcidb.json\n"
	       "  lab export reports/ --format csv >all.csv\n"
	       "  lab export reports/ID --format lkp | jq '.results[0].stats'\n"
	       "  lab export bisect/ --format kcidb\n\n"
	       "Exit status: 0 written; 2 bad arguments or an unreadable report; 4 the file\n"
	       "could not be written.\n");
}

/* The index of the first report in argv, or -EINVAL (said). */
static int parse_args(int argc, char **argv)
{
	int first;

	memset(&args, 0, sizeof(args));
	args.format = -1;
	if ((first = cli_parse(argc, argv, options)) < 0)
		return -EINVAL;
	if (first >= argc) {
		cli_usage_err("expected one or more report files or directories");
		return -EINVAL;
	}
	if (args.format < 0) {
		cli_usage_err("--format is needed: kcidb, lkp or csv");
		return -EINVAL;
	}
	return first;
}

/* One report's export appended: KCIDB documents and LKP results go into the arrays of all,
 * CSV rows onto csv. */
static int export_one(const struct export_args *a, json_t *doc, const char *file, size_t i,
		      json_t *all, struct strbuf *csv, struct lab_error *err)
{
	struct series_set s;
	_cleanup_json_ json_t *o = NULL;
	_cleanup_free_ char *text = NULL;
	int r;

	series_init(&s);
	r = series_add_report(&s, doc, file, NULL, err);
	if (r == 0 && a->format == EXPORT_KCIDB && (r = export_kcidb(&s, doc, &o)) == -EINVAL)
		error_set(err, "", "%s: no id or created", file);
	else if (r == 0 && a->format == EXPORT_LKP)
		r = export_lkp(&s, &o);
	else if (r == 0 && a->format == EXPORT_CSV)
		r = export_csv(&s, json_string_value(json_object_get(doc, "id")) ? json_string_value(json_object_get(doc, "id")) : "", i == 0, &text);
	series_free(&s);
	if (r < 0)
		return r;
	if (text)
		return strbuf_append(csv, text);
	if (a->format == EXPORT_LKP)
		return json_array_extend(json_object_get(all, "results"),
					 json_object_get(o, "results")) < 0 ? -ENOMEM : 0;
	/* KCIDB: one document, the objects of every report in its arrays */
	for (const char *k = "checkouts"; k; k = !strcmp(k, "checkouts") ? "builds" :
						    !strcmp(k, "builds") ? "tests" : NULL)
		if (json_array_extend(json_object_get(all, k), json_object_get(o, k)) < 0)
			return -ENOMEM;
	return 0;
}

static int write_out(const char *path, const char *text)
{
	if (!path)
		return fputs(text, stdout) < 0 ? -EIO : 0;
	return fs_write_atomic(path, text, strlen(text));
}

/* A bisection directory (bisect.json beside params.json): its culprit as a KCIDB issue.  1
 * when dir is one (exported or said), 0 when it is not a bisection. */
static int export_bisection(const struct export_args *a, const char *dir, int *rc)
{
	char path[4096];
	_cleanup_json_ json_t *b = NULL, *p = NULL, *o = NULL;
	_cleanup_free_ char *js = NULL;
	struct lab_error err = { 0 };
	int r;

	snprintf(path, sizeof(path), "%s/bisect.json", dir);
	if (access(path, F_OK) < 0)
		return 0;
	*rc = EXIT_BAD_INPUT;
	if (jsonio_load_file(path, 64 << 20, &b, &err) < 0) {
		cli_err("%s: %s", path, err.msg);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/params.json", dir);
	jsonio_load_file(path, 1 << 20, &p, &err);
	if (a->format != EXPORT_KCIDB) {
		cli_err("%s: a bisection exports as kcidb only (its culprit as an issue)", dir);
		return 1;
	}
	r = export_kcidb_bisect(b, p, &o);
	if (r == -ENOENT) {
		cli_err("%s: the bisection found no culprit (answer %s): no issue to export", dir,
			json_string_value(json_object_get(b, "answer")) ?
				json_string_value(json_object_get(b, "answer")) : "none");
		return 1;
	}
	js = r == 0 ? jsonio_dumps(o) : NULL;
	if (!js || write_out(a->out, js) < 0 ||
	    (!a->out && fputc('\n', stdout) == EOF)) {
		cli_err("cannot write %s", a->out ? a->out : "standard output");
		*rc = EXIT_LAB_ERROR;
		return 1;
	}
	*rc = EXIT_OK;
	return 1;
}

int cmd_export(int argc, char **argv)
{
	struct report_files f = { 0 };
	struct lab_error err = { 0 };
	_cleanup_strbuf_ struct strbuf csv = STRBUF_INIT;
	_cleanup_json_ json_t *all = NULL;
	_cleanup_free_ char *text = NULL;
	int first, r = 0, rc = EXIT_BAD_INPUT;

	if ((first = parse_args(argc, argv)) < 0)
		return EXIT_BAD_INPUT;
	if (argc - first == 1 && export_bisection(&args, argv[first], &rc))
		return rc;
	all = args.format == EXPORT_LKP ? json_pack("{s:[]}", "results")
					: json_pack("{s:{s:i, s:i}, s:[], s:[], s:[]}", "version",
						    "major", 5, "minor", 3, "checkouts", "builds",
						    "tests");
	for (int i = first; r == 0 && i < argc; i++)
		r = report_files_add(&f, argv[i], &err);
	if (r == 0)
		r = report_files_read(&f, &err);
	for (size_t i = 0; r == 0 && i < f.n; i++)
		r = export_one(&args, f.doc[i], f.path[i], i, all, &csv, &err);
	if (r < 0) {
		char msg[1400];

		error_format(&err, msg, sizeof(msg));
		cli_err("%s", err.msg[0] ? msg : strerror(-r));
		goto cleanup;
	}
	if (args.format != EXPORT_CSV) {
		_cleanup_free_ char *js = jsonio_dumps(all);

		r = js ? strbuf_appendf(&csv, "%s\n", js) : -ENOMEM;
	}
	if (r == 0 && (r = strbuf_take(&csv, &text)) == 0)
		r = write_out(args.out, text);
	if (r < 0) {
		cli_err("cannot write %s: %s", args.out ? args.out : "standard output", strerror(-r));
		rc = EXIT_LAB_ERROR;
		goto cleanup;
	}
	rc = EXIT_OK;
cleanup:
	report_files_free(&f);
	return rc;
}
