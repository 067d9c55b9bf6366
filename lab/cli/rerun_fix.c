/* A fix tried against a bundle's finding (cli/rerun_fix.h). */
#include "cli/rerun_fix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/series.h"
#include "cli/cli.h"
#include "cli/report_decision.h"
#include "core/kvariant.h"
#include "core/runreport.h"
#include "util/archive.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

#define FIX_SCHEMA "numalab.fix/1"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* The report's job.kernels entry labelled label, NULL when none; want: the first (0) or the
 * last (1) when label is NULL. */
static const json_t *report_kernel(const json_t *rep, const char *label, int last)
{
	const json_t *ks = json_object_get(json_object_get(rep, "job"), "kernels"), *k;
	size_t i;

	if (!label)
		return json_array_get(ks, last ? json_array_size(ks) - 1 : 0);
	json_array_foreach(ks, i, k)
		if (!strcmp(str(k, "label"), label))
			return k;
	return NULL;
}

/* The label a bundle job's kernel entry gets ("name", else its variant file's base name). */
static void entry_label(const json_t *e, char *buf, size_t len)
{
	const char *v = str(e, "variant"), *b = strrchr(v, '/');
	size_t n;

	if (str(e, "name")[0]) {
		snprintf(buf, len, "%s", str(e, "name"));
		return;
	}
	b = b ? b + 1 : v;
	n = strlen(b) > 5 && !strcmp(b + strlen(b) - 5, ".json") ? strlen(b) - 5 : strlen(b);
	snprintf(buf, len, "%.*s", (int)n, b);
}

/* FIX checked as a patch (its subject for the verdict and the mail), and the kernel to run:
 * `lab run --kernel`'s LABEL-fix=VARIANT+FIX on the bundle's variant of the entry, the same
 * derived variant `lab ab` makes (cli/kernel_spec.h). */
static int fix_spec(const char *bdir, const char *patch, const json_t *entry, const char *label,
		    char *spec, size_t slen, char *subject, size_t sublen)
{
	_cleanup_free_ char *text = NULL, *var = fs_join(bdir, str(entry, "variant"));
	const char *pb = strrchr(patch, '/');
	char why[256];
	size_t len;
	int r;

	if (!var)
		return -ENOMEM;
	if ((r = fs_read_file(patch, ARC_MAX_MEMBER, &text, &len)) < 0) {
		cli_err("%s: %s", patch, strerror(-r));
		return -EINVAL;
	}
	if (kpatch_check_text(text, len, why, sizeof(why)) < 0) {
		cli_err("%s: %s", patch, why);
		return -EINVAL;
	}
	if (kpatch_subject(text, subject, sublen) < 0)
		snprintf(subject, sublen, "%s", pb ? pb + 1 : patch);
	return (size_t)snprintf(spec, slen, "%.59s-fix=%s+%s", label, var, patch) < slen
		       ? 0 : -ENAMETOOLONG;
}

/* The entry of label in the bundle's job (jpath). */
static int bundle_entry(const char *jpath, const char *label, json_t **entry)
{
	_cleanup_json_ json_t *job = NULL;
	struct lab_error err = { 0 };
	json_t *ks, *k;
	size_t i;

	if (jsonio_load_file(jpath, 4u << 20, &job, &err) < 0)
		return -ENOMEM;
	ks = json_object_get(job, "kernels");
	if (!ks && json_is_object(json_object_get(job, "kernel")))
		ks = json_pack("[O]", json_object_get(job, "kernel"));
	else
		json_incref(ks);
	json_array_foreach(ks, i, k) {
		char l[128];

		entry_label(k, l, sizeof(l));
		if (!strcmp(l, label)) {
			*entry = json_incref(k);
			json_decref(ks);
			return 0;
		}
	}
	json_decref(ks);
	cli_err("the bundle's job has no kernel labelled %s", label);
	return -EINVAL;
}

/* The seeds of label's original boots, in order; *n of them. */
static unsigned long long *label_seeds(const json_t *orig, const char *label, unsigned *n)
{
	const json_t *runs = json_object_get(orig, "runs"), *run;
	unsigned long long *s = calloc(json_array_size(runs) + 1, sizeof(*s));
	size_t i;

	*n = 0;
	json_array_foreach(runs, i, run)
		if (s && !strcmp(str(json_object_get(run, "kernel"), "label"), label) &&
		    json_is_integer(json_object_get(run, "seed")))
			s[(*n)++] = (unsigned long long)json_integer_value(json_object_get(run, "seed"));
	return s;
}

/* One A/B report: against's original boots, then the fixed kernel's, indexed anew. */
static json_t *merged(const json_t *orig, const json_t *again, const char *against)
{
	json_t *m = json_deep_copy(orig), *runs = json_array(), *run, *ks;
	size_t i, n = 0;

	if (!m || !runs)
		return json_decref(m), json_decref(runs), NULL;
	json_array_foreach(json_object_get(orig, "runs"), i, run)
		if (!strcmp(str(json_object_get(run, "kernel"), "label"), against))
			json_array_append_new(runs, json_deep_copy(run));
	json_array_foreach(json_object_get(again, "runs"), i, run)
		json_array_append_new(runs, json_deep_copy(run));
	json_array_foreach(runs, i, run)
		json_object_set_new(run, "index", json_integer((json_int_t)n++));
	ks = json_pack("[OO]", report_kernel(orig, against, 0),
		       json_array_get(json_object_get(json_object_get(again, "job"), "kernels"), 0));
	json_object_set_new(m, "runs", runs);
	json_object_set_new(json_object_get(m, "job"), "kernels", ks);
	json_object_set(m, "id", json_object_get(again, "id"));
	json_object_set(m, "created", json_object_get(again, "created"));
	return ks ? m : (json_decref(m), NULL);
}

static const char *verdict_word(enum compare_decision d)
{
	return d == COMPARE_REGRESSION ? "still-regressed" : d == COMPARE_OK ? "fixed" : "undecided";
}

/* DIR/fix/report.json and fix.json; the verdict printed. */
static int judge(const char *dir, const json_t *orig, const json_t *again, const char *against,
		 const char *on, const char *patch, const char *subject, const char *model,
		 const char *bundle)
{
	_cleanup_free_ char *fdir = fs_join(dir, "fix"), *rpath = NULL, *jpath = NULL;
	_cleanup_json_ json_t *rep = merged(orig, again, against), *fix = NULL;
	enum compare_decision d = COMPARE_UNDECIDED;
	struct lab_error err = { 0 };
	struct series_set s;
	const char *pb = strrchr(patch, '/');

	if (!fdir || !rep || !(rpath = fs_join(fdir, "report.json")) ||
	    !(jpath = fs_join(fdir, "fix.json")) || fs_mkdir_p(fdir, 0755) < 0 ||
	    jsonio_write_file(rpath, rep) < 0) {
		cli_err("cannot write %s", rpath ? rpath : dir);
		return EXIT_LAB_ERROR;
	}
	series_init(&s);
	printf("\nthe fix \"%s\" on %s (B) against %s's original boots (A):\n", subject, on, against);
	if (series_add_report(&s, rep, rpath, NULL, &err) < 0 || report_decision_print(&s, &d) < 0)
		d = COMPARE_UNDECIDED;
	series_free(&s);
	fix = json_pack("{s:s,s:{s:s,s:s,s:s,s:s},s:{s:s,s:s},s:s,s:s}", "schema", FIX_SCHEMA,
			"finding", "report", str(orig, "id"), "a", against, "b", on, "bundle", bundle,
			"fix", "file", pb ? pb + 1 : patch, "subject", subject, "verdict",
			verdict_word(d), "model", model);
	if (!fix || jsonio_write_file(jpath, fix) < 0) {
		cli_err("cannot write %s", jpath);
		return EXIT_LAB_ERROR;
	}
	printf("\n%s: the fix against the finding (%s); lab mail %s writes the follow-up\n",
	       d == COMPARE_REGRESSION ? "STILL REGRESSED" : verdict_word(d), str(orig, "id"), fdir);
	return report_decision_exit(d);
}

int cli_rerun_fix(const struct rerun_fix *f, const char *dir, const struct bundle_manifest *m,
		  const json_t *orig, struct cli_run *run)
{
	const json_t *on = report_kernel(orig, f->on, 1), *against = report_kernel(orig, f->against, 0);
	_cleanup_free_ char *bdir = fs_join(dir, "bundle"), *jpath = NULL;
	_cleanup_free_ unsigned long long *seeds = NULL;
	_cleanup_json_ json_t *entry = NULL, *again = NULL;
	struct run_summary sum = { 0 };
	struct lab_error err = { 0 };
	char subject[300], spec[8192];
	char *specs[1] = { spec };
	unsigned n;
	int rc;

	if (!on || !against) {
		cli_err("--%s %s: the report has no kernel labelled so", !on ? "on" : "against",
			!on ? f->on : f->against);
		return EXIT_BAD_INPUT;
	}
	if (!bdir || !(jpath = fs_join(bdir, "job.json")))
		return EXIT_LAB_ERROR;
	if ((rc = bundle_entry(jpath, str(on, "label"), &entry)) < 0 ||
	    (rc = fix_spec(bdir, f->patch, entry, str(on, "label"), spec, sizeof(spec), subject,
			   sizeof(subject))) < 0)
		return rc == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	seeds = label_seeds(orig, str(on, "label"), &n);
	if (run->o.nr_seeds) { /* deterministic: the same boots, the fix the one difference */
		run->o.seeds = seeds;
		run->o.nr_seeds = n;
	}
	if (!run->repeats)
		run->repeats = n ? n : 1;
	run->o.job_file = jpath;
	run->kernels = specs; /* the job's kernels replaced by the fixed one alone */
	run->nr_kernels = 1;
	run->o.out_dir = dir;
	fprintf(stderr, "lab rerun: the fix \"%s\" on %s: %u boot(s) under %s\n", subject,
		str(on, "label"), run->repeats, m->model);
	run->runs_status = 1;
	rc = cli_run_job(run, &sum);
	if (rc == EXIT_BAD_INPUT || rc == EXIT_LAB_ERROR || !sum.report[0])
		return rc;
	if (jsonio_load_file(sum.report, RUNREPORT_MAX_SIZE, &again, &err) < 0) {
		cli_err("%s: %s", sum.report, err.msg);
		return EXIT_LAB_ERROR;
	}
	rc = judge(dir, orig, again, str(against, "label"), str(on, "label"), f->patch, subject,
		   m->model, f->bundle ? f->bundle : "");
	return sum.status != OUTCOME_OK && rc == EXIT_OK ? EXIT_RUN_FAILED : rc;
}
