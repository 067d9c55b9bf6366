/* The projection's shared setup: see projopts.h. */
#include "cli/projopts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/projseries.h"
#include "cli/cli.h"
#include "cli/report_files.h"
#include "run/jobload.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

#define PRIORS_MAX_SIZE (1u << 20)

/* One command line a process: the values the group's table writes to. */
static struct projopts v;

const struct cli_opt projopts_site_opts[] = {
	OPT_STRING(0, "site", &v.site, "NAME+", "the lock's call site: a prefix, FUNCTION+"),
	OPT_STRING(0, "outside-from", &v.outside_from, "REPORT",
		   "instructions outside the lock: REPORT's 1-task window"),
	OPT_END(),
};

const struct cli_opt projopts_opts[] = {
	OPT_STRING(0, "project-from", &v.from, "REPORT",
		   "a PROJECTION of REPORT's lock counts, never in a verdict"),
	OPT_GROUP(projopts_site_opts),
	OPT_UINT(0, "project-to", &v.to, "N", 1, PROJ_MAX_CPUS,
		 "project to N CPUs of " PROJOPTS_TOPOLOGY " (default: all)"),
	OPT_END(),
};

void projopts_init(void)
{
	memset(&v, 0, sizeof(v));
}

void projopts_get(struct projopts *o)
{
	*o = v;
}

int projopts_check(const struct projopts *o)
{
	if (!o->from && (o->site || o->to || o->outside_from)) {
		cli_usage_err("--site, --project-to and --outside-from go with --project-from "
			      "REPORT");
		return -EINVAL;
	}
	if (o->from && !o->site) {
		cli_usage_err("--project-from needs --site NAME+ (the lock's call site)");
		return -EINVAL;
	}
	return 0;
}

int projopts_target(const char *topology, unsigned to, const char *opt, struct proj_input *in)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	struct topology t = { 0 };
	struct lab_error err = { 0 };
	char msg[1400];
	int r = cwd ? jobload_topology(topology, cwd, &t, &err) : -errno;

	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("--topology %s: %s", topology, err.msg[0] ? msg : strerror(-r));
		return r;
	}
	in->sockets = t.sockets;
	in->cpus_per_socket = t.vcpus / t.sockets;
	in->nmax = to ? to : t.vcpus;
	topology_free(&t);
	if (in->nmax > in->sockets * in->cpus_per_socket || in->nmax > PROJ_MAX_CPUS) {
		cli_usage_err("%s %u: %s has %u CPUs", opt, in->nmax, topology,
			      in->sockets * in->cpus_per_socket);
		return -EINVAL;
	}
	return 0;
}

int projopts_priors(const char *file, struct proj_priors *pr, const char **used)
{
	static char found[PATH_MAX];
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	char msg[1400];
	int r;

	*used = file ? file : PROJOPTS_PRIORS;
	if (!file && checkout_find(PROJOPTS_PRIORS, found, sizeof(found)) < 0) {
		cli_err("cannot find %s (give --priors FILE)", PROJOPTS_PRIORS);
		return -EINVAL;
	}
	r = jsonio_load_file(file ? file : found, PRIORS_MAX_SIZE, &j, &err);
	if (r == 0)
		r = projpriors_from_json(j, pr, &err);
	if (r < 0) {
		error_set_file(&err, file ? file : found);
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", err.msg[0] ? msg : strerror(-r));
	}
	return r;
}

int projopts_report(const char *opt, const char *path, json_t **out)
{
	struct report_files f = { 0 };
	struct lab_error err = { 0 };
	char msg[1400];
	int r = report_files_add(&f, path, &err);

	*out = NULL;
	if (r == 0 && f.n != 1)
		r = error_set(&err, "", "names %zu reports: give one", f.n);
	if (r == 0)
		r = report_files_read(&f, &err);
	if (r == 0)
		*out = json_incref(f.doc[0]);
	report_files_free(&f);
	if (r == -EINVAL) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s %s: %s", opt, path, msg);
	}
	return r;
}

int projopts_series(const struct projopts *o, json_t **out)
{
	_cleanup_json_ json_t *window = NULL, *counted = NULL;
	struct proj_priors pr;
	struct projseries_opts po = { .from = o->from, .site = o->site, .priors = &pr,
				      .in = { .draws = 1000, .seed = 1 },
				      .label = { .target = PROJOPTS_TOPOLOGY } };
	int r;

	*out = NULL;
	if (!o->from)
		return 0;
	if ((r = projopts_target(PROJOPTS_TOPOLOGY, o->to, "--project-to", &po.in)) < 0 ||
	    (r = projopts_priors(NULL, &pr, &po.label.priors)) < 0 ||
	    (o->outside_from &&
	     (r = projopts_report("--outside-from", o->outside_from, &window)) < 0) ||
	    (r = projopts_report("--project-from", o->from, &counted)) < 0)
		return r;
	po.window = window;
	po.window_from = o->outside_from;
	if (!(*out = projseries_json(counted, &po)))
		return -ENOMEM;
	if (!json_array_size(json_object_get(*out, "series"))) {
		json_decref(*out);
		*out = NULL;
		cli_err("--project-from %s: no result has lock counts: it is not the report of a "
			"run with \"lock_insns\": true", o->from);
		return -EINVAL;
	}
	return 0;
}
