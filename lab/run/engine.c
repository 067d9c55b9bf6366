#include "run/engine.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/precision.h"
#include "analysis/sequential.h"
#include "builder/initramfs.h"
#include "builder/qemu.h"
#include "core/memplan.h"
#include "core/runreport.h"
#include "core/runresume.h"
#include "run/boot.h"
#include "run/context.h"
#include "run/disk.h"
#include "run/host.h"
#include "run/hostload.h"
#include "run/kernels.h"
#include "run/numacost_plugin.h"
#include "run/resume.h"
#include "run/slot.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/progress.h"

/* After a round of a sequential A/B ("until": "decided"): whether every deciding series is
 * decided at the look's level (analysis/sequential.h), else the cap or the time. */
static int decided_stop(struct run_ctx *c, unsigned rounds, double elapsed_s)
{
	const struct job_precision *p = &c->job->precision;
	unsigned looks = c->job->repeats;
	double alpha = seq_look_alpha(looks);
	double thr = c->job->threshold_pct > 0 ? c->job->threshold_pct
					       : COMPARE_DEFAULT_THRESHOLD_PCT;
	struct seq_status st;
	const char *why = NULL;

	/* One label: nothing to decide between, the rounds run to the cap. */
	if (c->job->nr_kernels < 2 || seq_check(c->runs, alpha, looks, thr, &st) < 0)
		memset(&st, 0, sizeof(st));
	if (st.decided)
		why = "decided";
	else if (rounds >= looks)
		why = "max_boots";
	else if (p->max_s > 0 && elapsed_s >= p->max_s)
		why = "max_s";
	if (c->job->nr_kernels < 2)
		run_ctx_progress(c, "round %u of %u: one kernel, nothing to decide between%s",
				 rounds, looks, why ? "; stopping" : "");
	else
		run_ctx_progress(c, "sequential A/B after %u of at most %u round(s): %zu of %zu "
				 "deciding series decided at %.1f%% intervals%s%s%s%s", rounds, looks,
				 st.series - st.undecided, st.series, 100 * (1 - alpha),
				 st.first_undecided[0] ? " (" : "", st.first_undecided,
				 st.first_undecided[0] ? ")" : "", why ? "; stopping" : "");
	if (!why)
		return 0;
	json_decref(c->stop);
	c->stop = json_pack("{s:s,s:I,s:I,s:f,s:I,s:s,s:f}", "reason", why, "rounds",
			    (json_int_t)rounds, "looks", (json_int_t)looks, "alpha", alpha,
			    "undecided", (json_int_t)st.undecided, "first_undecided",
			    st.first_undecided, "elapsed_s", elapsed_s);
	return 1;
}

/* After a round of a "precision" job: whether to stop, and c->stop saying why once it does
 * (the precision reached, the time cap, or the most rounds). */
static int precision_stop(struct run_ctx *c, unsigned rounds, double elapsed_s)
{
	const struct job_precision *p = &c->job->precision;
	struct precision_status st;
	const char *why = NULL;

	if (rounds < p->min_boots && rounds < c->job->repeats)
		return 0;
	if (p->until_decided)
		return decided_stop(c, rounds, elapsed_s);
	if (precision_check(c->runs, p->ci_pct, &st) < 0) {
		st.worst_pct = NAN;
		st.reached = 0;
		st.worst[0] = '\0';
	}
	if (st.reached)
		why = "precision";
	else if (rounds >= c->job->repeats)
		why = "max_boots";
	else if (p->max_s > 0 && elapsed_s >= p->max_s)
		why = "max_s";
	run_ctx_progress(c, "precision after %u round(s): the widest 95%% interval is +-%.2f%% of "
			"its mean (%s), target +-%g%%%s%s", rounds, st.worst_pct,
		     st.worst[0] ? st.worst : "no primary metric", p->ci_pct,
		     why ? "; stopping: " : "", why ? why : "");
	if (!why)
		return 0;
	json_decref(c->stop);
	c->stop = json_pack("{s:s,s:I,s:f,s:o,s:s,s:f}", "reason", why, "rounds",
			    (json_int_t)rounds, "target_ci_pct", p->ci_pct, "worst_ci_pct",
			    isfinite(st.worst_pct) ? json_real(st.worst_pct) : json_null(),
			    "worst_series", st.worst, "elapsed_s", elapsed_s);
	return 1;
}

static void *slot_main(void *arg)
{
	struct run_slot *s = arg;
	struct run_ctx *c = s->c;
	int r = run_one(s);

	pthread_mutex_lock(&c->lock);
	s->r = r;
	s->finished = 1;
	pthread_cond_signal(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

static void make_id(struct run_ctx *c)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(c->created, sizeof(c->created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(c->id, sizeof(c->id), "%04d%02d%02d-%02d%02d%02d-%s", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, c->job->name);
}

static void qemu_progress(void *ud, const char *msg)
{
	run_ctx_progress(ud, "%s", msg);
}

/* The contention model runs on the lab's QEMU build: found in the cache, or built now (the
 * first job that needs it waits for it, with progress).  Only on this machine: a remote host
 * would need the same build, which the lab does not install there. */
static int host_qemu(struct run_ctx *c, struct host *m, char *msg, size_t len)
{
	struct qemu_build_opts o = { .interrupt = c->o->env.interrupt, .progress = qemu_progress,
				     .progress_ud = c };
	struct qemu_build b;
	char why[512] = "";
	int r;

	if (m->vc.remote) {
		snprintf(msg, len, "the timing model %s needs the lab's QEMU build, which is made "
			 "on this machine only; %s is remote", timing_info(m->host.timing)->name,
			 m->uri);
		return -EOPNOTSUPP;
	}
	m->host.quantum = c->o->quantum ? c->o->quantum
			  : c->job->quantum ? c->job->quantum : TIMING_QUANTUM_DEFAULT;
	run_ctx_progress(c, "the contention model's QEMU (quantum %u): looking in the cache",
		     m->host.quantum);
	r = qemu_build_ensure(&o, &b, why, sizeof(why));
	if (r < 0) {
		snprintf(msg, len, "the timing model %s needs the lab's QEMU build: %s",
			 timing_info(m->host.timing)->name, why);
		return r;
	}
	snprintf(m->host.qemu_build, sizeof(m->host.qemu_build), "%s", b.key);
	snprintf(m->host.qemu_binary, sizeof(m->host.qemu_binary), "%s", b.binary);
	run_ctx_progress(c, "QEMU %.12s: %s", b.key, b.cached ? "cached" : "built");
	return 0;
}

/* "numa_cost" (core/job.c) as far as it is known before anything is built: the contention
 * model asked for, this machine, the preset read (run/jobload.c), and a QEMU already built
 * for it that takes the charges (host_numa checks the one that boots).  lab run refuses the
 * first two itself (lab/cli/runjob.c); a bisection or a night comes here with its own
 * options. */
static int numa_wanted(const struct run_ctx *c, char *msg, size_t len)
{
	enum timing_model req = c->o->timing != TIMING_AUTO ? c->o->timing : c->job->timing;
	struct qemu_build_opts qo = { .offline = 1 };
	struct qemu_build b;
	char why[512];

	if (!c->job->numa_cost[0])
		return 0;
	if (req != TIMING_QUANTUM)
		snprintf(msg, len, "numa_cost needs the contention model, not the timing model %s",
			 req == TIMING_AUTO ? "auto" : timing_info(req)->name);
	else if (virt_uri_remote(c->o->env.uri))
		snprintf(msg, len, "numa_cost runs on this machine only, not on %s", c->o->env.uri);
	else if (!c->job->numa.name[0])
		snprintf(msg, len, "numa_cost: the preset %s was not read (run/jobload.c)",
			 c->job->numa_cost);
	else if (qemu_build_ensure(&qo, &b, why, sizeof(why)) == 0)
		return numacost_check_host(b.binary, c->runners, msg, len);
	else
		return 0;
	return -EINVAL;
}

/* The QEMU a numa_cost job boots takes the plugin's charges, and the plugin is built; every
 * run then records the preset in host.timing, whose key pools by it. */
static int host_numa(struct run_ctx *c, struct host *m, char *msg, size_t len)
{
	const struct job *job = c->job;
	int r = numacost_check_host(m->host.qemu_binary, c->runners, msg, len);

	if (r < 0)
		return r;
	snprintf(m->host.numa_preset, sizeof(m->host.numa_preset), "%s", job->numa.name);
	snprintf(m->host.numa_sha256, sizeof(m->host.numa_sha256), "%s", job->numa_sha256);
	m->host.numa_ipns = job->numa.ipns.value;
	run_ctx_progress(c, "NUMA cost model: preset %s (%.12s), ipns %g%s", job->numa.name,
			 job->numa_sha256, job->numa.ipns.value,
			 numapreset_is_estimate(&job->numa) ? ", estimates among its figures" : "");
	return 0;
}

/* KVM or TCG on the host, and with it the timing model (the KVM probe's verdict is cached per
 * host in the state directory). */
static int host_decide(struct run_ctx *c, struct host *m, char *msg, size_t len)
{
	enum timing_model req;
	enum accel_mode mode;
	struct accel_verdict v;
	int r;

	/* A TCG timing model asked for needs no probe. */
	req = c->o->timing != TIMING_AUTO ? c->o->timing : c->job->timing;
	mode = req != TIMING_AUTO && req != TIMING_KVM ? ACCEL_FORCE_TCG : c->o->env.accel;
	run_ctx_progress(c, "deciding KVM or TCG%s%s (cached per host after the first probe)",
			 m->vc.remote ? " on " : "", m->vc.remote ? m->uri : "");
	r = accel_decide(&m->vc, c->o->env.state_dir, c->kernel, c->runners, mode, c->o->env.interrupt,
			 &v);
	if (r < 0) {
		snprintf(msg, len, "KVM probe failed: %s", strerror(-r));
		return r;
	}
	if (mode != c->o->env.accel)
		snprintf(m->host.accel_reason, sizeof(m->host.accel_reason),
			 "TCG: the timing model %s runs on TCG", timing_info(req)->name);
	else
		snprintf(m->host.accel_reason, sizeof(m->host.accel_reason), "%s%s", v.reason,
			 v.cached ? " (cached verdict)" : "");
	if (req == TIMING_KVM && !v.kvm) {
		snprintf(msg, len, "timing \"kvm\" was asked for, but KVM does not work here: %s",
			 m->host.accel_reason);
		return -ENODEV;
	}
	m->host.timing = timing_choose(req, v.kvm, c->job->topo.vcpus,
				       c->job->nr_kernels > 1 || c->o->comparison,
				       m->host.timing_reason, sizeof(m->host.timing_reason));
	snprintf(m->host.accel, sizeof(m->host.accel), "%s",
		 m->host.timing == TIMING_KVM ? "kvm" : "tcg");
	run_ctx_progress(c, "accel %s: %s", m->host.accel, m->host.accel_reason);
	run_ctx_progress(c, "timing model %s", m->host.timing_reason);
	if (!timing_info(m->host.timing)->rounds)
		return 0;
	r = host_qemu(c, m, msg, len);
	return r < 0 || !c->job->numa_cost[0] ? r : host_numa(c, m, msg, len);
}

/* The host opened and decided on (--host-class only labels its runs); the guest must fit in
 * the memory it has now.  Fails at once when the host cannot be reached: a run never waits
 * for one. */
static int setup_host(struct run_ctx *c, char *msg, size_t len)
{
	struct host *h = &c->h;
	struct memplan plan;
	int r;

	/* When its cache of QEMU's capabilities is missing or stale (a fresh state directory, a
	 * new QEMU) libvirt probes QEMU first: 10 s here once orphaned probes are reaped
	 * (lab/virt/reap.h), 2 min 43 s while they were left as zombies. */
	r = hosts_init(h, c->o->env.uri, c->o->env.host_class, c->o->env.pool_dir);
	if (r < 0)
		return r;
	run_ctx_progress(c, "opening libvirt%s%s", h->uri[0] ? " " : "", h->uri);
	r = hosts_connect(h, c->o->env.state_dir);
	if (r < 0) {
		snprintf(msg, len, "%s%s%s", h->uri[0] ? h->uri : "", h->uri[0] ? ": " : "",
			 h->why);
		return r;
	}
	r = host_decide(c, h, msg, len);
	if (r < 0)
		return r;
	memplan_build(&c->job->topo, &plan);
	if (h->vc.remote && h->mem_mib && !memplan_fit(&plan, h->mem_mib)) {
		snprintf(msg, len, "%s: %lu MiB available, the guest needs %lu MiB", h->uri,
			 h->mem_mib, plan.need_mib);
		return -ENOMEM;
	}
	c->host = h->host;
	return 0;
}

/* Every kernel of the job checked before anything is written (variant files too). */
static int resolve_kernels(struct run_ctx *c, struct lab_error *err)
{
	_cleanup_free_ char *dir = fs_dirname(c->o->job_file ? c->o->job_file : ".");

	error_set_file(err, c->o->job_file); /* variant files name themselves */
	return dir ? krun_resolve(c->job, dir, &c->kr, err) : -ENOMEM;
}

/* Multi-threaded TCG runs a thread per vCPU on the host's cores; with many more busy tasks
 * than cores a queued spinlock's next waiter is almost never running, and the guest stalls
 * (512 tasks on 2 cores: RCU stalls, no heartbeat, a hang; 8 did not).  Said before the
 * first boot, for each kernel built without CONFIG_PARAVIRT, whose contended spinlocks stay
 * queued (kernels/README.md, "virt-spinlock").  Between the two widths measured nothing is
 * known, so the line names the ratio and leaves the decision to the user. */
#define RUN_OVERCOMMIT_WARN_PER_CPU 64

static int kernel_has_paravirt(const struct krun_kernel *k)
{
	struct lab_error err = { 0 };
	struct kconfig kc;
	const char *v;
	int yes;

	if (kconfig_parse(k->build_config, 0, &kc, &err) < 0)
		return 0;
	v = kconfig_get(&kc, "PARAVIRT");
	yes = v && !strcmp(v, "y");
	kconfig_free(&kc);
	return yes;
}

static void warn_overcommit(struct run_ctx *c)
{
	unsigned host = hostload_cpus(), tasks = job_max_tasks(c->job);

	if (c->host.timing != TIMING_TCG || tasks < RUN_OVERCOMMIT_WARN_PER_CPU * host)
		return;
	for (unsigned i = 0; i < c->kr.n; i++) {
		const struct krun_kernel *k = &c->kr.k[i];

		if (!k->build_config || kernel_has_paravirt(k))
			continue;
		run_ctx_progress(c, "warning: %s: up to %u tasks on %u host CPU(s) under multi-threaded "
			     "TCG, with queued spinlocks: a lock's next waiter is rarely running, and "
			     "512 tasks on 2 host CPUs stalled (RCU stalls, then a hang); the "
			     "virt-spinlock variant takes contended spinlocks test-and-set as Linux "
			     "does under hypervisors (kernels/README.md, \"virt-spinlock\")",
			     k->jk->label, tasks, host);
	}
}

/* How this run's kernel work reports and stops. */
static struct kernel_build_opts kernel_opts(const struct run_ctx *c)
{
	return (struct kernel_build_opts){ .interrupt = c->o->env.interrupt,
					   .progress = c->o->env.progress,
					   .progress_ud = c->o->env.progress_ud };
}

/* Every variant's source made and patched first (the tarball extracted when it must be). */
static int check_patches(struct run_ctx *c, struct lab_error *err)
{
	struct kernel_build_opts ko = kernel_opts(c);

	return krun_check_patches(&c->kr, &ko, 1, err);
}

/* Variants the cache lacks are built now, with progress; the first bootable kernel probes
 * KVM. */
static int build_kernels(struct run_ctx *c, char *msg, size_t len)
{
	struct kernel_build_opts ko = kernel_opts(c);
	const char *first;
	int r = krun_build(&c->kr, &ko);

	if (r < 0) {
		snprintf(msg, len, "kernel build: %s", r == -EINTR ? "interrupted" : strerror(-r));
		return r;
	}
	first = krun_first_image(&c->kr);
	snprintf(c->kernel, sizeof(c->kernel), "%s", first ? first : "");
	return 0;
}

/* The job's image recipe checked (its files, and its package list unless cached) before
 * anything is written: a recipe error exits 2 like any job error. */
static int resolve_image(struct run_ctx *c, struct lab_error *err)
{
	_cleanup_free_ char *dir = fs_dirname(c->o->job_file ? c->o->job_file : ".");

	return dir ? imgrun_resolve(c->job, dir, c->runners, &c->img, err) : -ENOMEM;
}

/* Built after the KVM verdict, which libguestfs needs (force_tcg where KVM guests hang). */
static int build_image(struct run_ctx *c, char *msg, size_t len)
{
	struct lab_error err = { 0 };
	int r;

	if (!c->img.on)
		return 0;
	run_ctx_progress(c, "image %s: %s", c->img.info.name, c->img.info.dir);
	/* Built here, uploaded to a remote host by hash when a run there needs it. */
	r = imgrun_build(&c->img, !strcmp(c->host.accel, "kvm"), c->o->env.progress,
			 c->o->env.progress_ud, &err);
	if (r < 0)
		error_format(&err, msg, len);
	return r;
}

static int prepare(struct run_ctx *c, char *msg, size_t len)
{
	struct lab_error err = { 0 };
	int r;

	make_id(c);
	if (c->o->resume && c->o->resume->id[0]) { /* the same report, continued */
		snprintf(c->id, sizeof(c->id), "%s", c->o->resume->id);
		snprintf(c->created, sizeof(c->created), "%s", c->o->resume->created);
	}
	if (c->o->out_dir)
		snprintf(c->sum->out_dir, sizeof(c->sum->out_dir), "%s", c->o->out_dir);
	else
		snprintf(c->sum->out_dir, sizeof(c->sum->out_dir), "reports/%s", c->id);
	snprintf(c->sum->report, sizeof(c->sum->report), "%s/report.json", c->sum->out_dir);
	r = resolve_kernels(c, &err);
	if (r < 0) {
		error_format(&err, msg, len);
		return r;
	}
	c->runners = initramfs_runners_dir();
	c->runs = c->o->resume ? json_copy(c->o->resume->runs) : json_array();
	if (c->o->resume)
		runresume_count(c->o->resume, &c->sum->runs, &c->sum->ok, &c->sum->status);
	if (!c->runners || !c->runs)
		return -ENOMEM;
	if ((r = numa_wanted(c, msg, len)) < 0)
		return r;
	r = resolve_image(c, &err);
	if (r < 0) {
		error_format(&err, msg, len);
		return r;
	}
	/* Before the report directory exists: an interrupted build leaves nothing behind, and a
	 * patch that does not apply is bad input before any kernel is built. */
	r = check_patches(c, &err);
	if (r < 0) {
		error_format(&err, msg, len);
		return r;
	}
	r = build_kernels(c, msg, len);
	if (r < 0)
		return r;
	r = fs_mkdir_p(c->sum->out_dir, 0755);
	if (r < 0) {
		snprintf(msg, len, "cannot create %s: %s", c->sum->out_dir, strerror(-r));
		return r;
	}
	/* Without any bootable kernel every run is a build-failure: no host needed. */
	if (!c->kernel[0])
		return 0;
	r = setup_host(c, msg, len);
	if (r == 0)
		warn_overcommit(c);
	return r < 0 ? r : build_image(c, msg, len);
}

/* Guests at once: the job's or the CLI's "parallel" for the timing model now known, one per
 * free host core under auto, as many as memory holds. */
static void choose_parallel(struct run_ctx *c)
{
	unsigned long total = 0, avail = 0;
	unsigned asked = c->o->parallel > 0    ? (unsigned)c->o->parallel
			 : c->o->parallel < 0 ? 0
					      : c->job->parallel;
	unsigned free_cpus = 1, fit = 1;
	struct memplan plan;

	memplan_build(&c->job->topo, &plan);
	if (timing_info(c->host.timing)->deterministic) {
		if (hostload_memory(&total, &avail) == 0)
			fit = memplan_fit(&plan, avail);
		if (!asked)
			free_cpus = hostload_free_cpus(1.0);
	}
	c->parallel = timing_parallel(c->host.timing, asked, free_cpus, fit,
				      c->job->repeats * c->kr.n, c->parallel_why,
				      sizeof(c->parallel_why));
	/* Said when it is news: more than one at once, or fewer than asked. */
	if (c->parallel > 1 || asked > 1)
		run_ctx_progress(c, "%s", c->parallel_why);
}

/* Under c->lock: slots that finished are joined; *err keeps the first lab error. */
static unsigned join_finished(struct run_ctx *c, int *err)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->nslots; i++) {
		struct run_slot *s = &c->slots[i];

		if (!s->started || !s->finished || s->joined)
			continue;
		pthread_join(s->thread, NULL);
		s->joined = 1;
		n++;
		if (s->r < 0 && !*err)
			*err = s->r;
	}
	return n;
}

/* Under c->lock: rounds (every kernel once) whose runs have all ended, from *done on; a
 * "precision" job decides after each whether to stop. */
static int rounds_advance(struct run_ctx *c, unsigned *done, double t0, int *stopping)
{
	const unsigned n = c->kr.n;

	while (*done < c->job->repeats && !*stopping) {
		for (unsigned k = 0; k < n; k++)
			if (!c->slots[*done * n + k].joined)
				return 0;
		(*done)++;
		if (job_rounds(c->job) && !(c->o->env.interrupt && *c->o->env.interrupt) &&
		    precision_stop(c, *done, clock_now_s() - t0)) {
			*stopping = 1;
			return run_ctx_write_report(c);
		}
	}
	return 0;
}

/* Whether round r (0-based) can start with done rounds judged: always, except in a
 * "precision" job past its min_boots, where each round waits until every round before it was
 * judged, so that no guest boots for a round the job will not need. */
static int round_needed(const struct run_ctx *c, unsigned r, unsigned done)
{
	return !job_rounds(c->job) || r < c->job->precision.min_boots || r <= done;
}

static int slot_start(struct run_slot *s)
{
	int r;

	s->started = 1;
	r = pthread_create(&s->thread, NULL, slot_main, s);
	if (r != 0) {
		s->started = 0;
		return -r;
	}
	return 0;
}

/* Runs in index order, A B A B (drift of a shared machine hits every kernel alike), up to
 * c->parallel at once; each thread records its run as it ends. */
static int run_all(struct run_ctx *c, char *msg, size_t msglen)
{
	const struct run_opts *o = c->o;
	unsigned next = 0, running = 0, done = 0;
	int err = 0, stopping = 0, r;
	double t0 = clock_now_s();

	c->nslots = c->job->repeats * c->kr.n;
	c->slots = calloc(c->nslots, sizeof(*c->slots));
	if (!c->slots)
		return -ENOMEM;
	for (unsigned i = 0; i < c->nslots; i++)
		c->slots[i] = (struct run_slot){ .c = c, .index = i, .repeat = i / c->kr.n,
						 .k = &c->kr.k[job_run_kernel(c->job, i)] };
	if ((r = resume_slots(c)) < 0) {
		snprintf(msg, msglen, "cannot write %s: %s", c->sum->report, strerror(-r));
		return r;
	}
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!err && !stopping && next < c->nslots && running < c->parallel &&
		       round_needed(c, next / c->kr.n, done) && !(o->env.interrupt && *o->env.interrupt)) {
			if (c->slots[next].started) { /* kept or interrupted (resume_slots) */
				next++;
				continue;
			}
			r = slot_start(&c->slots[next]);
			if (r < 0) {
				err = r;
				break;
			}
			next++;
			running++;
		}
		if (!running)
			break;
		pthread_cond_wait(&c->cond, &c->lock);
		running -= join_finished(c, &err);
		if (!err && (r = rounds_advance(c, &done, t0, &stopping)) < 0)
			err = r;
	}
	c->sum->planned = stopping ? next : c->nslots;
	if (!err && job_rounds(c->job) && !c->stop && !(o->env.interrupt && *o->env.interrupt)) {
		precision_stop(c, done, clock_now_s() - t0);
		err = run_ctx_write_report(c);
	}
	pthread_mutex_unlock(&c->lock);
	if (err < 0)
		snprintf(msg, msglen, "cannot write %s: %s", c->sum->report, strerror(-err));
	return err;
}

int run_job(const struct run_opts *o, const struct job *job, struct run_summary *sum,
	    char *msg, size_t msglen)
{
	struct run_ctx c = { .o = o, .job = job, .sum = sum };
	int r;

	memset(sum, 0, sizeof(*sum));
	pthread_mutex_init(&c.lock, NULL);
	pthread_mutex_init(&c.plock, NULL);
	pthread_cond_init(&c.cond, NULL);
	msg[0] = '\0';
	r = prepare(&c, msg, msglen);
	if (r == 0) {
		choose_parallel(&c);
		r = run_all(&c, msg, msglen);
	}
	krun_free(&c.kr);
	hosts_free(&c.h);
	json_decref(c.runs);
	json_decref(c.stop);
	free(c.runners);
	free(c.slots);
	pthread_cond_destroy(&c.cond);
	pthread_mutex_destroy(&c.plock);
	pthread_mutex_destroy(&c.lock);
	return r;
}
