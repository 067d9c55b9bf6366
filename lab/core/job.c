#include "core/job.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/knobs.h"
#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/jsonpath.h"
#include "util/text.h"

static const char *const job_keys[] = {
	"name", "topology", "kernel", "kernels", "matrix", "repeats", "workloads", "timeouts", "debug",
	"knobs", "image", "timing", "quantum", "precision", "parallel", "lock_insns", "profile",
	"numa_cost", "threshold",
	NULL,
};
static const char *const precision_keys[] = {"ci_pct", "until", "min_boots", "max_boots", "max_s",
					     NULL};
static const char *const workload_keys[] = {"name", "params", "timeout_s", "aslr", NULL};
static const char *const timeouts_keys[] = {"boot_s", "boot_silence_s", "progress_s", NULL};
static const char *const debug_keys[] = {"fault", "fault_after", "channel_max_mib",
					 "console_max_mib", NULL};

/* An optional object member with only the allowed keys: *out is NULL when it is absent. */
static int get_section(const json_t *j, const char *key, const char *const *allowed,
		       const json_t **out, struct lab_error *err)
{
	const json_t *v = json_object_get(j, key);
	int r;

	*out = NULL;
	if (!v)
		return 0;
	r = jsonpath_check_object(v, key, allowed, err);
	if (r < 0)
		return r;
	*out = v;
	return 0;
}

static int parse_name(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "name");
	const char *s;
	size_t n;

	if (!v)
		return error_set(err, "name", "required");
	s = json_string_value(v);
	n = s ? strlen(s) : 0;
	if (!s || n < 1 || n > 63 ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != n)
		return error_set(err, "name", "must match [A-Za-z0-9._-]{1,63}");
	snprintf(job->name, sizeof(job->name), "%s", s);
	return 0;
}

static int parse_topology(const json_t *j, job_topology_loader load, void *userdata,
			  struct job *job, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "topology");
	_cleanup_json_ json_t *loaded = NULL;
	char saved_file[sizeof(err->file)];
	const char *ref;
	int r;

	if (!v)
		return error_set(err, "topology", "required");
	if (json_is_object(v))
		return topology_from_json(v, "topology", &job->topo, err);
	ref = json_string_value(v);
	if (!ref)
		return error_set(err, "topology", "must be a topology name or an object");
	if (!ref[0] || strlen(ref) >= sizeof(job->topology_ref) || text_has_control_chars(ref))
		return error_set(err, "topology", "must be a non-empty name or path");
	if (!load)
		return error_set(err, "topology", "topology names cannot be resolved here");
	snprintf(job->topology_ref, sizeof(job->topology_ref), "%s", ref);

	/* The loader names the topology file in err->file, and errors inside it keep that
	 * file; once it has parsed, errors are about the job file again. */
	snprintf(saved_file, sizeof(saved_file), "%s", err ? err->file : "");
	r = load(ref, userdata, &loaded, err);
	if (r < 0)
		return r;
	if (!loaded)
		return error_set(err, "topology", "loader returned nothing for \"%s\"", ref);
	r = topology_from_json(loaded, "topology", &job->topo, err);
	if (r < 0)
		return r;
	if (err)
		snprintf(err->file, sizeof(err->file), "%s", saved_file);
	return 0;
}

static int parse_repeats(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "repeats");

	job->repeats = 1;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > JOB_MAX_REPEATS)
		return error_set(err, "repeats", "must be an integer 1..%d", JOB_MAX_REPEATS);
	job->repeats = (unsigned)json_integer_value(v);
	return 0;
}

/* A JSON number (integer or real), finite, > 0 or >= 0. */
static int number_ok(const json_t *v, int allow_zero, double *out)
{
	double d;

	if (!json_is_number(v))
		return 0;
	d = json_number_value(v);
	if (!isfinite(d) || d < 0 || (!allow_zero && d == 0))
		return 0;
	*out = d;
	return 1;
}

static int parse_workload(const json_t *w, unsigned idx, unsigned vcpus,
			  struct job_workload *out, struct lab_error *err)
{
	const struct workload_def *def;
	const json_t *v;
	char path[JSONPATH_LEN], p[JSONPATH_LEN];
	const char *name;
	int r;

	jsonpath_index(path, sizeof(path), "workloads", idx);
	r = jsonpath_check_object(w, path, workload_keys, err);
	if (r < 0)
		return r;

	jsonpath_key(p, sizeof(p), path, "name");
	v = json_object_get(w, "name");
	if (!v)
		return error_set(err, p, "required");
	name = json_string_value(v);
	if (!name)
		return error_set(err, p, "must be a string");
	def = workload_find(name);
	if (!def) {
		char known[256];

		const char *names[32], *near;
		size_t n = 0;

		for (; n < workload_count() && n < 32; n++)
			names[n] = workload_at(n)->name;
		near = text_nearest(name, names, n);
		workload_names(known, sizeof(known));
		if (near)
			return error_set(err, p, "unknown workload \"%.64s\": did you mean \"%s\"? "
					 "(known: %s)", name, near, known);
		return error_set(err, p, "unknown workload \"%.64s\" (known: %s)", name, known);
	}
	snprintf(out->name, sizeof(out->name), "%s", def->name);

	jsonpath_key(p, sizeof(p), path, "params");
	r = workload_params(def, json_object_get(w, "params"), p, vcpus, &out->params, err);
	if (r < 0)
		return r;

	v = json_object_get(w, "timeout_s");
	/* Bounded as the agent bounds it: a job the lab accepts is never refused in the guest
	 * (found by lab/fuzz/fuzz_job.c). */
	if (v && (!number_ok(v, 0, &out->timeout_s) || out->timeout_s > GUESTJOB_MAX_TIMEOUT_S)) {
		jsonpath_key(p, sizeof(p), path, "timeout_s");
		return error_set(err, p, "must be a positive number of seconds, at most %.0f (a "
				 "week)", GUESTJOB_MAX_TIMEOUT_S);
	}
	v = json_object_get(w, "aslr");
	if (v && !json_is_boolean(v)) {
		jsonpath_key(p, sizeof(p), path, "aslr");
		return error_set(err, p, "must be true or false");
	}
	out->no_aslr = json_is_false(v);
	return 0;
}

static int parse_workloads(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "workloads");
	size_t n = json_array_size(v);

	if (!v)
		return error_set(err, "workloads", "required");
	if (!json_is_array(v) || n < 1 || n > JOB_MAX_WORKLOADS)
		return error_set(err, "workloads", "must be an array of 1..%d workloads",
				 JOB_MAX_WORKLOADS);
	job->workloads = calloc(n, sizeof(*job->workloads));
	if (!job->workloads)
		return -ENOMEM;
	job->nr_workloads = (unsigned)n;
	for (unsigned i = 0; i < job->nr_workloads; i++) {
		int r = parse_workload(json_array_get(v, i), i, job->topo.vcpus, &job->workloads[i],
				       err);

		if (r < 0)
			return r;
	}
	return 0;
}

static int parse_timeouts(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *t, *v;
	int r;

	r = get_section(j, "timeouts", timeouts_keys, &t, err);
	if (r < 0 || !t)
		return r;
	v = json_object_get(t, "boot_s");
	if (v && !number_ok(v, 1, &job->boot_timeout_s))
		return error_set(err, "timeouts.boot_s", "must be a non-negative number");
	v = json_object_get(t, "boot_silence_s");
	if (v && !number_ok(v, 1, &job->boot_silence_s))
		return error_set(err, "timeouts.boot_silence_s", "must be a non-negative number");
	v = json_object_get(t, "progress_s");
	if (v && !number_ok(v, 1, &job->progress_timeout_s))
		return error_set(err, "timeouts.progress_s", "must be a non-negative number");
	return 0;
}

/* A bound of what the host takes from the guest, lowered for a test (a serial port under TCG
 * carries ~130 KB/s: the full 64 MiB take 8 minutes); never raised.  Absent: max. */
static int debug_mib(const json_t *d, const char *key, unsigned max, unsigned *out,
		     struct lab_error *err)
{
	const json_t *v = json_object_get(d, key);
	char path[64];

	*out = max;
	if (!v)
		return 0;
	snprintf(path, sizeof(path), "debug.%s", key);
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > max)
		return error_set(err, path, "must be an integer from 1 to %u", max);
	*out = (unsigned)json_integer_value(v);
	return 0;
}

static int parse_debug(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *d;
	enum fault_after after;
	int r;

	job->fault = FAULT_NONE;
	job->channel_max_mib = JOB_CHANNEL_MAX_MIB;
	job->console_max_mib = JOB_CONSOLE_MAX_MIB;
	r = get_section(j, "debug", debug_keys, &d, err);
	if (r < 0 || !d)
		return r;
	/* "workloads": the fault fires once the workloads ran, so that there are results for a
	 * post-mortem to recover. */
	r = fault_after_parse(json_object_get(d, "fault_after"), "debug.fault_after", &after, err);
	if (r < 0)
		return r;
	job->fault_after_workloads = after == FAULT_AFTER_WORKLOADS;
	if ((r = debug_mib(d, "channel_max_mib", JOB_CHANNEL_MAX_MIB, &job->channel_max_mib,
			   err)) < 0 ||
	    (r = debug_mib(d, "console_max_mib", JOB_CONSOLE_MAX_MIB, &job->console_max_mib,
			   err)) < 0)
		return r;
	return fault_parse(json_object_get(d, "fault"), "debug.fault", &job->fault, err);
}

static int precision_count(const json_t *p, const char *key, unsigned min, unsigned def,
			   unsigned *out, struct lab_error *err)
{
	const json_t *v = json_object_get(p, key);
	char path[64];

	*out = def;
	if (!v)
		return 0;
	snprintf(path, sizeof(path), "precision.%s", key);
	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > JOB_MAX_REPEATS)
		return error_set(err, path, "must be an integer %u..%d", min, JOB_MAX_REPEATS);
	*out = (unsigned)json_integer_value(v);
	return 0;
}

static int parse_precision(const json_t *j, struct job *job, struct lab_error *err)
{
	struct job_precision *p = &job->precision;
	const json_t *o, *v;
	int r;

	memset(p, 0, sizeof(*p));
	if ((r = get_section(j, "precision", precision_keys, &o, err)) < 0 || !o)
		return r;
	if (json_object_get(j, "repeats"))
		return error_set(err, "precision", "cannot go with \"repeats\": it decides how many "
						   "boots run");
	v = json_object_get(o, "until");
	if (v && !(json_is_string(v) && !strcmp(json_string_value(v), "decided")))
		return error_set(err, "precision.until", "must be \"decided\"");
	/* With one kernel there is nothing to decide: its max_boots rounds run (lab ab gives
	 * its default job, configs/ab.json, the two kernels). */
	p->until_decided = v != NULL;
	v = json_object_get(o, "ci_pct");
	if (v && p->until_decided)
		return error_set(err, "precision.ci_pct", "cannot go with \"until\": the rounds stop "
							  "at a decision, not at a width");
	if (!v && !p->until_decided)
		return error_set(err, "precision.ci_pct", "required (or \"until\": \"decided\")");
	if (v && (!number_ok(v, 0, &p->ci_pct) || p->ci_pct > 100))
		return error_set(err, "precision.ci_pct", "must be a number > 0 and <= 100 (percent)");
	/* A sequential A/B looks from the first round Welch can test (2 boots a side): its
	 * repeated intervals make every look safe. */
	if ((r = precision_count(o, "min_boots", 2, p->until_decided ? 2 : 3, &p->min_boots,
				 err)) < 0 ||
	    (r = precision_count(o, "max_boots", 2, 20, &p->max_boots, err)) < 0)
		return r;
	if (p->max_boots < p->min_boots)
		return error_set(err, "precision.max_boots", "must be at least min_boots (%u)",
				 p->min_boots);
	v = json_object_get(o, "max_s");
	if (v && !number_ok(v, 1, &p->max_s))
		return error_set(err, "precision.max_s", "must be a non-negative number (seconds)");
	job->repeats = p->max_boots; /* the most rounds that can run */
	return 0;
}

static int parse_timing(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "timing");

	job->timing = TIMING_AUTO;
	if (v && timing_parse(json_string_value(v), &job->timing) < 0)
		return error_set(err, "timing", "must be \"auto\", \"kvm\", \"tcg\", \"icount\" "
				 "or \"quantum\"");
	/* The NUMA cost model's charges are paid in the contention model's rounds: with them
	 * "auto" can only mean that model (parse_numa_cost refuses another). */
	if (job->timing == TIMING_AUTO && json_object_get(j, "numa_cost"))
		job->timing = TIMING_QUANTUM;
	/* A profile is exact under the contention model only: "auto" means it there too. */
	if (job->timing == TIMING_AUTO && json_is_true(json_object_get(j, "profile")))
		job->timing = TIMING_QUANTUM;
	/* The round belongs to the model: a quantum on another model would be ignored. */
	v = json_object_get(j, "quantum");
	job->quantum = 0;
	if (!v)
		return 0;
	if (job->timing != TIMING_QUANTUM)
		return error_set(err, "quantum", "only the contention model has a quantum: set "
				 "\"timing\": \"quantum\" too");
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > DOMAIN_QUANTUM_MAX)
		return error_set(err, "quantum", "must be an integer 1..%u (instructions per vCPU "
				 "a round; default %u)", DOMAIN_QUANTUM_MAX, TIMING_QUANTUM_DEFAULT);
	job->quantum = (unsigned)json_integer_value(v);
	return 0;
}

/* A TCG counter's switch (key): true or false, and only under a model whose vCPU index the
 * plugin can trust (tcg, or quantum on the lab's QEMU).  why: the end of the message. */
static int parse_counter(const json_t *j, const char *key, const char *why, int *out,
			 const struct job *job, struct lab_error *err)
{
	const json_t *v = json_object_get(j, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return error_set(err, key, "must be true or false");
	*out = json_is_true(v);
	if (*out && job->timing != TIMING_TCG && job->timing != TIMING_QUANTUM)
		return error_set(err, key, "needs \"timing\": \"tcg\" or \"quantum\" (the plugin "
				 "counts TCG's instructions per vCPU, which stock QEMU under icount "
				 "tells it wrongly; %s)", why);
	return 0;
}

/* "lock_insns": count the instructions inside and outside each spinlock with the QEMU TCG
 * plugin (lab/plugin/lockinsn.c, core/lockinsn.h).  Under "tcg", or under "quantum" on the
 * lab's QEMU, whose patch 0003 gives a plugin the vCPU that runs a block: stock QEMU 10.0
 * under icount (one thread runs every vCPU) hands it the index of the vCPU that translated the
 * block (accel/tcg/plugin-gen.c, gen_cpu_index: a constant without CF_PARALLEL), which mixed
 * four tasks' windows into one here.  Instruction counts do not depend on the timing model. */
static int parse_lock_insns(const json_t *j, struct job *job, struct lab_error *err)
{
	return parse_counter(j, "lock_insns", "instruction counts do not depend on the model",
			     &job->lock_insns, job, err);
}

/* "profile": an instruction profile per kernel symbol of each measured window (the TCG
 * plugin lab/plugin/profile.c, core/profile.h), loaded beside the lock counter or the NUMA cost
 * model.  Its models are lock_insns' (the same vCPU index, the same reason), and it is exact
 * under the deterministic one: quantum. */
static int parse_profile(const json_t *j, struct job *job, struct lab_error *err)
{
	return parse_counter(j, "profile", "quantum's counts are exact", &job->profile, job, err);
}

#define NUMA_NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789-"

int job_numa_is_path(const char *ref)
{
	size_t n = strlen(ref);

	return strchr(ref, '/') || (n > 5 && !strcmp(ref + n - 5, ".json"));
}

/* "numa_cost": a preset (configs/numa/NAME.json, or a file) whose latencies the TCG plugin
 * lab/plugin/numacost.c charges each vCPU for the cache lines it takes from another, through
 * the QEMU patch images/qemu/0003-icount-charge.patch.  Only under the contention model: the
 * charges are guest time a vCPU owes, paid in its rounds.  The plugin's directory holds at
 * most NUMACOST_MAX_VCPUS sharers a line, and the lock-instruction counter is a plugin too:
 * QEMU would load both, and each would slow the other's figures. */
static int parse_numa_cost(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "numa_cost");
	const char *s = json_string_value(v);
	size_t n = s ? strlen(s) : 0;

	job->numa_cost[0] = '\0';
	if (!v)
		return 0;
	if (!s || !n || n >= sizeof(job->numa_cost) || text_has_control_chars(s) ||
	    (!job_numa_is_path(s) && (n > 63 || strspn(s, NUMA_NAME_CHARS) != n)))
		return error_set(err, "numa_cost", "must be a preset's name ([a-z0-9-]{1,63}, "
				 "configs/numa/NAME.json) or the path of a preset file (with a '/' "
				 "or ending in .json)");
	if (job->timing != TIMING_QUANTUM)
		return error_set(err, "numa_cost", "needs the contention model: \"timing\": "
				 "\"quantum\" (or no \"timing\": with numa_cost \"auto\" is quantum), "
				 "not \"%s\"; its charges are paid in that model's rounds",
				 timing_info(job->timing)->name);
	if (job->topo.vcpus > NUMACOST_MAX_VCPUS)
		return error_set(err, "numa_cost", "the NUMA cost model takes at most %d vCPUs, "
				 "topology %s has %u", NUMACOST_MAX_VCPUS, job->topo.name,
				 job->topo.vcpus);
	if (json_is_true(json_object_get(j, "lock_insns")))
		return error_set(err, "numa_cost", "cannot go with \"lock_insns\": true: one QEMU "
				 "plugin a boot for now");
	snprintf(job->numa_cost, sizeof(job->numa_cost), "%s", s);
	return 0;
}

int job_set_numa_preset(struct job *job, const json_t *preset, const char *file,
			struct lab_error *err)
{
	char saved[sizeof(err->file)];
	struct lab_error fit = { 0 };
	struct numa_preset p;
	int r;

	snprintf(saved, sizeof(saved), "%s", err ? err->file : "");
	error_set_file(err, file);
	r = numapreset_from_json(preset, "numa_cost", &p, err);
	if (r < 0)
		return r;
	error_set_file(err, saved);
	/* The misfit's own path is the preset's (nodes, matrix[a][b]): the job's is numa_cost. */
	r = numapreset_check_topology(&p, "", &job->topo, &fit);
	if (r == -EINVAL)
		r = error_set(err, "numa_cost", "%s", fit.msg);
	if (r == 0)
		r = numapreset_sha256(&p, job->numa_sha256);
	if (r < 0) {
		numapreset_free(&p);
		return r;
	}
	numapreset_free(&job->numa);
	job->numa = p;
	return 0;
}

/* "parallel": guests at once.  Only the deterministic model's figures are independent of what
 * else runs on the host, so more than one at once is refused where the job asks for a
 * host-clock model; under "auto" the lab decides once the model is known (run/engine.c). */
static int parse_parallel(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "parallel");

	job->parallel = 0;
	if (!v || (json_is_string(v) && !strcmp(json_string_value(v), "auto")))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 1 ||
	    json_integer_value(v) > JOB_MAX_PARALLEL)
		return error_set(err, "parallel", "must be \"auto\" or an integer 1..%d",
				 JOB_MAX_PARALLEL);
	job->parallel = (unsigned)json_integer_value(v);
	if (job->parallel > 1 && job->timing != TIMING_AUTO && !timing_info(job->timing)->deterministic)
		return error_set(err, "parallel", "%u guests at once need the deterministic timing "
				 "model (\"timing\": \"icount\" or \"quantum\"): under %s a guest's figures "
				 "move with what else runs on the host", job->parallel,
				 timing_info(job->timing)->name);
	return 0;
}

/* "threshold": how an A/B of this job decides: a fixed minimum effect in % (the default
 * COMPARE's 1 %), or "learned": each series by the threshold of noise its history taught
 * (analysis/noise.h), the fixed one where it taught none. */
static int parse_threshold(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "threshold");

	job->threshold_pct = 0;
	job->threshold_learned = 0;
	if (!v)
		return 0;
	if (json_is_string(v) && !strcmp(json_string_value(v), "learned")) {
		job->threshold_learned = 1;
		return 0;
	}
	if (!json_is_number(v) || !(json_number_value(v) > 0) || json_number_value(v) > 100)
		return error_set(err, "threshold", "must be \"learned\" or a number of %% above 0 "
				 "and at most 100");
	job->threshold_pct = json_number_value(v);
	return 0;
}

/* A topology without a name of its own is called by its reference's base name ("inline"
 * without one): errors name it from here on. */
static void name_topology(struct job *job)
{
	const char *base = strrchr(job->topology_ref, '/');
	size_t n;

	if (job->topo.name[0])
		return;
	base = base ? base + 1 : job->topology_ref;
	n = strlen(base);
	if (n > 5 && strcmp(base + n - 5, ".json") == 0)
		n -= 5;
	if (n == 0) {
		base = "inline";
		n = strlen(base);
	}
	snprintf(job->topo.name, sizeof(job->topo.name), "%.*s", (int)n, base);
}

static int job_parse(const json_t *j, job_topology_loader load, void *userdata, struct job *job,
		     struct lab_error *err)
{
	int r;

	if (!json_is_object(j))
		return error_set(err, "", "a job must be a JSON object");
	if ((r = jsonpath_check_keys(j, "", job_keys, err)) < 0 ||
	    (r = parse_name(j, job, err)) < 0 ||
	    (r = parse_topology(j, load, userdata, job, err)) < 0)
		return r;
	name_topology(job);
	if ((r = job_parse_kernels(j, job, err)) < 0 || (r = parse_repeats(j, job, err)) < 0 ||
	    (r = parse_workloads(j, job, err)) < 0 || (r = parse_timeouts(j, job, err)) < 0 ||
	    (r = parse_debug(j, job, err)) < 0 || (r = job_parse_image(j, job, err)) < 0 ||
	    (r = parse_timing(j, job, err)) < 0 || (r = parse_precision(j, job, err)) < 0 ||
	    (r = parse_parallel(j, job, err)) < 0 || (r = parse_numa_cost(j, job, err)) < 0 ||
	    (r = parse_lock_insns(j, job, err)) < 0 || (r = parse_profile(j, job, err)) < 0 ||
	    (r = parse_threshold(j, job, err)) < 0 ||
	    (r = knobs_parse(json_object_get(j, "knobs"), &job->topo, &job->knobs, err)) < 0 ||
	    (r = job_merge_knobs(job, json_is_true(json_object_get(
						  json_object_get(j, "knobs"), "required")))) < 0)
		return r;
	return 0;
}

int job_from_json(const json_t *j, job_topology_loader load, void *userdata, struct job *job,
		  struct lab_error *err)
{
	struct job tmp;
	int r;

	memset(&tmp, 0, sizeof(tmp));
	memset(job, 0, sizeof(*job));
	r = job_parse(j, load, userdata, &tmp, err);
	if (r < 0) {
		job_free(&tmp);
		return r;
	}
	*job = tmp;
	return 0;
}

void job_free(struct job *job)
{
	if (!job)
		return;
	for (unsigned i = 0; job->workloads && i < job->nr_workloads; i++)
		json_decref(job->workloads[i].params);
	free(job->workloads);
	for (unsigned i = 0; job->kernels && i < job->nr_kernels; i++) {
		json_decref(job->kernels[i].own_knobs);
		json_decref(job->kernels[i].knobs);
	}
	free(job->kernels);
	json_decref(job->knobs);
	numapreset_free(&job->numa);
	topology_free(&job->topo);
	memset(job, 0, sizeof(*job));
}

/* The agent's heartbeat while it is alive: the host's progress timeout counts on it
 * (lab/run/engine.c, run_limits_get). */
#define GUEST_HEARTBEAT_S 2

json_t *job_guestjob(const struct job *job, const struct job_kernel *k, const char *run_id,
		     int online_after_boot)
{
	struct guestjob gj = {
		.run_id = run_id, .fault = job->fault, .heartbeat_s = GUEST_HEARTBEAT_S,
		.fault_after = job->fault_after_workloads ? FAULT_AFTER_WORKLOADS
							  : FAULT_AFTER_HELLO,
		/* knobs: applied by the agent before the workloads (runners/rt_knobs.c). */
		.knobs = job_kernel_knobs(job, k),
		/* The CPUs boot_cmdline() held back with maxcpus=, onlined by the agent. */
		.online_after_boot = online_after_boot,
		.nr_workloads = job->nr_workloads,
	};
	_cleanup_json_ json_t *perf = NULL;

	for (unsigned i = 0; i < job->nr_workloads; i++) {
		const struct job_workload *w = &job->workloads[i];

		gj.workloads[i] = (struct guestjob_workload){
			.name = w->name, .params = w->params,
			.timeout_s = w->timeout_s > 0 ? w->timeout_s : JOB_DEFAULT_WORKLOAD_TIMEOUT_S,
			.no_aslr = w->no_aslr,
		};
	}
	if (job->image.nr_perf_events) {
		perf = json_array();
		for (unsigned i = 0; perf && i < job->image.nr_perf_events; i++)
			if (json_array_append_new(perf, json_string(job->image.perf_events[i])) < 0)
				return NULL;
		if (!perf)
			return NULL;
		gj.perf_stat = perf;
	}
	return guestjob_build(&gj);
}

unsigned job_max_tasks(const struct job *job)
{
	unsigned most = 0;

	for (unsigned i = 0; i < job->nr_workloads; i++) {
		size_t k;
		json_t *e;

		json_array_foreach(json_object_get(job->workloads[i].params, "tasks"), k, e)
			if (json_integer_value(e) > (json_int_t)most)
				most = (unsigned)json_integer_value(e);
	}
	return most;
}
