#include "core/runreport.h"
#include "util/version.h"

#include <math.h>
#include <string.h>

#include "core/memplan.h"
#include "proto/oomkill.h"
#include "util/cleanup.h"

static json_t *num_or_null(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

#define PERF_MAX_COUNTERS 32

/* The perf stat counters the agent adds to a runner's output (runners/PROTOCOL.md): from the
 * guest, so rebuilt from checked fields only. */
static json_t *perf_stat_json(const json_t *ps)
{
	const json_t *counters = json_object_get(ps, "counters"), *c;
	const char *err = json_string_value(json_object_get(ps, "error")), *k;
	json_t *oc = json_object(), *ou = json_array(), *u;
	size_t i;

	json_object_foreach((json_t *)counters, k, c) {
		const char *unit = json_string_value(json_object_get(c, "unit"));
		json_t *v = json_object_get(c, "value");

		if (json_object_size(oc) < PERF_MAX_COUNTERS && strlen(k) <= 64 && unit &&
		    strlen(unit) <= 16 && json_is_number(v) && isfinite(json_number_value(v)))
			json_object_set_new(oc, k, json_pack("{s:f,s:s}", "value",
							     json_number_value(v), "unit", unit));
	}
	json_array_foreach(json_object_get(ps, "unsupported"), i, u)
		if (json_array_size(ou) < PERF_MAX_COUNTERS && json_is_string(u) &&
		    json_string_length(u) <= 64)
			json_array_append(ou, u);
	return json_pack("{s:o,s:o,s:s*}", "counters", oc, "unsupported", ou, "error",
			 err && strlen(err) <= 256 ? err : NULL);
}

/* How the runner died: the signal by name and number, the OOM killer's lines (checked by the
 * channel, lab/proto/oomkill.h). */
static void death_json(json_t *w, const json_t *got)
{
	json_int_t sig = json_integer_value(json_object_get(got, "signal"));
	char buf[16];
	const char *name = oomkill_signal_name((int)sig, buf, sizeof(buf));

	if (name) {
		json_object_set_new(w, "signal", json_string(name));
		json_object_set_new(w, "signal_number", json_integer(sig));
	}
	if (json_is_object(json_object_get(got, "oom")))
		json_object_set(w, "oom", json_object_get(got, "oom"));
}

/* start: each node's memory as the workload started (the channel checked it), or NULL. */
static json_t *workload_json(const struct job_workload *jw, const json_t *got,
			     const json_t *start)
{
	const char *err = json_string_value(json_object_get(got, "error"));
	json_t *out = json_object_get(got, "output");
	json_t *results = json_object_get(out, "results");
	const char *status = "ok";
	json_t *w;

	if (json_is_null(got) || !got)
		status = "missing";
	else if (json_integer_value(json_object_get(got, "exit")) != 0 || (err && err[0]))
		status = "failed";
	w = json_pack("{s:s,s:O,s:s,s:O*,s:O*,s:O*,s:O*}", "name", jw->name, "params",
		      jw->params, "status", status, "exit", json_object_get(got, "exit"),
		      "wall_s", json_object_get(got, "wall_s"), "stderr",
		      json_object_get(got, "stderr"), "info", json_object_get(out, "info"));
	if (!w)
		return NULL;
	json_object_set_new(w, "results", results ? json_incref(results) : json_array());
	if (err && err[0])
		json_object_set_new(w, "error", json_string(err));
	if (json_is_array(start))
		json_object_set(w, "start_memory", (json_t *)start);
	death_json(w, got);
	if (json_is_object(json_object_get(out, "perf_stat")))
		json_object_set_new(w, "perf_stat", perf_stat_json(json_object_get(out, "perf_stat")));
	return w;
}

static json_t *workloads_json(const struct run_record *r)
{
	json_t *arr = json_array();

	for (unsigned i = 0; arr && i < r->job->nr_workloads; i++) {
		json_t *got = r->log ? json_array_get(r->log->workloads, i) : NULL;
		json_t *start = r->log ? json_array_get(r->log->start_memory, i) : NULL;

		json_array_append_new(arr, workload_json(&r->job->workloads[i], got, start));
	}
	return arr;
}

static json_t *topology_json(const struct run_record *r)
{
	const json_t *observed = r->log ? r->log->observed : NULL;
	json_t *mismatches = NULL;
	int match = collect_compare_topology(&r->job->topo, observed, &mismatches);

	return json_pack("{s:o,s:O?,s:b,s:o}", "requested",
			 topology_to_report_json(&r->job->topo, 1), "observed", observed,
			 "match", match > 0, "mismatches", mismatches ? mismatches : json_array());
}

static json_t *guest_json(const struct run_record *r)
{
	if (!r->log)
		return json_null();
	/* cpus_online: the CPUs the agent brought online after a maxcpus= boot, or null. */
	return json_pack("{s:s,s:b,s:b,s:I,s:s,s:O?}", "agent", r->log->agent, "hello",
			 r->log->hello, "done", r->log->done, "bad_lines",
			 (json_int_t)r->log->bad_lines, "error", r->log->last_error, "cpus_online",
			 r->log->online);
}

/* The memory plan the run was checked against (core/memplan.h) and the host's figures then. */
static json_t *memory_json(const struct run_record *r)
{
	struct memplan p;
	json_t *j;

	memplan_build(&r->job->topo, &p);
	j = memplan_to_json(&p);
	if (j && (json_object_set_new(j, "host_total_mib",
				      json_integer((json_int_t)r->host.mem_total_mib)) < 0 ||
		  json_object_set_new(j, "host_available_mib",
				      json_integer((json_int_t)r->host.mem_available_mib)) < 0)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* How the run's guest time relates to work: every figure of the run means this. */
static json_t *timing_json(const struct run_record *r)
{
	const struct timing_info *t = timing_info(r->host.timing);
	char key[TIMING_KEY_MAX], arg[64];
	json_t *j;
	int costs;

	if (!t ||
	    timing_key(r->host.timing, r->host.quantum,
		       r->host.numa_preset[0] ? r->host.numa_sha256 : NULL, key, sizeof(key)) < 0 ||
	    domain_icount_arg(t->rounds ? r->host.quantum : 0, arg, sizeof(arg)) < 0)
		return json_null();
	costs = t->rounds && r->host.numa_preset[0] && t->costs_title;
	j = json_pack("{s:s,s:s,s:s,s:b,s:s,s:s,s:s,s:o}", "model", t->name, "key", key, "title",
		      costs ? t->costs_title : t->title, "deterministic", t->deterministic,
		      "measures", costs ? t->costs_measures : t->measures, "cannot",
		      costs ? t->costs_cannot : t->cannot, "reason", r->host.timing_reason, "qemu_args",
		      t->accel == DOMAIN_ACCEL_TCG_ICOUNT ? json_pack("[s,s]", DOMAIN_ICOUNT_ARG0, arg)
							  : json_array());
	if (j && t->rounds &&
	    json_object_update_new(j, json_pack("{s:I,s:s,s:s}", "quantum",
						(json_int_t)r->host.quantum, "qemu_build",
						r->host.qemu_build, "qemu_binary",
						r->host.qemu_binary)) < 0) {
		json_decref(j);
		return NULL;
	}
	/* The preset decides the charges: a figure means this model with these latencies. */
	if (j && t->rounds && r->host.numa_preset[0] &&
	    json_object_set_new(j, "numa_cost",
				json_pack("{s:s,s:s,s:f}", "preset", r->host.numa_preset, "sha256",
					  r->host.numa_sha256, "ipns", r->host.numa_ipns)) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *run_json(const struct run_record *r, const char *release, const char *excerpt)
{
	return json_pack(
		"{s:I,s:I,s:s,s:s,s:s,"
		"s:{s:s,s:s,s:s,s:s,s:s},"
		"s:{s:s,s:s?,s:s},"
		"s:o,s:o,"
		"s:{s:o,s:o,s:o,s:o,s:o},"
		"s:s,s:s?,s:o,s:o}",
		"index", (json_int_t)r->index, "repeat", (json_int_t)r->repeat, "status",
		outcome_name(r->outcome), "reason", r->reason, "end", guest_end_name(r->end),
		"host", "accel", r->host.accel, "accel_reason", r->host.accel_reason,
		"qemu_version", r->host.qemu_version, "libvirt_version", r->host.libvirt_version,
		"uri", r->host.uri,
		"kernel", "image", r->kernel_image, "release", release, "cmdline",
		r->kernel_cmdline,
		"topology", topology_json(r), "workloads", workloads_json(r),
		"timings", "boot_s", num_or_null(r->boot_s), "first_workload_s",
		num_or_null(r->first_workload_s), "workload_s", num_or_null(r->workload_s),
		"shutdown_s", num_or_null(r->shutdown_s), "total_s", num_or_null(r->total_s),
		"console", r->console_file, "console_excerpt", excerpt, "guest", guest_json(r),
		"seed", r->has_seed ? json_integer((json_int_t)r->seed) : json_null());
}

json_t *runreport_run_json(const struct run_record *r)
{
	const char *release = r->log && r->log->release[0] ? r->log->release : NULL;
	const char *excerpt = NULL;
	json_t *run, *t;

	/* Lines around a panic; else, for a run that failed, how the console ended. */
	if (r->console && r->console->panic)
		excerpt = r->console->excerpt;
	else if (r->console && r->outcome != OUTCOME_OK)
		excerpt = r->console->tail;
	run = run_json(r, release, excerpt);
	t = json_object_get(run, "timings");

	if (t && r->start_s > 0)
		json_object_set_new(t, "start_s", json_real(r->start_s));
	if (t && r->silence_s > 0) {
		json_object_set_new(t, "silence_s", json_real(r->silence_s));
		json_object_set_new(t, "silence_cpu_s", num_or_null(r->silence_cpu_s));
	}

	if (run && r->host.mem_total_mib)
		json_object_set_new(json_object_get(run, "host"), "memory", memory_json(r));
	if (run && r->host.accel[0])
		json_object_set_new(json_object_get(run, "host"), "timing", timing_json(r));
	if (run && r->noise)
		json_object_set(json_object_get(run, "host"), "noise", r->noise);
	if (run && r->host.class_name[0])
		json_object_set_new(json_object_get(run, "host"), "class",
				    json_string(r->host.class_name));
	if (run && r->artifacts)
		json_object_set(json_object_get(run, "host"), "artifacts", r->artifacts);
	if (run && r->host.guests_at_once)
		json_object_set_new(json_object_get(run, "host"), "guests_at_once",
				    json_integer(r->host.guests_at_once));
	/* The kernel's warnings (core/kwarn.h) on every run, [] when none (or no console): they
	 * change no outcome, a run that warns keeps its figures. */
	if (run) {
		static const struct kwarn_list none;

		if (kwarn_list_to_json(r->console ? &r->console->warnings : &none, run) < 0) {
			json_decref(run);
			return NULL;
		}
	}
	/* What the agent applied and read back, as lab/proto/channel.c check_knobs let it through;
	 * null when not reported. */
	if (run)
		json_object_set_new(run, "knobs", r->log && r->log->knobs ? json_incref(r->log->knobs)
									  : json_null());

	/* Kernel variants add what was built and what the guest proved (lab/run/kernels.c). */
	if (run && r->kernel_extra)
		json_object_update(json_object_get(run, "kernel"), r->kernel_extra);
	/* Disk-booted runs: the image and what the post-mortem recovered (lab/run/disk.c). */
	if (run && r->image_extra)
		json_object_update(run, r->image_extra);
	return run;
}

static json_t *runreport_base(const char *id, const char *created, const struct job *job,
			      const char *job_file, json_t *runs, enum outcome status)
{
	return json_pack("{s:s,s:s,s:s,s:{s:s,s:s,s:I},s:{s:s,s:s},s:s,s:O}", "schema",
			 RUNREPORT_SCHEMA, "id", id, "created", created, "job", "name", job->name,
			 "file", job_file, "repeats", (json_int_t)job->repeats, "lab", "version",
			 version_lab(), "commit", version_commit(), "status",
			 outcome_name(status), "runs", runs);
}

/* The job's kernels in run order (A B A B ...): labels for comparisons. */
static json_t *job_kernels_json(const struct job *job)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < job->nr_kernels; i++) {
		const struct job_kernel *k = &job->kernels[i];

		json_array_append_new(a, json_pack("{s:s,s:s?,s:s?,s:O*}", "label", k->label,
						    "variant", k->variant[0] ? k->variant : NULL,
						    "image", k->image[0] ? k->image : NULL,
						    "knobs", k->own_knobs));
	}
	return a;
}

json_t *runreport_json(const char *id, const char *created, const struct job *job,
		       const char *job_file, json_t *runs, enum outcome status)
{
	json_t *rep = runreport_base(id, created, job, job_file, runs, status);

	if (rep && job->nr_kernels)
		json_object_set_new(json_object_get(rep, "job"), "kernels", job_kernels_json(job));
	/* A sequential A/B: its decisions are judged at the level of its most rounds
	 * (analysis/sequential.h), whenever it stopped. */
	if (rep && job->precision.until_decided && job->nr_kernels > 1)
		json_object_set_new(json_object_get(rep, "job"), "sequential",
				    json_pack("{s:I}", "looks", (json_int_t)job->repeats));
	/* How its A/B decides (lab run, lab show, lab compare read it back). */
	if (rep && job->threshold_learned)
		json_object_set_new(json_object_get(rep, "job"), "threshold", json_string("learned"));
	else if (rep && job->threshold_pct > 0)
		json_object_set_new(json_object_get(rep, "job"), "threshold",
				    json_real(job->threshold_pct));
	return rep;
}
