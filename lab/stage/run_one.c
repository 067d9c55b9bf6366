/* One run of a job (a slot of lab/stage/run.c): a host taken from the run's hosts
 * (stage/hosts.h), the guest booted there and watched, its record written.  A run whose host
 * was lost (a remote daemon gone) is tried once more on another host of the class; the lost
 * attempt stays in the run's "attempts". */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "core/runreport.h"
#include "stage/boot.h"
#include "stage/hostload.h"
#include "stage/hosts.h"
#include "stage/imgrun.h"
#include "stage/krun.h"
#include "stage/run_ctx.h"
#include "util/cleanup.h"

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
	rec->silence_s = res->g.silence_s;
	rec->silence_cpu_s = res->g.silence_cpu_s;
}

/* A run whose kernel could not be built: recorded (build-failure, with the log tail in
 * kernel.build), never booted. */
static int record_unbooted(struct run_ctx *c, struct run_record *rec, struct krun_kernel *k)
{
	_cleanup_json_ json_t *kextra = krun_report(k, NULL);
	json_t *rj;

	rec->outcome = k->fail;
	snprintf(rec->reason, sizeof(rec->reason), "%s", k->reason);
	rec->console_file[0] = '\0';
	rec->kernel_extra = kextra;
	rj = runreport_run_json(rec);
	if (!rj)
		return -ENOMEM;
	run_progress(c, "run %u/%u: %s, not booted: %s", rec->index + 1,
		     c->job->repeats * c->kr.n, outcome_name(rec->outcome), rec->reason);
	return run_record(c, rec, rj);
}

/* Before a run: under a host-clock model wait (bounded) for a quiet host, since every cycle
 * another process takes shows up in the guest's timings; then sample the host.  *quiet: 1
 * quiet, 0 not quiet in time, -1 not waited for (deterministic model or waiting off). */
static void noise_before(struct run_ctx *c, unsigned index, struct host_noise *n,
			 double *waited, int *quiet)
{
	int r;

	*quiet = -1;
	if (!timing_info(c->host.timing)->deterministic && c->o->quiet_wait_s > 0) {
		r = hostload_wait_quiet(c->o->quiet_wait_s, c->o->interrupt, waited, &n->before);
		if (r >= 0)
			*quiet = r;
		if (r == 0)
			run_progress(c, "run %u: the host did not get quiet in %.0f s (other "
					"work is running); measuring anyway, the run is flagged",
				     index + 1, *waited);
		else if (r > 0 && *waited > 1.5)
			run_progress(c, "run %u: waited %.0f s for a quiet host", index + 1,
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
	if (o->seed_set)
		rec->seed = o->seed + index;
	else if (getrandom(&rec->seed, sizeof(rec->seed), 0) != (ssize_t)sizeof(rec->seed))
		return -errno;
	rec->seed &= RUN_SEED_MAX;
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

/* One try of run s on host m.  Returns 1 when m was lost and !last (nothing recorded: the
 * caller tries again elsewhere, *lost_json says what happened), else what run_record says. */
static int one_attempt(struct run_slot *s, struct host_member *m, json_t *attempts, int last,
		       json_t **lost_json)
{
	struct run_ctx *c = s->c;
	struct krun_kernel *k = s->k;
	unsigned index = s->index;
	int kvm = !strcmp(m->host.accel, "kvm");
	int online = boot_online_after(kvm, c->job->topo.vcpus, k->jk->cmdline);
	_cleanup_free_ char *cmdline = boot_cmdline(k->image, kvm, online, k->jk->cmdline);
	_cleanup_json_ json_t *kextra = NULL, *iextra = NULL;
	unsigned total = c->job->repeats * c->kr.n;
	char dir[PATH_MAX + 32], name[64], run_id[192], why[512] = "", rel[32];
	char overlay[PATH_MAX] = "";
	const char *disk;
	struct run_record rec = { .index = index, .repeat = s->repeat, .job = c->job,
				  .host = m->host, .total_s = -1, .boot_s = -1,
				  .first_workload_s = -1, .workload_s = -1,
				  .shutdown_s = -1, .attempts = attempts };
	struct boot_result res = { 0 };
	struct run_limits lim;
	_cleanup_json_ json_t *gj = NULL, *noise_json = NULL;
	struct host_noise noise = { .own_cpu_s = -1 };
	double waited = 0;
	int quiet = -1, lost;
	json_t *rj;
	int r;

	snprintf(rel, sizeof(rel), "run-%u", index);
	snprintf(dir, sizeof(dir), "%s/run-%u", c->sum->out_dir, index);
	hosts_domain_name(m, index, name, sizeof(name));
	snprintf(run_id, sizeof(run_id), "%s-r%u", c->id, index);
	snprintf(rec.console_file, sizeof(rec.console_file), "run-%u/console.log", index);
	snprintf(rec.kernel_image, sizeof(rec.kernel_image), "%s", k->image);
	snprintf(rec.kernel_cmdline, sizeof(rec.kernel_cmdline), "%s", cmdline ? cmdline : "");
	/* The host's memory as this guest starts, beside the plan checked at job load. */
	if (!m->vc.remote)
		run_host_memory(&rec.host.mem_total_mib, &rec.host.mem_available_mib);
	run_limits_get(c->job, online ? BOOT_EARLY_CPUS : c->job->topo.vcpus, &lim);
	run_limits_scale(c->job, m->host.timing, m->vc.remote && m->cpus ? m->cpus
								  : hostload_cpus(), &lim);
	gj = job_guestjob(c->job, k->jk, run_id, online);
	r = gj && cmdline ? run_seed(c->o, index, m->host.timing, &rec) : -ENOMEM;
	if (r < 0) {
		hosts_release(&c->hosts, m, 0, NULL);
		return r;
	}
	disk = imgrun_before(&c->img, dir, overlay, why, sizeof(why)); /* a fresh overlay per run */
	struct boot_params bp = {
		.run_dir = dir, .name = name, .kernel = k->image, .cmdline = cmdline, .seed = rec.seed,
		.quantum = m->host.quantum,
		.emulator = m->host.qemu_binary[0] ? m->host.qemu_binary : NULL,
		.topo = &c->job->topo, .accel = timing_info(m->host.timing)->accel,
		.runners_dir = c->runners, .guestjob = gj, .kernel_config = k->build_config,
		.nr_workloads = c->job->nr_workloads,
		.channel_max = (size_t)lim.channel_mib << 20,
		.console_max = (size_t)lim.console_mib << 20,
		.boot_timeout_s = lim.boot_s, .boot_silence_s = lim.silence_s,
		.progress_timeout_s = lim.progress_s, .total_timeout_s = lim.total_s,
		.progress_min_cpu_s = lim.progress_cpu_s,
		.progress_starved_max_s = lim.progress_starved_s,
		.interrupt = c->o->interrupt,
		.keep_initrd = c->o->keep_initrd, .disk = disk, .why = why, .why_len = sizeof(why),
		.pool_dir = m->cfg.pool_dir[0] ? m->cfg.pool_dir : NULL,
		.disk_base = c->img.on ? c->img.info.disk : NULL,
	};
	/* The host's load is this machine's: a remote host's is not sampled (yet). */
	if (!m->vc.remote)
		noise_before(c, index, &noise, &waited, &quiet);
	run_progress(c, "run %u/%u: booting %s, %u vCPUs, %u nodes (%s)%s%s", index + 1, total,
		     k->jk->label, c->job->topo.vcpus, c->job->topo.nr_nodes,
		     timing_info(m->host.timing)->name, m->cfg.name[0] ? " on " : "", m->cfg.name);
	mark_booting(s, 1);
	r = c->img.on && !disk ? -EIO : boot_run(&m->vc, &bp, &res);
	mark_booting(s, 0);
	lost = res.g.host_lost || (r < 0 && hosts_lost(m));
	if (!m->vc.remote)
		rec.noise = noise_json = noise_after(c, &noise, r < 0 ? -1 : res.g.cpu_s, waited,
						     quiet);
	rec.artifacts = res.artifacts;
	pthread_mutex_lock(&c->hosts.lock);
	m->uploads += res.uploads;
	m->hits += res.hits;
	m->up_bytes += res.up_bytes;
	m->up_s += res.up_s;
	pthread_mutex_unlock(&c->hosts.lock);
	if (r < 0 && lost && !res.g.error[0])
		snprintf(res.g.error, sizeof(res.g.error), "%s", why[0] ? why : strerror(-r));
	if (r < 0 && !lost) {
		rec.outcome = OUTCOME_INFRA_ERROR;
		snprintf(rec.reason, sizeof(rec.reason), "lab error: %s", why[0] ? why : strerror(-r));
	} else {
		if (lost)
			res.g.end = GUEST_END_HOST_LOST;
		snprintf(res.start_error, sizeof(res.start_error), "%s", res.g.error);
		fill_record(&lim, &res, &rec);
	}
	if (lost) {
		hosts_release(&c->hosts, m, 1, rec.reason);
		run_progress(c, "run %u/%u: host %s lost: %s", index + 1, total, m->cfg.name,
			     rec.reason);
	}
	if (lost && !last) {
		*lost_json = json_pack("{s:s,s:s,s:s,s:s,s:o}", "host", m->cfg.name, "uri",
				       m->cfg.uri, "status", outcome_name(rec.outcome), "reason",
				       rec.reason, "total_s", json_real(res.g.t_end));
		imgrun_after(&c->img, c->job, OUTCOME_OK, 1, dir, rel, overlay);
		boot_result_free(&res);
		return *lost_json ? 1 : -ENOMEM;
	}
	if (c->img.on && rec.outcome != OUTCOME_OK && !(c->o->interrupt && *c->o->interrupt))
		run_progress(c, "run %u/%u: %s; post-mortem of its disk with libguestfs", index + 1,
			     total, outcome_name(rec.outcome));
	rec.image_extra = iextra = imgrun_after(&c->img, c->job, rec.outcome,
						c->o->interrupt && *c->o->interrupt, dir, rel,
						overlay);
	rec.kernel_extra = kextra = krun_report(k, &res.log);
	pthread_mutex_lock(&c->lock);
	rec.host.guests_at_once = s->at_once;
	pthread_mutex_unlock(&c->lock);
	rj = runreport_run_json(&rec);
	if (!lost)
		hosts_release(&c->hosts, m, 0, NULL);
	boot_result_free(&res);
	if (!rj)
		return -ENOMEM;
	run_progress(c, "run %u/%u: %s (%s) boot %.1f s, total %.1f s", index + 1, total,
		     outcome_name(rec.outcome), rec.reason, rec.boot_s, rec.total_s);
	return run_record(c, &rec, rj);
}

/* No host of the job's class came back in time: the run says so instead of waiting on. */
static int record_no_host(struct run_slot *s, json_t *attempts, const char *why)
{
	struct run_ctx *c = s->c;
	struct run_record rec = { .index = s->index, .repeat = s->repeat, .job = c->job,
				  .host = c->host, .outcome = OUTCOME_INFRA_ERROR,
				  .end = GUEST_END_HOST_LOST, .total_s = -1, .boot_s = -1,
				  .first_workload_s = -1, .workload_s = -1, .shutdown_s = -1,
				  .attempts = attempts };
	json_t *rj;

	snprintf(rec.reason, sizeof(rec.reason), "not run: %s", why);
	rec.console_file[0] = '\0';
	rj = runreport_run_json(&rec);
	if (!rj)
		return -ENOMEM;
	run_progress(c, "run %u/%u: infra-error, %s", s->index + 1, c->job->repeats * c->kr.n,
		     rec.reason);
	return run_record(c, &rec, rj);
}

int run_one(struct run_slot *s)
{
	struct run_ctx *c = s->c;
	_cleanup_json_ json_t *attempts = json_array();
	struct host_member *m = NULL, *avoid = NULL;
	char why[1024] = "";
	int r = 0;

	if (!attempts)
		return -ENOMEM;
	if (s->k->fail != OUTCOME_OK) {
		struct run_record rec = { .index = s->index, .repeat = s->repeat, .job = c->job,
					  .host = c->host, .total_s = -1, .boot_s = -1,
					  .first_workload_s = -1, .workload_s = -1,
					  .shutdown_s = -1 };

		return record_unbooted(c, &rec, s->k);
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		json_t *lost = NULL;

		r = hosts_acquire(&c->hosts, avoid, c->o->state_dir, c->o->interrupt, &m, why,
				  sizeof(why));
		if (r == -EHOSTDOWN)
			return record_no_host(s, attempts, why);
		if (r < 0) /* interrupted before it started: run again by --resume */
			return r == -EINTR ? 0 : r;
		r = one_attempt(s, m, attempts, attempt == 1, &lost);
		if (r != 1)
			return r;
		json_array_append_new(attempts, lost);
		avoid = m;
	}
	return r;
}
