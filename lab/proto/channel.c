#include "proto/channel.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "proto/lockstat.h"
#include "proto/oomkill.h"
#include "util/cleanup.h"

#define MAX_COUNTERS 16

/* A check: the line's checked fields as a new object, or NULL when the line is invalid. */
typedef json_t *(*channel_check_fn)(const json_t *m, const struct channel_bounds *b);

static int get_int(const json_t *o, const char *k, long lo, long hi, long *out)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return -EINVAL;
	*out = (long)json_integer_value(v);
	return 0;
}

/* The fields k1 and k2 (may be NULL) that are strings, the others left out: fields the host
 * shows as they came (bounded by the line's size, cut short where it keeps them). */
static json_t *strings(const json_t *m, const char *k1, const char *k2)
{
	json_t *out = json_object();
	const char *keys[] = {k1, k2};

	for (size_t i = 0; out && i < 2 && keys[i]; i++) {
		json_t *v = json_object_get(m, keys[i]);

		if (json_is_string(v) && json_object_set(out, keys[i], v) < 0)
			json_decref(TAKE_PTR(out));
	}
	return out;
}

static json_t *check_hello(const json_t *m, const struct channel_bounds *b)
{
	(void)b;
	return strings(m, "agent", "release");
}

static json_t *check_nothing(const json_t *m, const struct channel_bounds *b)
{
	(void)m;
	(void)b;
	return json_object();
}

static json_t *check_error(const json_t *m, const struct channel_bounds *b)
{
	(void)b;
	return strings(m, "msg", NULL);
}

static json_t *check_done(const json_t *m, const struct channel_bounds *b)
{
	(void)b;
	return json_pack("{s:b}", "ok", json_is_true(json_object_get(m, "ok")));
}

/* ---- topology ------------------------------------------------------------------------------ */

static int valid_int_array(const json_t *a, size_t max_len, long lo, long hi)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a) || json_array_size(a) > max_len)
		return 0;
	json_array_foreach(a, i, v)
		if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
			return 0;
	return 1;
}

/* The topology rebuilt from checked fields only, so nothing unvalidated reaches the report. */
static json_t *check_topology(const json_t *m, const struct channel_bounds *b)
{
	json_t *nodes = json_object_get(m, "nodes"), *dist = json_object_get(m, "distances");
	_cleanup_json_ json_t *out_nodes = json_array();
	size_t i, n;
	json_t *node, *row;
	long id;

	if (!json_is_array(nodes) || !json_is_array(dist) || !out_nodes)
		return NULL;
	n = json_array_size(nodes);
	if (n == 0 || n > b->max_nodes || json_array_size(dist) != n)
		return NULL;
	json_array_foreach(nodes, i, node) {
		long mem, managed = 0;
		json_t *cpus = json_object_get(node, "cpus");

		if (get_int(node, "id", 0, (long)b->max_nodes - 1, &id) < 0 ||
		    get_int(node, "memory_mib", 0, 1L << 30, &mem) < 0 ||
		    !valid_int_array(cpus, b->max_cpus, 0, (long)b->max_cpus - 1))
			return NULL;
		get_int(node, "managed_mib", 0, 1L << 30, &managed);
		json_array_append_new(out_nodes,
				      json_pack("{s:I,s:O,s:I,s:I}", "id", (json_int_t)id, "cpus",
						cpus, "memory_mib", (json_int_t)mem, "managed_mib",
						(json_int_t)managed));
	}
	json_array_foreach(dist, i, row)
		if (!valid_int_array(row, n, 0, 255) || json_array_size(row) != n)
			return NULL;
	/* Optional: the node that holds the kernel image; left out when not one of the nodes. */
	if (get_int(m, "kernel_node", 0, (long)b->max_nodes - 1, &id) == 0)
		json_array_foreach(out_nodes, i, node)
			if (json_integer_value(json_object_get(node, "id")) == id)
				return json_pack("{s:O,s:O,s:I}", "nodes", out_nodes, "distances",
						 dist, "kernel_node", (json_int_t)id);
	return json_pack("{s:O,s:O}", "nodes", out_nodes, "distances", dist);
}

/* ---- workload-start ------------------------------------------------------------------------ */

/* A node's memory in KiB: at most 1 PiB (a topology node has at most 16 TiB). */
#define MAX_NODE_KIB (1L << 40)

/* Each node's memory as the workload found it: ids in range and ascending (so each once),
 * the figures bounded; any failure drops the list (the line is kept: it places the start). */
static json_t *start_nodes(const json_t *nodes, const struct channel_bounds *b)
{
	_cleanup_json_ json_t *out = json_array();
	long last = -1;
	size_t i;
	json_t *n;

	if (!out || !json_is_array(nodes) || json_array_size(nodes) > b->max_nodes)
		return NULL;
	json_array_foreach(nodes, i, n) {
		long id, free_kib, used_kib, pcp_kib, kept_kib;

		if (!json_is_object(n) || json_object_size(n) != 5 ||
		    get_int(n, "id", last + 1, (long)b->max_nodes - 1, &id) < 0 ||
		    get_int(n, "free_kib", 0, MAX_NODE_KIB, &free_kib) < 0 ||
		    get_int(n, "used_kib", 0, MAX_NODE_KIB, &used_kib) < 0 ||
		    get_int(n, "pcp_kib", 0, used_kib, &pcp_kib) < 0 ||
		    get_int(n, "kept_kib", 0, free_kib, &kept_kib) < 0 ||
		    json_array_append_new(out, json_pack("{s:I,s:I,s:I,s:I,s:I}", "id",
				(json_int_t)id, "free_kib", (json_int_t)free_kib, "used_kib",
				(json_int_t)used_kib, "pcp_kib", (json_int_t)pcp_kib, "kept_kib",
				(json_int_t)kept_kib)) < 0)
			return NULL;
		last = id;
	}
	return TAKE_PTR(out);
}

static json_t *check_workload_start(const json_t *m, const struct channel_bounds *b)
{
	long idx;

	if (get_int(m, "index", 0, (long)b->nr_workloads - 1, &idx) < 0)
		return NULL;
	return json_pack("{s:I,s:o*}", "index", (json_int_t)idx, "nodes",
			 start_nodes(json_object_get(m, "nodes"), b));
}

/* ---- kernel, vmstat ------------------------------------------------------------------------ */

/* The vma_lock_* counters of /proc/vmstat (runners/rt_kconfig.c): absent or null -> *out NULL;
 * an object of at most 16 keys vma_lock_[a-z_]+ with integers >= 0 -> a copy (NULL when
 * empty).  0, or -EINVAL for anything else. */
static int counters(const json_t *v, json_t **out)
{
	const char *key;
	json_t *val;

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v) || json_object_size(v) > MAX_COUNTERS)
		return -EINVAL;
	json_object_foreach((json_t *)v, key, val) {
		size_t n = strlen(key);

		if (n < 10 || n > 64 || strncmp(key, "vma_lock_", 9) ||
		    strspn(key + 9, "abcdefghijklmnopqrstuvwxyz_") != n - 9 ||
		    !json_is_integer(val) || json_integer_value(val) < 0)
			return -EINVAL;
	}
	if (json_object_size(v) == 0)
		return 0;
	*out = json_deep_copy(v);
	return *out ? 0 : -ENOMEM;
}

static json_t *check_vmstat(const json_t *m, const struct channel_bounds *b)
{
	json_t *vm;

	(void)b;
	if (counters(json_object_get(m, "vmstat"), &vm) < 0)
		return NULL;
	return json_pack("{s:o}", "vmstat", vm ? vm : json_null());
}

/* The guest's .config: a string without NULs (its size bounded by the line's), or null; or
 * "config_same": true, the guest's .config is the one the host put in its initramfs. */
static json_t *check_kernel(const json_t *m, const struct channel_bounds *b)
{
	const json_t *cfg = json_object_get(m, "config"), *why = json_object_get(m, "config_error");
	const json_t *same = json_object_get(m, "config_same");
	json_t *out = check_vmstat(m, b);

	if (!out || (same && (!json_is_boolean(same) || (json_is_true(same) && cfg))) ||
	    (json_is_true(same) && json_object_set_new(out, "config_same", json_true()) < 0) ||
	    (cfg && !json_is_string(cfg) && !json_is_null(cfg)) ||
	    (json_is_string(cfg) && strlen(json_string_value(cfg)) != json_string_length(cfg)) ||
	    (why && !json_is_string(why)) ||
	    json_object_set_new(out, "config", json_is_string(cfg) ? json_incref((json_t *)cfg)
								 : json_null()) < 0 ||
	    (why && json_object_set(out, "config_error", (json_t *)why) < 0)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* ---- workload ------------------------------------------------------------------------------ */

/* A runner's output: {"results":[{"tasks":N,"metrics":{NAME:{value,unit,better}}}]}. */
static int check_metric(const json_t *m)
{
	const char *unit = json_string_value(json_object_get(m, "unit"));
	const char *better = json_string_value(json_object_get(m, "better"));
	json_t *v = json_object_get(m, "value");

	if (!json_is_number(v) || !isfinite(json_number_value(v)) || !unit || strlen(unit) > 32)
		return 0;
	return better && (!strcmp(better, "higher") || !strcmp(better, "lower"));
}

/* A lock-counting twin's info.lock_stat (proto/lockstat.h): known classes, bounded counts. */
static int check_lock_stat(const json_t *r, size_t i, char *why, size_t len)
{
	const json_t *ls = json_object_get(json_object_get(r, "info"), "lock_stat");
	struct lab_error err = { 0 };
	struct lockstat parsed;
	char path[64];

	if (!ls)
		return 1;
	snprintf(path, sizeof(path), "output.results[%zu].info.lock_stat", i);
	if (lockstat_from_json(ls, path, &parsed, &err) == 0)
		return 1;
	snprintf(why, len, "%s: %s", err.path, err.msg);
	return 0;
}

static int check_output(const json_t *out, const struct channel_bounds *b, char *why,
			size_t len)
{
	json_t *results = json_object_get(out, "results"), *r;
	size_t i;

	if (!json_is_array(results) || json_array_size(results) > CHANNEL_MAX_RESULTS) {
		snprintf(why, len, "output.results: must be an array of at most %d entries",
			 CHANNEL_MAX_RESULTS);
		return 0;
	}
	json_array_foreach(results, i, r) {
		json_t *metrics = json_object_get(r, "metrics"), *m;
		const char *k;
		long tasks, rep;

		if (get_int(r, "tasks", 1, (long)b->max_cpus * 64L, &tasks) < 0 ||
		    !json_is_object(metrics) || json_object_size(metrics) > CHANNEL_MAX_METRICS) {
			snprintf(why, len, "output.results[%zu]: needs tasks and metrics", i);
			return 0;
		}
		/* Optional: which kept repetition of this task count (0-based). */
		if (json_object_get(r, "repetition") &&
		    get_int(r, "repetition", 0, CHANNEL_MAX_RESULTS, &rep) < 0) {
			snprintf(why, len, "output.results[%zu].repetition: must be an integer "
				 "0..%d", i, CHANNEL_MAX_RESULTS);
			return 0;
		}
		json_object_foreach(metrics, k, m)
			if (strlen(k) > 64 || !check_metric(m)) {
				snprintf(why, len, "output.results[%zu].metrics.%.64s: invalid", i, k);
				return 0;
			}
		if (!check_lock_stat(r, i, why, len))
			return 0;
		/* The lock-instruction counter's window id (runners/rt_team.c): the host joins the
		 * plugin's counts to this result by it (core/lockinsn.h). */
		json_t *w = json_object_get(json_object_get(r, "info"), "lock_insn_window");

		if (w && (!json_is_integer(w) || json_integer_value(w) < 0 ||
			  json_integer_value(w) > (json_int_t)UINT32_MAX)) {
			snprintf(why, len, "output.results[%zu].info.lock_insn_window: must be an "
				 "integer 0..%u", i, UINT32_MAX);
			return 0;
		}
	}
	return 1;
}

/* A workload with invalid output is kept (as failed, "error" says why); only a line that
 * cannot be placed (index, exit) is rejected. */
static json_t *check_workload(const json_t *m, const struct channel_bounds *b)
{
	long idx, code, sig;
	json_t *out = json_object_get(m, "output");
	json_t *wall = json_object_get(m, "wall_s");
	const char *err = json_string_value(json_object_get(m, "stderr"));
	char why[256] = "";

	if (get_int(m, "index", 0, (long)b->nr_workloads - 1, &idx) < 0 ||
	    get_int(m, "exit", -255, 255, &code) < 0)
		return NULL;
	if (json_is_object(out) && !check_output(out, b, why, sizeof(why)))
		out = NULL;
	else if (!json_is_object(out) && code == 0)
		snprintf(why, sizeof(why), "no valid JSON output");
	/* Optional: the signal that killed the runner, the OOM killer's lines (oomkill.h); an
	 * invalid one is left out, the workload kept. */
	return json_pack("{s:I,s:I,s:f,s:O?,s:s?,s:s,s:o*,s:o*}", "index", (json_int_t)idx,
			 "exit", (json_int_t)code, "wall_s",
			 json_is_number(wall) ? json_number_value(wall) : -1.0, "output",
			 json_is_object(out) ? out : NULL, "stderr",
			 err && strlen(err) <= 8192 ? err : NULL, "error", why, "signal",
			 get_int(m, "signal", 1, 64, &sig) == 0 ? json_integer(sig) : NULL, "oom",
			 oomkill_check(json_object_get(m, "oom")));
}

/* ---- knobs, cpus-online -------------------------------------------------------------------- */

/* A knob value as the agent read it: null, a short string or an integer. */
static int knob_value_ok(const json_t *v)
{
	return !v || json_is_null(v) || json_is_integer(v) ||
	       (json_is_string(v) && json_string_length(v) <= 64);
}

static json_t *knob_entry(const json_t *e)
{
	static const char *const statuses[] = {"ok", "not-requested", "unavailable", "failed",
					       "differs", NULL};
	const char *name = json_string_value(json_object_get(e, "name"));
	const char *path = json_string_value(json_object_get(e, "path"));
	const char *st = json_string_value(json_object_get(e, "status"));
	const char *error = json_string_value(json_object_get(e, "error"));
	json_t *req = json_object_get(e, "requested"), *before = json_object_get(e, "before");
	json_t *after = json_object_get(e, "after"), *out;
	int known = 0;

	for (const char *const *s = statuses; st && *s; s++)
		known |= !strcmp(*s, st);
	if (!name || strlen(name) > 64 || !path || strlen(path) > 200 || !known ||
	    !knob_value_ok(req) || !knob_value_ok(before) || !knob_value_ok(after) ||
	    !json_is_boolean(json_object_get(e, "required")) || (error && strlen(error) > 200))
		return NULL;
	out = json_pack("{s:s,s:s,s:O?,s:O?,s:O?,s:s,s:O}", "name", name, "path", path,
			"requested", req, "before", before, "after", after, "status", st,
			"required", json_object_get(e, "required"));
	if (out && error)
		json_object_set_new(out, "error", json_string(error));
	return out;
}

/* {"t":"knobs","ok":bool,"knobs":[ENTRY...],"error"?}: kernel settings the agent applied. */
static json_t *check_knobs(const json_t *m, const struct channel_bounds *b)
{
	json_t *list = json_object_get(m, "knobs"), *e, *out;
	const char *error = json_string_value(json_object_get(m, "error"));
	_cleanup_json_ json_t *entries = NULL;
	size_t i;

	(void)b;
	if (!json_is_array(list) || json_array_size(list) > 256 ||
	    !json_is_boolean(json_object_get(m, "ok")) || (error && strlen(error) > 512) ||
	    !(entries = json_array()))
		return NULL;
	json_array_foreach(list, i, e) {
		json_t *k = knob_entry(e);

		if (!k)
			return NULL;
		json_array_append_new(entries, k);
	}
	out = json_pack("{s:O,s:O}", "ok", json_object_get(m, "ok"), "knobs", entries);
	if (out && error)
		json_object_set_new(out, "error", json_string(error));
	return out;
}

/* {"t":"cpus-online", present, requested, failed_count, failed:[{cpu, error}], wall_s,
 * rcu_expedited[, domains_batched, rebuild_s]}: the agent brought the CPUs the lab held back
 * with maxcpus= online.  The last two came later (agents before them did not batch). */
static json_t *check_online(const json_t *m, const struct channel_bounds *b)
{
	json_t *list = json_object_get(m, "failed"), *e, *out;
	json_t *batched = json_object_get(m, "domains_batched");
	json_t *rebuild = json_object_get(m, "rebuild_s");
	_cleanup_json_ json_t *failed = NULL;
	double wall = json_number_value(json_object_get(m, "wall_s"));
	double rb = json_number_value(rebuild);
	long present, requested, nfail, cpu;
	size_t i;

	if (get_int(m, "present", 0, b->max_cpus, &present) < 0 ||
	    get_int(m, "requested", 0, present, &requested) < 0 ||
	    get_int(m, "failed_count", 0, requested, &nfail) < 0 ||
	    !json_is_number(json_object_get(m, "wall_s")) || !(wall >= 0 && wall < 1e7) ||
	    !json_is_boolean(json_object_get(m, "rcu_expedited")) || !json_is_array(list) ||
	    json_array_size(list) > 16 || !(failed = json_array()))
		return NULL;
	if (!batched != !rebuild || (batched && !json_is_boolean(batched)) ||
	    (rebuild && (!json_is_number(rebuild) || !(rb >= 0 && rb <= wall))))
		return NULL;
	json_array_foreach(list, i, e) {
		const char *why = json_string_value(json_object_get(e, "error"));

		if (get_int(e, "cpu", 0, (long)b->max_cpus - 1, &cpu) < 0 || !why ||
		    strlen(why) > 128)
			return NULL;
		json_array_append_new(failed, json_pack("{s:I,s:s}", "cpu", (json_int_t)cpu,
							"error", why));
	}
	out = json_pack("{s:I,s:I,s:I,s:O,s:f,s:O}", "present", (json_int_t)present,
			"requested", (json_int_t)requested, "failed_count", (json_int_t)nfail,
			"failed", failed, "wall_s", wall, "rcu_expedited",
			json_object_get(m, "rcu_expedited"));
	if (out && batched &&
	    (json_object_set(out, "domains_batched", batched) < 0 ||
	     json_object_set_new(out, "rebuild_s", json_real(rb)) < 0)) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* ---- the table ----------------------------------------------------------------------------- */

static const struct {
	const char *name;
	channel_check_fn check;
} types[] = {
	[CHANNEL_HELLO] = {CHANNEL_T_HELLO, check_hello},
	[CHANNEL_TOPOLOGY] = {CHANNEL_T_TOPOLOGY, check_topology},
	[CHANNEL_KERNEL] = {CHANNEL_T_KERNEL, check_kernel},
	[CHANNEL_KNOBS] = {CHANNEL_T_KNOBS, check_knobs},
	[CHANNEL_CPUS_ONLINE] = {CHANNEL_T_CPUS_ONLINE, check_online},
	[CHANNEL_HEARTBEAT] = {CHANNEL_T_HEARTBEAT, check_nothing},
	[CHANNEL_WORKLOAD_START] = {CHANNEL_T_WORKLOAD_START, check_workload_start},
	[CHANNEL_WORKLOAD] = {CHANNEL_T_WORKLOAD, check_workload},
	[CHANNEL_ERROR] = {CHANNEL_T_ERROR, check_error},
	[CHANNEL_VMSTAT] = {CHANNEL_T_VMSTAT, check_vmstat},
	[CHANNEL_DONE] = {CHANNEL_T_DONE, check_done},
};

_Static_assert(sizeof(types) / sizeof(types[0]) == CHANNEL_UNKNOWN,
	       "one row per channel type");

const char *channel_type_name(enum channel_type t)
{
	return (unsigned)t < CHANNEL_UNKNOWN ? types[t].name : "unknown";
}

int channel_parse(const char *line, size_t len, const struct channel_bounds *b,
		  struct channel_msg *msg)
{
	json_error_t je;
	_cleanup_json_ json_t *m = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	const char *type = json_string_value(json_object_get(m, CHANNEL_KEY_TYPE));

	msg->type = CHANNEL_UNKNOWN;
	msg->body = NULL;
	for (unsigned t = 0; type && t < CHANNEL_UNKNOWN; t++)
		if (!strcmp(type, types[t].name))
			msg->type = (enum channel_type)t;
	if (msg->type == CHANNEL_UNKNOWN)
		return -EINVAL; /* unknown types are ignored, not trusted */
	msg->body = types[msg->type].check(m, b);
	return msg->body ? 0 : -EINVAL;
}

void channel_msg_free(struct channel_msg *msg)
{
	json_decref(msg->body);
	msg->body = NULL;
}
