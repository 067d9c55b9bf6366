/* One run of a job (a slot of lab/run/engine.c): the guest booted on the run's host
 * (run/host.h) and watched, its record written.  A run whose host was lost (a remote daemon
 * gone) is infra-error, end host-lost; it is not tried elsewhere (many hosts are Slurm's). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/runreport.h"
#include "run/boot.h"
#include "run/context.h"
#include "run/disk.h"
#include "run/host.h"
#include "run/hostload.h"
#include "run/kernels.h"
#include "run/lockinsn_plugin.h"
#include "run/profile_plugin.h"
#include "run/numacost_plugin.h"
#include "run/slot.h"
#include "util/cleanup.h"

/* From boots measured on 2 host cores under TCG (configs/topologies/README.md, "Big
 * guests").  The cost that grows with the square of the CPU count is the kernel's, for the
 * CPUs it brings up while booting: longest console silences 2, 7, 12, 27 s for 8-256 vCPUs
 * booted at once, and at 512 from 155 s to more than 650 s.  What grows with the vCPU count
 * alone is QEMU creating them, the firmware and ACPI walking them: hello after 37 s at 512 with
 * two CPUs booted (its longest console silence: 22 s).  Each bound has several times the
 * room of the slowest boot seen, and a hung boot is caught by the console watch first: a
 * kernel that boots prints all along. */
void run_limits_get(const struct job *job, unsigned boot_cpus, struct run_limits *l)
{
	double v = job->topo.vcpus, b = boot_cpus, online = v > b ? 0.004 * v * v : 0;

	l->boot_s = job->boot_timeout_s > 0 ? job->boot_timeout_s : 120.0 + 0.02 * b * b + v / 2;
	l->silence_s = job->boot_silence_s > 0 ? job->boot_silence_s
					       : 60.0 + b * b / 200.0 + v / 8;
	/* After hello the agent sends a heartbeat every 2 s, also while it onlines CPUs. */
	l->progress_s = job->progress_timeout_s > 0 ? job->progress_timeout_s : 60.0 + v / 4;
	/* Onlining after hello: 510 CPUs took about 170 s (each rebuilds the scheduler's
	 * domains over all online CPUs, so it grows with the square); 0.004 v^2 is 1049 s. */
	l->total_s = l->boot_s + online + 120.0;
	l->channel_mib = job->channel_max_mib ? job->channel_max_mib : JOB_CHANNEL_MAX_MIB;
	l->console_mib = job->console_max_mib ? job->console_max_mib : JOB_CONSOLE_MAX_MIB;
	for (unsigned i = 0; i < job->nr_workloads; i++)
		l->total_s += job->workloads[i].timeout_s > 0 ? job->workloads[i].timeout_s
							      : JOB_DEFAULT_WORKLOAD_TIMEOUT_S;
}

void run_limits_scale(const struct job *job, enum timing_model m, unsigned host_cpus,
		      struct run_limits *l)
{
	/* Measured here on 2 host cores: a 4s-8c guest boots and runs pft in ~3x the time of
	 * multi-threaded TCG; 4x leaves room for a busy host.  Guest time under icount can also
	 * run slower than host time, so heartbeats arrive further apart in host seconds. */
	const double f = timing_info(m)->host_cost;

	if (!(job->boot_timeout_s > 0))
		l->boot_s *= f;
	if (!(job->boot_silence_s > 0))
		l->silence_s *= f;
	if (!(job->progress_timeout_s > 0))
		l->progress_s *= f;
	l->total_s *= f;
	/* A guest the host does not run cannot send a heartbeat: on a busy host (CI, another
	 * lab) TCG guests were called hung while they worked.  A silence is a hang once the
	 * guest had, over the whole timeout, a quarter of the host it can use (one thread
	 * under icount, else a thread per vCPU up to the host's CPUs): a spinning or stalled
	 * guest has that at once, a starved one not.  A guest idle in a deadlock uses almost
	 * none, so three timeouts of silence end it anyway. */
	double usable = timing_info(m)->deterministic ? 1.0 : job->topo.vcpus;

	if (host_cpus > 0 && usable > host_cpus)
		usable = host_cpus;
	l->progress_cpu_s = 0.25 * usable * l->progress_s;
	l->progress_starved_s = 3.0 * l->progress_s;
}

static double since(double t, double from)
{
	return t < 0 || from < 0 ? -1 : t - from;
}

static void fill_record(const struct run_limits *lim, const struct boot_result *res,
			struct run_record *rec)
{
	char death[384];
	int failed, missing;
	struct outcome_input in = {
		.end = res->g.end, .crashed = res->g.crashed, .hello = res->log.hello,
		.done = res->log.done, .console = &res->console,
		.boot_timeout_s = lim->boot_s, .boot_silence_s = lim->silence_s,
		.progress_timeout_s = lim->progress_s, .total_timeout_s = lim->total_s,
		.silence_s = res->g.silence_s, .silence_cpu_s = res->g.silence_cpu_s,
		.start_error = res->start_error, .death = death,
		.bad_lines = res->log.bad_lines, .long_lines = res->g.lines_dropped,
		.channel_max_mib = lim->channel_mib, .console_max_mib = lim->console_mib,
	};

	collect_death_note(&res->log, rec->job, death, sizeof(death));
	collect_count(&res->log, &failed, &missing);
	in.workloads_failed = failed;
	in.workloads_missing = missing;
	rec->outcome = outcome_classify(&in, rec->reason, sizeof(rec->reason));
	rec->end = res->g.end;
	rec->log = &res->log;
	rec->console = &res->console;
	rec->boot_s = res->log.t_hello;
	rec->first_workload_s = res->log.t_first_start;
	rec->workload_s = since(res->log.t_last_end, res->log.t_first_start);
	rec->total_s = res->g.t_end;
	rec->shutdown_s = since(res->g.t_end, res->log.t_done);
	rec->start_s = res->g.t_started;
	rec->silence_s = res->g.silence_s;
	rec->silence_cpu_s = res->g.silence_cpu_s;
}

/* A run recorded without a boot: its outcome and reason are set. */
static int record_not_booted(struct run_ctx *c, struct run_record *rec)
{
	json_t *rj;

	rec->console_file[0] = '\0';
	rj = runreport_run_json(rec);
	if (!rj)
		return -ENOMEM;
	run_ctx_progress(c, "run %u/%u: %s, not booted: %s", rec->index + 1,
			 c->job->repeats * c->kr.n, outcome_name(rec->outcome), rec->reason);
	return run_ctx_record(c, rec, rj);
}

/* A run whose kernel could not be built: recorded (build-failure, with the log tail in
 * kernel.build), never booted. */
static int record_unbooted(struct run_ctx *c, struct run_record *rec, struct krun_kernel *k)
{
	_cleanup_json_ json_t *kextra = krun_report(k, NULL);

	rec->outcome = k->fail;
	snprintf(rec->reason, sizeof(rec->reason), "%s", k->reason);
	rec->kernel_extra = kextra;
	return record_not_booted(c, rec);
}

/* A run the lab could not start (infra-error): why says what is missing. */
static int record_lab_error(struct run_ctx *c, struct run_record *rec, const char *why)
{
	rec->outcome = OUTCOME_INFRA_ERROR;
	snprintf(rec->reason, sizeof(rec->reason), "lab error: %s", why);
	return record_not_booted(c, rec);
}

/* Before a run: under a host-clock model wait (bounded) for a quiet host, since every cycle
 * another process takes shows up in the guest's timings; then sample the host.  *quiet: 1
 * quiet, 0 not quiet in time, -1 not waited for (deterministic model or waiting off). */
static void noise_before(struct run_ctx *c, unsigned index, struct host_noise *n,
			 double *waited, int *quiet)
{
	int r;

	*quiet = -1;
	if (!timing_info(c->host.timing)->deterministic && c->o->env.quiet_wait_s > 0) {
		r = hostload_wait_quiet(c->o->env.quiet_wait_s, c->o->env.interrupt, waited, &n->before);
		if (r >= 0)
			*quiet = r;
		if (r == 0)
			run_ctx_progress(c, "run %u: the host did not get quiet in %.0f s (other "
					"work is running); measuring anyway, the run is flagged",
				     index + 1, *waited);
		else if (r > 0 && *waited > 1.5)
			run_ctx_progress(c, "run %u: waited %.0f s for a quiet host", index + 1,
				     *waited);
		if (r >= 0)
			return;
	}
	hostload_sample(NULL, &n->before);
}

/* After a run: sample again and judge; the report's host.noise (NULL when /proc could not be
 * read: the report then simply lacks it). */
static json_t *noise_after(struct run_ctx *c, struct host_noise *n, double cpu_s,
			   double waited, int quiet)
{
	if (!n->before.ncpus || hostload_sample(NULL, &n->after) < 0)
		return NULL;
	n->own_cpu_s = cpu_s;
	hostnoise_judge(n, sysconf(_SC_CLK_TCK));
	(void)c;
	return hostnoise_json(n, waited, quiet == 1);
}

/* This slot's guest is starting (on) or has stopped: every guest running now counts the others
 * beside it. */
/* The boot's seed under the deterministic model: --seed S gives run i S + i (so a recorded
 * seed reproduces its boot), else a random one.  53 bits: a JSON number every reader keeps
 * exactly (jq and JavaScript hold numbers as doubles: a 63-bit seed came back rounded). */
static int run_seed(const struct run_opts *o, unsigned index, enum timing_model t,
		    struct run_record *rec)
{
	if (!timing_info(t)->deterministic)
		return 0;
	rec->has_seed = 1;
	if (index < o->nr_seeds)
		rec->seed = o->seeds[index];
	else if (o->seed_set)
		rec->seed = o->seed + index;
	else if (getrandom(&rec->seed, sizeof(rec->seed), 0) != (ssize_t)sizeof(rec->seed))
		return -errno;
	rec->seed &= RUN_SEED_MAX;
	return 0;
}

/* The kernel's own command-line words, with what the job's TCG plugin needs. */
static char *kernel_extra(const struct job *job, const char *cmdline)
{
	const char *word = job->lock_insns    ? LOCKINSN_CMDLINE
			   : job->numa_cost[0] ? NUMACOST_CMDLINE
			   : job->profile      ? PROFILE_CMDLINE
					       : NULL;
	char *s;

	if (!word)
		return strdup(cmdline ? cmdline : "");
	if (asprintf(&s, "%s%s%s", cmdline ? cmdline : "", cmdline && cmdline[0] ? " " : "",
		     word) < 0)
		return NULL;
	return s;
}

/* "lock_insns" and "profile": their plugins need the tcg or quantum model (core/job.c says
 * why) and this machine (their map and output are local files).  key: the job's. */
static int counter_host_ok(const char *key, const struct host *m, char *why, size_t why_len)
{
	enum timing_model t = m->host.timing;

	if (t != TIMING_TCG && t != TIMING_QUANTUM) {
		snprintf(why, why_len, "%s needs the timing model tcg or quantum, not %s "
			 "(core/job.c says why)", key, timing_info(t)->name);
		return -EINVAL;
	}
	if (m->vc.remote) {
		snprintf(why, why_len, "%s runs on this machine only, not on %s", key, m->uri);
		return -EINVAL;
	}
	return 0;
}

/* The plugin's counts into the run's results (collect: lockinsn_collect or
 * profile_collect); a failure is said and kept in the run as KEY_error, and its timings
 * stand.  what: the counts in words, for the progress line. */
static int counter_after(struct run_ctx *c, unsigned index, const char *dir, json_t *rj,
			 int (*collect)(const char *, json_t *, char *, size_t), const char *key,
			 const char *what)
{
	char why[512] = "", err_key[48];
	int r = collect(dir, rj, why, sizeof(why));

	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		run_ctx_progress(c, "run %u: %s: %s", index + 1, what, why);
		snprintf(err_key, sizeof(err_key), "%s_error", key);
		return json_object_set_new(rj, err_key, json_string(why)) < 0 ? -ENOMEM : 0;
	}
	run_ctx_progress(c, "run %u: %s for %d result(s)", index + 1, what, r);
	return 0;
}

/* "numa_cost": the contention model (core/job.c) on this machine (the plugin's files are
 * local), as run/engine.c made sure; said again here since a run must never boot without the
 * charges it was asked for. */
static int numacost_before(struct run_ctx *c, const struct host *m, const struct krun_kernel *k,
			   const char *dir, char *plugin, size_t len, char *why, size_t why_len)
{
	int no_map = 0, r;

	if (m->host.timing != TIMING_QUANTUM || m->vc.remote || !m->host.numa_preset[0]) {
		snprintf(why, why_len, "numa_cost needs the contention model on this machine, not "
			 "%s%s%s", timing_info(m->host.timing)->name, m->vc.remote ? " on " : "",
			 m->vc.remote ? m->uri : "");
		return -EINVAL;
	}
	r = numacost_prepare(dir, c->job, k->image, c->runners, plugin, len, &no_map, why,
			     why_len);
	if (r == 0 && no_map)
		run_ctx_progress(c, "%s: no symbols in %s: the NUMA cost plugin gets an empty map",
				 k->jk->label, k->image);
	return r;
}

/* The plugin's figures, *out the run's numa_cost.  A run without them, or whose QEMU did not
 * take every charge, is no result: infra-error with why (a guest that failed keeps its own
 * outcome), its console kept and its figures, if any, too. */
static int numacost_after(struct run_ctx *c, unsigned index, const char *dir,
			  struct run_record *rec, json_t **out, char *why, size_t why_len)
{
	int r = numacost_collect(dir, c->job, out, why, why_len);

	if (r == -ENOMEM || r == 0)
		return r;
	run_ctx_progress(c, "run %u: numa_cost: %s", index + 1, why);
	if (rec->outcome == OUTCOME_OK) {
		rec->outcome = OUTCOME_INFRA_ERROR;
		snprintf(rec->reason, sizeof(rec->reason), "lab error: numa_cost: %s", why);
	}
	return 0;
}

static void mark_booting(struct run_slot *s, int on)
{
	struct run_ctx *c = s->c;

	pthread_mutex_lock(&c->lock);
	s->booting = on;
	c->booting = on ? c->booting + 1 : c->booting - 1;
	for (unsigned i = 0; on && i < c->nslots; i++)
		if (c->slots[i].booting && c->slots[i].at_once < c->booting)
			c->slots[i].at_once = c->booting;
	pthread_mutex_unlock(&c->lock);
}

/* Run s booted on the host m and recorded; a host lost on the way (its connection died) makes
 * the run infra-error, end host-lost, and m down for the runs after it.  What run_ctx_record
 * says. */
/* The run's limits on host m: boot_cpus are the CPUs the kernel brings up while booting. */
static void limits_of(const struct job *job, const struct host *m, int online,
		      struct run_limits *lim)
{
	run_limits_get(job, online ? BOOT_EARLY_CPUS : job->topo.vcpus, lim);
	run_limits_scale(job, m->host.timing, m->vc.remote && m->cpus ? m->cpus : hostload_cpus(),
			 lim);
}

/* What a boot's parameters take from the job, the host, the kernel and the limits; the
 * per-run ones (directory, name, command line, seed, guest job, disk) are the caller's. */
static struct boot_params boot_params_of(const struct run_ctx *c, const struct host *m,
					 const struct krun_kernel *k,
					 const struct run_limits *lim)
{
	return (struct boot_params){
		.kernel = k->image, .quantum = m->host.quantum,
		.emulator = m->host.qemu_binary[0] ? m->host.qemu_binary : NULL,
		.topo = &c->job->topo, .accel = timing_info(m->host.timing)->accel,
		.runners_dir = c->runners, .kernel_config = k->build_config,
		.nr_workloads = c->job->nr_workloads,
		.channel_max = (size_t)lim->channel_mib << 20,
		.console_max = (size_t)lim->console_mib << 20,
		.boot_timeout_s = lim->boot_s, .boot_silence_s = lim->silence_s,
		.progress_timeout_s = lim->progress_s, .total_timeout_s = lim->total_s,
		.progress_min_cpu_s = lim->progress_cpu_s,
		.progress_starved_max_s = lim->progress_starved_s,
		.interrupt = c->o->env.interrupt, .keep_initrd = c->o->keep_initrd,
		.pool_dir = m->pool_dir[0] ? m->pool_dir : NULL,
		.disk_base = c->img.on ? c->img.info.disk : NULL,
	};
}

/* The record's outcome from the boot's result r: a lab error, or what the guest did (a lost
 * host included, as its end). */
static void settle(int r, int lost, const char *why, const struct run_limits *lim,
		   struct boot_result *res, struct run_record *rec)
{
	rec->artifacts = res->artifacts;
	if (r < 0 && lost && !res->g.error[0])
		snprintf(res->g.error, sizeof(res->g.error), "%s", why[0] ? why : strerror(-r));
	if (r < 0 && !lost) {
		rec->outcome = OUTCOME_INFRA_ERROR;
		snprintf(rec->reason, sizeof(rec->reason), "lab error: %s",
			 why[0] ? why : strerror(-r));
		return;
	}
	if (lost)
		res->g.end = GUEST_END_HOST_LOST;
	snprintf(res->start_error, sizeof(res->start_error), "%s", res->g.error);
	fill_record(lim, res, rec);
}

/* After the boot: the post-mortem of a disk that did not end ok, the kernel's and image's
 * parts of the record, the lock counter's counts and the profile, the report. */
static int record_boot(struct run_slot *s, struct run_record *rec, struct boot_result *res,
		       const char *dir, char *overlay, const char *plugin, const char *plugin2)
{
	struct run_ctx *c = s->c;
	unsigned index = s->index, total = c->job->repeats * c->kr.n;
	int stopped = c->o->env.interrupt && *c->o->env.interrupt;
	_cleanup_json_ json_t *kextra = NULL, *iextra = NULL, *numa = NULL;
	char rel[32], numa_why[512] = "";
	json_t *rj;

	snprintf(rel, sizeof(rel), "run-%u", index);
	if (c->img.on && rec->outcome != OUTCOME_OK && !stopped)
		run_ctx_progress(c, "run %u/%u: %s; post-mortem of its disk with libguestfs",
				 index + 1, total, outcome_name(rec->outcome));
	rec->image_extra = iextra = imgrun_after(&c->img, c->job, rec->outcome, stopped, dir, rel,
						 overlay);
	rec->kernel_extra = kextra = krun_report(s->k, &res->log);
	pthread_mutex_lock(&c->lock);
	rec->host.guests_at_once = s->at_once;
	pthread_mutex_unlock(&c->lock);
	/* Before the record is made: figures without the charges asked for fail the run. */
	if (plugin[0] && c->job->numa_cost[0] &&
	    numacost_after(c, index, dir, rec, &numa, numa_why, sizeof(numa_why)) < 0)
		return -ENOMEM;
	if (!(rj = runreport_run_json(rec)))
		return -ENOMEM;
	if ((plugin[0] && c->job->lock_insns &&
	     counter_after(c, index, dir, rj, lockinsn_collect, "lock_insns",
			   "lock instructions counted") < 0) ||
	    (plugin2[0] && c->job->profile &&
	     counter_after(c, index, dir, rj, profile_collect, "profile",
			   "instruction profile") < 0) ||
	    (numa && json_object_set(rj, "numa_cost", numa) < 0) ||
	    (numa_why[0] && json_object_set_new(rj, "numa_cost_error", json_string(numa_why)) < 0)) {
		json_decref(rj);
		return -ENOMEM;
	}
	run_ctx_progress(c, "run %u/%u: %s (%s) boot %.1f s, total %.1f s", index + 1, total,
			 outcome_name(rec->outcome), rec->reason, rec->boot_s, rec->total_s);
	return run_ctx_record(c, rec, rj);
}

static int boot_one(struct run_slot *s, struct host *m)
{
	struct run_ctx *c = s->c;
	struct krun_kernel *k = s->k;
	unsigned index = s->index;
	int kvm = !strcmp(m->host.accel, "kvm");
	int online = boot_online_after(kvm, c->job->topo.vcpus, k->jk->cmdline);
	_cleanup_free_ char *extra = kernel_extra(c->job, k->jk->cmdline);
	_cleanup_free_ char *cmdline = extra ? boot_cmdline(k->image, kvm, online, extra) : NULL;
	char plugin[4 * PATH_MAX + 48] = "", plugin2[4 * PATH_MAX + 48] = "";
	unsigned total = c->job->repeats * c->kr.n;
	char dir[PATH_MAX + 32], name[64], run_id[192], why[512] = "";
	char overlay[PATH_MAX] = "";
	const char *disk;
	struct run_record rec = { .index = index, .repeat = s->repeat, .job = c->job,
				  .host = m->host, .total_s = -1, .boot_s = -1,
				  .first_workload_s = -1, .workload_s = -1,
				  .shutdown_s = -1 };
	struct boot_result res = { 0 };
	struct run_limits lim;
	_cleanup_json_ json_t *gj = NULL, *noise_json = NULL;
	struct host_noise noise = { .own_cpu_s = -1 };
	double waited = 0;
	int quiet = -1, lost, r;

	snprintf(dir, sizeof(dir), "%s/run-%u", c->sum->out_dir, index);
	hosts_domain_name(m, index, name, sizeof(name));
	/* The guest logs its run id on the console, and a console line costs guest time: an id
	 * of fixed width (the run's date and time, the boot's index to six digits, not the job's
	 * name) keeps a boot's figures those of its seed whatever the job is called. */
	snprintf(run_id, sizeof(run_id), "%.15s-r%06u", c->id, index);
	snprintf(rec.console_file, sizeof(rec.console_file), "run-%u/console.log", index);
	snprintf(rec.kernel_image, sizeof(rec.kernel_image), "%s", k->image);
	snprintf(rec.kernel_cmdline, sizeof(rec.kernel_cmdline), "%s", cmdline ? cmdline : "");
	/* The host's memory as this guest starts, beside the plan checked at job load. */
	if (!m->vc.remote)
		hostload_memory(&rec.host.mem_total_mib, &rec.host.mem_available_mib);
	limits_of(c->job, m, online, &lim);
	gj = job_guestjob(c->job, k->jk, run_id, online);
	r = gj && cmdline ? run_seed(c->o, index, m->host.timing, &rec) : -ENOMEM;
	if (r < 0)
		return r;
	if ((c->job->lock_insns &&
	     (counter_host_ok("lock_insns", m, why, sizeof(why)) < 0 ||
	      lockinsn_prepare(dir, k->image, c->runners, plugin, sizeof(plugin), why,
			       sizeof(why)) < 0)) ||
	    (c->job->profile &&
	     (counter_host_ok("profile", m, why, sizeof(why)) < 0 ||
	      profile_prepare(dir, k->image, c->runners, plugin2, sizeof(plugin2), why,
			      sizeof(why)) < 0)) ||
	    (c->job->numa_cost[0] && numacost_before(c, m, k, dir, plugin, sizeof(plugin), why,
						     sizeof(why)) < 0))
		return record_lab_error(c, &rec, why);
	disk = imgrun_before(&c->img, dir, overlay, why, sizeof(why)); /* a fresh overlay per run */
	struct boot_params bp = boot_params_of(c, m, k, &lim);

	bp.run_dir = dir;
	bp.name = name;
	bp.cmdline = cmdline;
	bp.seed = rec.seed;
	bp.plugin = plugin[0] ? plugin : NULL;
	bp.plugin2 = plugin2[0] ? plugin2 : NULL;
	bp.guestjob = gj;
	bp.disk = disk;
	bp.why = why;
	bp.why_len = sizeof(why);
	/* The host's load is this machine's: a remote host's is not sampled (yet). */
	if (!m->vc.remote)
		noise_before(c, index, &noise, &waited, &quiet);
	run_ctx_progress(c, "run %u/%u: booting %s, %u vCPUs, %u nodes (%s)%s%s", index + 1,
			 total, k->jk->label, c->job->topo.vcpus, c->job->topo.nr_nodes,
			 timing_info(m->host.timing)->name, m->vc.remote ? " on " : "",
			 m->vc.remote ? m->uri : "");
	mark_booting(s, 1);
	r = c->img.on && !disk ? -EIO : boot_run(&m->vc, &bp, &res);
	mark_booting(s, 0);
	lost = res.g.host_lost || (r < 0 && hosts_lost(m));
	if (!m->vc.remote)
		rec.noise = noise_json = noise_after(c, &noise, r < 0 ? -1 : res.g.cpu_s, waited,
						     quiet);
	settle(r, lost, why, &lim, &res, &rec);
	if (lost) {
		hosts_mark_lost(m, rec.reason);
		run_ctx_progress(c, "run %u/%u: host %s lost: %s", index + 1, total, m->uri,
				 rec.reason);
	}
	r = record_boot(s, &rec, &res, dir, overlay, plugin, plugin2);
	boot_result_free(&res);
	return r;
}

/* The host was lost by an earlier run: this one says so at once instead of waiting for it
 * (`lab run --resume` runs it later, core/runresume.h). */
static int record_no_host(struct run_slot *s, const char *why)
{
	struct run_ctx *c = s->c;
	struct run_record rec = { .index = s->index, .repeat = s->repeat, .job = c->job,
				  .host = c->host, .outcome = OUTCOME_INFRA_ERROR,
				  .end = GUEST_END_HOST_LOST, .total_s = -1, .boot_s = -1,
				  .first_workload_s = -1, .workload_s = -1, .shutdown_s = -1 };
	json_t *rj;

	snprintf(rec.reason, sizeof(rec.reason), "not run: %s", why);
	rec.console_file[0] = '\0';
	rj = runreport_run_json(&rec);
	if (!rj)
		return -ENOMEM;
	run_ctx_progress(c, "run %u/%u: infra-error, %s", s->index + 1,
			 c->job->repeats * c->kr.n, rec.reason);
	return run_ctx_record(c, &rec, rj);
}

int run_one(struct run_slot *s)
{
	struct run_ctx *c = s->c;
	char why[512] = "";

	if (s->k->fail != OUTCOME_OK) {
		struct run_record rec = { .index = s->index, .repeat = s->repeat, .job = c->job,
					  .host = c->host, .total_s = -1, .boot_s = -1,
					  .first_workload_s = -1, .workload_s = -1,
					  .shutdown_s = -1 };

		return record_unbooted(c, &rec, s->k);
	}
	if (c->o->env.interrupt && *c->o->env.interrupt) /* not started: run again by --resume */
		return 0;
	if (!hosts_usable(&c->h, why, sizeof(why)))
		return record_no_host(s, why);
	return boot_one(s, &c->h);
}
