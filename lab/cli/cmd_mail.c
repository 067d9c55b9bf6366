/* lab mail BISECTION|REPORT [--to A]... [--cc A]... [--from A] [--reported-by A]
 * [--closes URL] [--in-reply-to ID] [--patch FILE] [-o FILE]: a finding as a mail
 * (lab/analysis/mail.h) on standard output, or as an mbox file.  The lab never sends it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/mail.h"
#include "cli/cli.h"
#include "cli/report_decision.h"
#include "cli/report_files.h"
#include "core/kvariant.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/mailfmt.h"
#include "util/strbuf.h"

/* A patch's header is in its first lines; a bisect.json of 10^4 steps is ~10 MiB. */
#define PATCH_HEAD_MAX (64u << 10)
#define BISECT_MAX (64u << 20)

struct mail_args {
	struct mail_opts m;
	const char *patch, *out;
};

/* One command line a process: what the table writes to. */
static struct mail_args args;

static int opt_rcpt(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	int cc = !strcmp(o->name, "cc");
	size_t *n = cc ? &args.m.ncc : &args.m.nto;

	if (*n == MAIL_MAX_RCPT)
		return opt_error_set(e, "--%s: at most %d", o->name, MAIL_MAX_RCPT);
	if (!mailfmt_address_ok(arg))
		return opt_error_set(e, "--%s must be one address (Name <user@host>), not \"%.80s\"",
				     o->name, arg);
	(cc ? args.m.cc : args.m.to)[(*n)++] = arg;
	return 0;
}

static const struct cli_opt options[] = {
	OPT_CALL(0, "to", NULL, "ADDR", opt_rcpt, "a To: address (repeat it)"),
	OPT_CALL(0, "cc", NULL, "ADDR", opt_rcpt, "a Cc: address (repeat it)"),
	OPT_STRING(0, "from", &args.m.from, "ADDR", "the From: address (default " MAIL_DEFAULT_FROM
		   ")"),
	OPT_STRING(0, "reported-by", &args.m.reported_by, "ADDR",
		   "the Reported-by: tag (default: the From: address)"),
	OPT_STRING(0, "closes", &args.m.closes, "URL",
		   "a Closes: tag; {msgid} in it becomes the Message-ID"),
	OPT_STRING(0, "in-reply-to", &args.m.in_reply_to, "ID",
		   "a follow-up: the Message-ID it answers"),
	OPT_STRING(0, "patch", &args.patch, "FILE",
		   "an A/B: the patch whose Subject: names it (default: what B adds to A)"),
	OPT_STRING(0, "bundle", &args.m.bundle, "FILE|URL",
		   "an A/B: its 'lab bundle', to send along: the reproduce step re-runs it"),
	OPT_STRING('o', "out", &args.out, "FILE", "an mbox file (git send-email, mutt) instead "
		   "of the message on standard output"),
	OPT_END(),
};

void cmd_mail_help(void)
{
	cli_synopsis("mail", "BISECTION|REPORT", options);
	printf("\nA finding as a mail a kernel developer acts on, in the 0-day robot's shape:\n"
	       "a subject with the commit (or patch), the metric and the change; the headline\n"
	       "figure with its interval; every other figure that moved; the profile lines and\n"
	       "counters that moved; the kernel warnings; the tags to paste (Reported-by:,\n"
	       "Closes:); the lab command that reproduces it.  Plain text, 72 columns.\n"
	       "BISECTION is a 'lab bisect' directory (or its bisect.json) that names a\n"
	       "culprit; REPORT an A/B report (two labels) or its directory, or a fix trial's\n"
	       "('lab rerun --patch': DIR/fix), whose subject says \"[still regression on\n"
	       "fix]\", \"[fixed by fix]\" or \"[undecided on fix]\" (give --in-reply-to).\n"
	       "The lab never sends mail: pipe it to sendmail -t, or give -o to git\n"
	       "send-email or mutt.\n\n"
	       "EXAMPLES\n"
	       "  lab mail bisect/ --to author@example.org --cc linux-mm@kvack.org\n"
	       "  lab mail reports/ab-ID --patch 0001-mm-fix.patch -o ab.mbox\n"
	       "  lab mail reports/ab-ID --bundle ab.tar.gz   # lab bundle ... -o ab.tar.gz\n"
	       "  lab mail bisect/ --closes 'https://lore.kernel.org/r/{msgid}' | sendmail -t\n\n"
	       "Exit status: 0 written; 2 bad arguments, no culprit, not an A/B, an\n"
	       "unreadable file; 4 the file could not be written.\n");
}

/* The subject of the first mail in a patch file (core/kvariant.h kpatch_subject). */
static int patch_subject(const char *file, char *buf, size_t len)
{
	_cleanup_free_ char *text = NULL;
	size_t n = 0;
	int r;

	if ((r = fs_read_file(file, PATCH_HEAD_MAX, &text, &n)) < 0 && r != -EFBIG)
		return r;
	return text ? kpatch_subject(text, buf, len) : -ENOENT;
}

/* A bisection: a directory holding bisect.json, or the file.  1 and *doc when it is one. */
static int load_bisection(const char *path, json_t **doc, struct lab_error *err)
{
	_cleanup_free_ char *file = NULL;
	struct stat st;
	int r;

	if (stat(path, &st) < 0)
		return error_set(err, "", "%s: %s", path, strerror(errno));
	file = S_ISDIR(st.st_mode) ? fs_join(path, "bisect.json") : strdup(path);
	if (!file)
		return -ENOMEM;
	if (S_ISDIR(st.st_mode) && !fs_exists(file))
		return 0;
	if ((r = jsonio_load_file(file, BISECT_MAX, doc, err)) < 0)
		return r;
	if (strcmp(json_string_value(json_object_get(*doc, "schema")) ?: "", "numalab.bisect/1")) {
		json_decref(*doc);
		*doc = NULL;
		return 0;
	}
	return 1;
}

/* A fix trial's directory (`lab rerun --patch`: DIR/fix holds fix.json beside its report):
 * the verdict, finding and subject into the mail's options.  0 when path is not one. */
static int load_fix(const char *path, json_t **fix, char *subject, size_t slen,
		    struct lab_error *err)
{
	_cleanup_free_ char *file = fs_join(path, "fix.json");
	const char *v;
	int r;

	if (!file || !fs_exists(file))
		return file ? 0 : -ENOMEM;
	if ((r = jsonio_load_file(file, 1u << 20, fix, err)) < 0)
		return r;
	v = json_string_value(json_object_get(*fix, "verdict"));
	if (strcmp(json_string_value(json_object_get(*fix, "schema")) ?: "", "numalab.fix/1") ||
	    !v || (strcmp(v, "still-regressed") && strcmp(v, "fixed") && strcmp(v, "undecided")))
		return error_set(err, "verdict", "%s: not a fix trial of this lab", file);
	args.m.fix_verdict = v;
	/* the reproduce step: the same trial, from the bundle as it was named (--bundle wins) */
	if (!args.m.bundle && (args.m.bundle = json_string_value(json_object_get(json_object_get(
				       *fix, "finding"), "bundle"))) && !args.m.bundle[0])
		args.m.bundle = NULL;
	args.m.fix_patch = json_string_value(json_object_get(json_object_get(*fix, "fix"), "file"));
	args.m.fix_on = json_string_value(json_object_get(json_object_get(*fix, "finding"), "b"));
	args.m.fix_against = json_string_value(json_object_get(json_object_get(*fix, "finding"),
								"a"));
	args.m.finding = json_string_value(json_object_get(json_object_get(*fix, "finding"),
							   "report"));
	if (!subject[0])
		snprintf(subject, slen, "%s", json_string_value(json_object_get(json_object_get(
			*fix, "fix"), "subject")) ?: "");
	return 1;
}

/* An A/B report and its comparison, the way `lab compare REPORT` decides it. */
static int load_ab(const char *path, json_t **report, json_t **cmp, char *file, size_t flen,
		   struct lab_error *err)
{
	struct report_files f = { 0 };
	struct series_set s;
	int r;

	series_init(&s);
	r = report_files_add(&f, path, err);
	if (r == 0 && f.n != 1)
		r = error_set(err, "", "%s holds %zu reports: mail takes one", path, f.n);
	if (r == 0)
		r = report_files_read(&f, err);
	if (r == 0)
		r = series_add_report(&s, f.doc[0], f.path[0], NULL, err);
	if (r == 0 && s.nr_variants < 2)
		r = error_set(err, "", "%s is not an A/B: it has one kernel label", f.path[0]);
	if (r == 0 && (r = report_decision_json(&s, cmp)) < 0 && r != -ENOMEM)
		r = error_set(err, "", "%s: no comparison of its labels", f.path[0]);
	if (r == 0) {
		*report = json_incref(f.doc[0]);
		snprintf(file, flen, "%s", f.path[0]);
	}
	series_free(&s);
	report_files_free(&f);
	return r;
}

/* The message as an mbox file, replaced whole. */
static int write_mbox(const char *path, const char *msg)
{
	_cleanup_free_ char *mbox = NULL;
	int r;

	if ((r = mailfmt_mbox(msg, &mbox)) < 0)
		return r;
	return fs_write_atomic(path, mbox, strlen(mbox));
}

int cmd_mail(int argc, char **argv)
{
	_cleanup_json_ json_t *bisect = NULL, *report = NULL, *cmp = NULL, *fix = NULL;
	_cleanup_free_ char *msg = NULL;
	struct lab_error err = { 0 };
	char date[64], subject[512] = "", file[4096] = "";
	int first, r;

	memset(&args, 0, sizeof(args));
	if ((first = cli_parse(argc, argv, options)) < 0)
		return EXIT_BAD_INPUT;
	if (argc - first != 1) {
		cli_usage_err("expected one bisection or report");
		return EXIT_BAD_INPUT;
	}
	clock_rfc5322(date, sizeof(date));
	args.m.date = date;
	args.m.source = argv[first];
	if (args.patch && (r = patch_subject(args.patch, subject, sizeof(subject))) < 0) {
		cli_err("%s: %s", args.patch, r == -ENOENT ? "no Subject: line (not a patch mail)"
							    : strerror(-r));
		return EXIT_BAD_INPUT;
	}
	r = load_bisection(argv[first], &bisect, &err);
	if (r == 0 && (r = load_fix(argv[first], &fix, subject, sizeof(subject), &err)) == 1)
		r = 0;
	if (r == 1)
		r = mail_bisect(bisect, &args.m, &msg, &err);
	else if (r == 0 && (r = load_ab(argv[first], &report, &cmp, file, sizeof(file), &err)) == 0) {
		const json_t *cmp1 = json_array_get(json_object_get(cmp, "comparisons"), 0);
		const char *b = json_string_value(json_object_get(json_object_get(cmp1, "b"),
								  "variant"));

		const char *a = json_string_value(json_object_get(json_object_get(cmp1, "a"),
								  "variant"));

		if (!subject[0] && a && b)
			mail_patch_subject(report, a, b, subject, sizeof(subject));
		args.m.source = file;
		r = mail_ab(report, cmp, subject, &args.m, &msg, &err);
	}
	if (r < 0) {
		char m[1400];

		error_format(&err, m, sizeof(m));
		cli_err("%s: %s", argv[first], err.msg[0] ? m : strerror(-r));
		return r == -ENOMEM ? EXIT_LAB_ERROR : EXIT_BAD_INPUT;
	}
	if (!args.out)
		return fputs(msg, stdout) < 0 ? EXIT_LAB_ERROR : EXIT_OK;
	if ((r = write_mbox(args.out, msg)) < 0) {
		cli_err("cannot write %s: %s", args.out, strerror(-r));
		return EXIT_LAB_ERROR;
	}
	fprintf(stderr, "lab mail: %s (%zu bytes)\n", args.out, strlen(msg));
	return EXIT_OK;
}
