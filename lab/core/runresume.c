#include "core/runresume.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonpath.h"
#include "util/sha256.h"

int runresume_job_sha256(const json_t *job_json, char out[65])
{
	_cleanup_free_ char *s = json_dumps(job_json, JSON_SORT_KEYS | JSON_COMPACT);

	return s ? sha256_hex(s, strlen(s), out) : -ENOMEM;
}

/* One decimal index of s (digits only: no sign, no space), below total. */
static int parse_index(const char *tok, size_t len, unsigned total, unsigned *out,
		       struct lab_error *err)
{
	unsigned long v = 0;

	if (len == 0 || len > 9 || strspn(tok, "0123456789") < len)
		return error_set(err, "", "--interrupted: \"%.*s\" is not a run index (0-based, "
					  "as runs[].index in the report)",
				 (int)(len > 32 ? 32 : len), tok);
	for (size_t i = 0; i < len; i++)
		v = v * 10 + (unsigned long)(tok[i] - '0');
	if (v >= total)
		return error_set(err, "", "--interrupted: run index %lu is out of range: the job "
					  "has %u run(s), 0..%u", v, total, total - 1);
	*out = (unsigned)v;
	return 0;
}

int runresume_parse_indices(const char *s, unsigned total, unsigned **out, unsigned *n,
			    struct lab_error *err)
{
	_cleanup_free_ unsigned char *seen = calloc(total ? total : 1, 1);
	unsigned *v, k = 0;
	const char *p = s;
	int r;

	*out = NULL;
	*n = 0;
	if (!seen)
		return -ENOMEM;
	while (*p) {
		size_t len = strcspn(p, ",");
		unsigned i = 0;

		if ((r = parse_index(p, len, total, &i, err)) < 0)
			return r;
		seen[i] = 1;
		p += len;
		if (*p == ',' && !*++p) /* "1," */
			return parse_index(p, 0, total, &i, err);
	}
	v = calloc(total ? total : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (unsigned i = 0; i < total; i++)
		if (seen[i])
			v[k++] = i;
	*out = v;
	*n = k;
	return 0;
}

/* The report's head: its schema, the job it is of, the id and created time it keeps. */
static int check_head(const json_t *rep, const char *job_sha256, struct runresume *res,
		      struct lab_error *err)
{
	const char *schema = json_string_value(json_object_get(rep, "schema"));
	const char *sha = json_string_value(json_object_get(json_object_get(rep, "job"), "sha256"));
	const char *id = json_string_value(json_object_get(rep, "id"));
	const char *created = json_string_value(json_object_get(rep, "created"));

	if (!json_is_object(rep))
		return error_set(err, "", "must be a JSON object (a report.json of `lab run`)");
	if (!schema || strcmp(schema, RUNREPORT_SCHEMA))
		return error_set(err, "schema", "must be \"%s\"", RUNREPORT_SCHEMA);
	if (!sha)
		return error_set(err, "job.sha256", "missing: the report does not say which job "
						    "it is of (a lab before --resume wrote it)");
	if (strcmp(sha, job_sha256))
		return error_set(err, "job.sha256", "the report is of another job (%.12s..., this "
						    "job's %.12s...): only the job that wrote it "
						    "can be resumed", sha, job_sha256);
	if (!id || !id[0] || strlen(id) >= sizeof(res->id))
		return error_set(err, "id", "must be a string of 1..%zu characters",
				 sizeof(res->id) - 1);
	if (!created || strlen(created) >= sizeof(res->created))
		return error_set(err, "created", "must be a time such as 2026-11-30T04:02:37Z");
	snprintf(res->id, sizeof(res->id), "%s", id);
	snprintf(res->created, sizeof(res->created), "%s", created);
	return 0;
}

/* runs[i]: an object with an integer index below the job's runs, not seen before, and a known
 * status; by[index] = it. */
static int check_run(const json_t *run, size_t i, unsigned total, const json_t **by,
		     struct lab_error *err)
{
	const json_t *ix = json_object_get(run, "index");
	char path[JSONPATH_LEN], sub[JSONPATH_LEN];
	json_int_t v = json_integer_value(ix);
	enum outcome o;

	jsonpath_index(path, sizeof(path), "runs", i);
	if (!json_is_object(run))
		return error_set(err, path, "must be an object (a run)");
	jsonpath_key(sub, sizeof(sub), path, "index");
	if (!json_is_integer(ix) || v < 0 || v >= (json_int_t)total)
		return error_set(err, sub, "must be an integer 0..%u: the job has %u run(s)",
				 total - 1, total);
	if (by[v])
		return error_set(err, sub, "%lld again: a run is recorded once", (long long)v);
	jsonpath_key(sub, sizeof(sub), path, "status");
	if (outcome_parse(json_string_value(json_object_get(run, "status")), &o) < 0)
		return error_set(err, sub, "must be a run status (ok, hang, infra-error, ...)");
	by[v] = run;
	return 0;
}

/* A run that lost its host (end host-lost: the host's connection died under it, or it was
 * lost earlier and the run was not started) says nothing of the kernel: --resume, once the
 * host is back, runs it again instead of keeping it. */
static int lost_host(const json_t *run)
{
	const char *st = json_string_value(json_object_get(run, "status"));
	const char *end = json_string_value(json_object_get(run, "end"));

	return st && end && !strcmp(st, "infra-error") && !strcmp(end, "host-lost");
}

/* The report's runs checked, marked kept (but those that lost their host) and copied in index
 * order. */
static int take_runs(const json_t *rep, struct runresume *res, struct lab_error *err)
{
	const json_t *runs = json_object_get(rep, "runs"), *run;
	_cleanup_free_ const json_t **by = calloc(res->total ? res->total : 1, sizeof(*by));
	size_t i;
	int r;

	if (!by)
		return -ENOMEM;
	if (!json_is_array(runs))
		return error_set(err, "runs", "must be an array");
	json_array_foreach(runs, i, run)
		if ((r = check_run(run, i, res->total, by, err)) < 0)
			return r;
	for (unsigned k = 0; k < res->total; k++) {
		if (!by[k] || lost_host(by[k]))
			continue;
		res->action[k] = RUNRESUME_KEEP;
		if (json_array_append(res->runs, (json_t *)by[k]) < 0)
			return -ENOMEM;
	}
	return 0;
}

int runresume_plan(const json_t *rep, const struct job *job, const char *job_sha256,
		   const unsigned *interrupted, unsigned nr_interrupted, struct runresume *res,
		   struct lab_error *err)
{
	int r;

	memset(res, 0, sizeof(*res));
	res->total = job->repeats * job->nr_kernels;
	res->action = calloc(res->total ? res->total : 1, sizeof(*res->action));
	res->runs = json_array();
	if (!res->action || !res->runs)
		return -ENOMEM;
	if ((rep || nr_interrupted) && job_rounds(job)) {
		error_set_file(err, "");
		return error_set(err, "precision", "a \"precision\" job cannot be resumed (its "
						   "rounds and time cap would be judged anew): run "
						   "it again into a new directory");
	}
	if (rep && ((r = check_head(rep, job_sha256, res, err)) < 0 ||
		    (r = take_runs(rep, res, err)) < 0))
		return r;
	for (unsigned i = 0; i < nr_interrupted; i++) {
		if (interrupted[i] >= res->total)
			return error_set(err, "", "--interrupted: run index %u is out of range: "
						  "the job has %u run(s)",
					 interrupted[i], res->total);
		/* A run the report has ended after all: what it recorded stands. */
		if (res->action[interrupted[i]] == RUNRESUME_RUN)
			res->action[interrupted[i]] = RUNRESUME_INTERRUPTED;
	}
	return 0;
}

void runresume_free(struct runresume *res)
{
	json_decref(res->runs);
	free(res->action);
	res->runs = NULL;
	res->action = NULL;
}

void runresume_count(const struct runresume *res, unsigned *runs, unsigned *ok,
		     enum outcome *worst)
{
	const json_t *run;
	size_t i;

	json_array_foreach(res->runs, i, run) {
		enum outcome o = OUTCOME_INFRA_ERROR; /* checked by runresume_plan */

		outcome_parse(json_string_value(json_object_get(run, "status")), &o);
		*worst = outcome_worst(*worst, o);
		(*runs)++;
		*ok += o == OUTCOME_OK;
	}
}

json_t *runresume_interrupted_json(struct run_record *rec, int console_kept)
{
	rec->outcome = OUTCOME_INFRA_ERROR;
	rec->end = GUEST_END_INTERRUPTED;
	snprintf(rec->reason, sizeof(rec->reason), "%s", RUNRESUME_REASON);
	if (console_kept)
		snprintf(rec->console_file, sizeof(rec->console_file), "run-%u/console.log",
			 rec->index);
	else
		rec->console_file[0] = '\0';
	rec->log = NULL;
	rec->console = NULL;
	rec->boot_s = rec->first_workload_s = rec->workload_s = rec->total_s = -1;
	rec->shutdown_s = rec->silence_s = rec->silence_cpu_s = -1;
	return runreport_run_json(rec);
}
