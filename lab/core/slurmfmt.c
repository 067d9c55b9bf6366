/* Slurm's commands and output for labd: see slurmfmt.h. */
#include "core/slurmfmt.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonio.h"

int slurmfmt_feature_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n >= 1 && n <= SLURM_FEATURE_MAX &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n &&
	       s[0] != '-';
}

int slurmfmt_sbatch_argv(const struct slurm_batch *b, struct slurm_argv_bufs *bufs,
			 char *argv[SLURM_ARGV_MAX])
{
	size_t n = 0;

	if (b->constraint && b->constraint[0] && !slurmfmt_feature_ok(b->constraint))
		return -EINVAL;
	snprintf(bufs->time, sizeof(bufs->time), "--time=%u", b->time_min ? b->time_min : 1);
	snprintf(bufs->name, sizeof(bufs->name), "--job-name=%s", b->name);
	snprintf(bufs->output, sizeof(bufs->output), "--output=%s", b->output);
	snprintf(bufs->workdir, sizeof(bufs->workdir), "--chdir=%s", b->workdir);
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	argv[n++] = "--exclusive";
	argv[n++] = "--nodes=1";
	argv[n++] = "--requeue";
	argv[n++] = "--signal=B:INT@120";
	argv[n++] = "--open-mode=append";
	argv[n++] = bufs->time;
	argv[n++] = bufs->name;
	argv[n++] = bufs->output;
	argv[n++] = bufs->workdir;
	if (b->constraint && b->constraint[0]) {
		snprintf(bufs->constraint, sizeof(bufs->constraint), "--constraint=%s",
			 b->constraint);
		argv[n++] = bufs->constraint;
	}
	if (b->partition && b->partition[0]) {
		snprintf(bufs->partition, sizeof(bufs->partition), "--partition=%s", b->partition);
		argv[n++] = bufs->partition;
	}
	argv[n++] = (char *)b->script;
	for (size_t i = 0; b->cmd[i]; i++) {
		if (n + 1 >= SLURM_ARGV_MAX)
			return -E2BIG;
		argv[n++] = b->cmd[i];
	}
	argv[n] = NULL;
	return 0;
}

enum slurm_phase slurmfmt_phase(const char *state)
{
	static const char *const running[] = { "RUNNING", "COMPLETING", NULL };
	static const char *const lost[] = { "TIMEOUT", "NODE_FAIL", "BOOT_FAIL", "OUT_OF_MEMORY",
					    "DEADLINE", "PREEMPTED", NULL };

	for (size_t i = 0; running[i]; i++)
		if (!strcmp(state, running[i]))
			return SLURM_RUNNING;
	if (!strcmp(state, "COMPLETED") || !strcmp(state, "FAILED"))
		return SLURM_ENDED;
	if (!strcmp(state, "CANCELLED"))
		return SLURM_CANCELLED;
	for (size_t i = 0; lost[i]; i++)
		if (!strcmp(state, lost[i]))
			return SLURM_LOST;
	return SLURM_WAITING; /* PENDING, CONFIGURING, REQUEUED, REQUEUE_HOLD, SUSPENDED ... */
}

static void copy_str(char *dst, size_t len, const json_t *v)
{
	const char *s = json_string_value(v);

	snprintf(dst, len, "%s", s ? s : "");
	for (char *p = dst; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
}

/* Slurm's JSON: the document's "errors" array says what failed. */
static int check_doc(const json_t *doc, const char *key, struct lab_error *err)
{
	const json_t *errs = json_object_get(doc, "errors");

	if (!json_is_object(doc) || !json_is_array(json_object_get(doc, key)))
		return error_set(err, key, "not Slurm's JSON output (no \"%s\" array)", key);
	if (json_array_size(errs)) {
		const char *e = json_string_value(json_object_get(json_array_get(errs, 0), "error"));

		return error_set(err, "errors[0]", "Slurm says: %s", e ? e : "an error");
	}
	return 0;
}

int slurmfmt_parse_job(const char *text, size_t len, long long id, struct slurm_job_info *out,
		       struct lab_error *err)
{
	_cleanup_json_ json_t *doc = NULL;
	const json_t *j;
	size_t i;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = jsonio_load_buf(text, len, &doc, err)) < 0 || (r = check_doc(doc, "jobs", err)) < 0)
		return r;
	json_array_foreach(json_object_get(doc, "jobs"), i, j) {
		const json_t *st = json_object_get(j, "job_state");
		json_int_t code = json_integer_value(json_object_get(j, "exit_code"));

		if (json_integer_value(json_object_get(j, "job_id")) != id)
			continue;
		if (!json_is_string(st))
			return error_set(err, "jobs[].job_state", "not a string");
		copy_str(out->state, sizeof(out->state), st);
		out->phase = slurmfmt_phase(out->state);
		/* a wait status: the script's exit code, or the signal that ended it */
		out->exit_code = (int)((code >> 8) & 0xff);
		out->signal = (int)(code & 0x7f);
		out->restarts = (unsigned)json_integer_value(json_object_get(j, "restart_cnt"));
		out->requeue = json_is_true(json_object_get(j, "requeue"));
		copy_str(out->nodes, sizeof(out->nodes), json_object_get(j, "nodes"));
		copy_str(out->reason, sizeof(out->reason), json_object_get(j, "state_reason"));
		return 0;
	}
	return -ENOENT;
}

static int cmp_str(const void *x, const void *y);

/* The node's features, sorted (slurm.conf's order is the operator's, not a fact). */
static json_t *features_of(const json_t *node)
{
	json_t *a = json_array();
	const char *f = json_string_value(json_object_get(node, "active_features"));
	char buf[1024], *save = NULL, *words[128];
	size_t n = 0;

	if (!f)
		f = json_string_value(json_object_get(node, "features"));
	snprintf(buf, sizeof(buf), "%s", f ? f : "");
	for (char *t = strtok_r(buf, ",", &save); t && n < 128; t = strtok_r(NULL, ",", &save))
		words[n++] = t;
	qsort(words, n, sizeof(words[0]), cmp_str);
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(words[i]));
	return a;
}

/* A count sinfo gives, 0 when absent or not a number (22.05 leaves some out of a node that
 * is down). */
static json_int_t count_of(const json_t *node, const char *key)
{
	json_int_t v = json_integer_value(json_object_get(node, key));

	return v > 0 ? v : 0;
}

/* "idle", or with Slurm's flags lower-cased after a "+" ("idle+drain"): 22.05 keeps a
 * drained node's base state in "state" and DRAIN among "state_flags". */
static void node_state(const json_t *node, char *buf, size_t len)
{
	const json_t *f;
	size_t i, used;

	copy_str(buf, len, json_object_get(node, "state"));
	json_array_foreach(json_object_get(node, "state_flags"), i, f) {
		const char *w = json_string_value(f);

		used = strlen(buf);
		if (!w || used + strlen(w) + 2 > len)
			continue;
		buf[used++] = '+';
		for (; *w; w++)
			buf[used++] = (char)tolower((unsigned char)*w);
		buf[used] = '\0';
	}
}

static int by_name(const void *x, const void *y)
{
	return strcmp(json_string_value(json_object_get(*(json_t *const *)x, "name")),
		      json_string_value(json_object_get(*(json_t *const *)y, "name")));
}

int slurmfmt_parse_nodes(const char *text, size_t len, json_t **out, struct lab_error *err)
{
	_cleanup_json_ json_t *doc = NULL, *nodes = json_array();
	json_t *sorted[1024], *n;
	size_t i, k = 0;
	int r;

	if (!nodes)
		return -ENOMEM;
	if ((r = jsonio_load_buf(text, len, &doc, err)) < 0 || (r = check_doc(doc, "nodes", err)) < 0)
		return r;
	json_array_foreach(json_object_get(doc, "nodes"), i, n) {
		if (!json_is_string(json_object_get(n, "name")))
			return error_set(err, "nodes[].name", "not a string");
		if (k < sizeof(sorted) / sizeof(sorted[0]))
			sorted[k++] = n;
	}
	qsort(sorted, k, sizeof(sorted[0]), by_name);
	for (i = 0; i < k; i++) {
		char state[160], reason[256];

		node_state(sorted[i], state, sizeof(state));
		copy_str(reason, sizeof(reason), json_object_get(sorted[i], "reason"));
		if (json_array_append_new(nodes, json_pack("{s:O, s:s, s:o, s:s, s:I, s:I, s:I, s:I}",
				"name", json_object_get(sorted[i], "name"), "state", state,
				"features", features_of(sorted[i]), "reason", reason,
				"cpus", count_of(sorted[i], "cpus"),
				"alloc_cpus", count_of(sorted[i], "alloc_cpus"),
				"memory_mib", count_of(sorted[i], "real_memory"),
				"free_mib", count_of(sorted[i], "free_memory"))) < 0)
			return -ENOMEM;
	}
	*out = TAKE_PTR(nodes);
	return 0;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int slurmfmt_feature_known(const json_t *nodes, const char *feature, char *have, size_t len)
{
	_cleanup_json_ json_t *all = json_object();
	const char *names[256], *k;
	const json_t *n, *f;
	json_t *v;
	size_t i, j, nk = 0, used = 0;
	int found = 0;

	have[0] = '\0';
	json_array_foreach(nodes, i, n)
		json_array_foreach(json_object_get(n, "features"), j, f) {
			found |= !strcmp(json_string_value(f), feature);
			json_object_set_new(all, json_string_value(f), json_true());
		}
	json_object_foreach(all, k, v)
		if (nk < sizeof(names) / sizeof(names[0]))
			names[nk++] = k;
	qsort(names, nk, sizeof(names[0]), cmp_str);
	for (i = 0; i < nk && used < len; i++)
		used += (size_t)snprintf(have + used, len - used, "%s%s", i ? ", " : "", names[i]);
	return found;
}
