#include "stage/run.h"

#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "core/report.h"
#include "stage/boot.h"
#include "stage/initramfs.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

#define DEFAULT_WORKLOAD_TIMEOUT_S 1800.0

int run_state_dir(char *buf, size_t len)
{
	const char *s = getenv("LAB_STATE_DIR"), *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");

	if (s && s[0])
		snprintf(buf, len, "%s", s);
	else if (x && x[0])
		snprintf(buf, len, "%s/numalab", x);
	else if (h && h[0])
		snprintf(buf, len, "%s/.local/state/numalab", h);
	else
		return -ENOENT;
	return 0;
}

static int cmp_version(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int run_resolve_kernel(const struct job *job, char *path, size_t len, struct lab_error *err)
{
	glob_t g;
	int r;

	if (!strpbrk(job->kernel_image, "*?[")) {
		_cleanup_free_ char *abs = realpath(job->kernel_image, NULL);

		if (!abs || access(abs, R_OK) < 0)
			return error_set(err, "kernel.image", "cannot read %s: %s", job->kernel_image,
					 strerror(errno));
		snprintf(path, len, "%s", abs);
		return 0;
	}
	r = glob(job->kernel_image, 0, NULL, &g);
	if (r != 0)
		return error_set(err, "kernel.image", "no file matches %s", job->kernel_image);
	qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), cmp_version);
	snprintf(path, len, "%s", g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return 0;
}

int run_check_memory(const struct job *job, struct lab_error *err)
{
	struct sysinfo si;
	unsigned long want = topology_memory_mib(&job->topo), have;

	if (sysinfo(&si) < 0)
		return -errno;
	have = (unsigned long)((unsigned long long)si.totalram * si.mem_unit >> 20);
	/* QEMU itself needs memory too: keep 1 GiB of the host for it and the lab. */
	if (want + 1024 > have)
		return error_set(err, "topology",
				 "the guest needs %lu MiB of RAM but the host has %lu MiB (1024 MiB "
				 "kept for QEMU): use smaller nodes",
				 want, have);
	return 0;
}

/* Bring-up cost grows about quadratically with vCPUs under TCG (DESIGN.md): 252 vCPUs took
 * 220 s and 512 took 971 s with a lean kernel.  A generic kernel is slower, hence the margin. */
double run_boot_timeout(const struct job *job)
{
	double v = job->topo.vcpus;

	return job->boot_timeout_s > 0 ? job->boot_timeout_s : 120.0 + 0.006 * v * v;
}

double run_progress_timeout(const struct job *job)
{
	return job->progress_timeout_s > 0 ? job->progress_timeout_s
					   : 60.0 + job->topo.vcpus / 4.0;
}

static double total_timeout(const struct job *job)
{
	double t = run_boot_timeout(job) + 120.0;

	for (unsigned i = 0; i < job->nr_workloads; i++)
		t += job->workloads[i].timeout_s > 0 ? job->workloads[i].timeout_s
						     : DEFAULT_WORKLOAD_TIMEOUT_S;
	return t;
}

static json_t *guest_job(const struct job *job, const char *run_id)
{
	json_t *ws = json_array();

	for (unsigned i = 0; ws && i < job->nr_workloads; i++) {
		const struct job_workload *w = &job->workloads[i];

		json_array_append_new(ws, json_pack("{s:s,s:O,s:f}", "name", w->name, "params",
						    w->params,
						    "timeout_s", w->timeout_s > 0 ? w->timeout_s
									  : DEFAULT_WORKLOAD_TIMEOUT_S));
	}
	return json_pack("{s:s,s:s,s:s,s:i,s:o}", "schema", "numalab.guestjob/1", "run_id", run_id,
			 "fault", job_fault_name(job->fault), "heartbeat_s", 2, "workloads", ws);
}

struct run_ctx {
	const struct run_opts *o;
	const struct job *job;
	struct virt_conn vc;
	struct run_host host;
	char kernel[PATH_MAX];
	char *cmdline;
	char *runners;
	char id[128];
	char created[32];
	json_t *runs;
	struct run_summary *sum;
};

static void progress(const struct run_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void progress(const struct run_ctx *c, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!c->o->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	c->o->progress(c->o->progress_ud, buf);
}

static int write_report(struct run_ctx *c)
{
	_cleanup_json_ json_t *rep = report_json(c->id, c->created, c->job, c->o->job_file,
						  c->runs, c->sum->status);

	return rep ? jsonio_write_file(c->sum->report, rep) : -ENOMEM;
}

static double since(double t, double from)
{
	return t < 0 || from < 0 ? -1 : t - from;
}

static void fill_record(const struct run_ctx *c, const struct boot_result *res,
			struct run_record *rec)
{
	int failed, missing;
	struct outcome_input in = {
		.end = res->g.end, .crashed = res->g.crashed, .hello = res->log.hello,
		.done = res->log.done, .console = &res->console,
		.boot_timeout_s = run_boot_timeout(c->job),
		.progress_timeout_s = run_progress_timeout(c->job),
		.total_timeout_s = total_timeout(c->job), .start_error = res->start_error,
	};

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
}

static int one_run(struct run_ctx *c, unsigned index, unsigned repeat)
{
	char dir[PATH_MAX + 32], name[64], run_id[192];
	struct run_record rec = { .index = index, .repeat = repeat, .job = c->job,
				  .host = c->host, .total_s = -1, .boot_s = -1,
				  .first_workload_s = -1, .workload_s = -1,
				  .shutdown_s = -1 };
	struct boot_result res;
	_cleanup_json_ json_t *gj = NULL;
	json_t *rj;
	int r;

	snprintf(dir, sizeof(dir), "%s/run-%u", c->sum->out_dir, index);
	snprintf(name, sizeof(name), "numalab-%ld-%u", (long)getpid(), index);
	snprintf(run_id, sizeof(run_id), "%s-r%u", c->id, index);
	snprintf(rec.console_file, sizeof(rec.console_file), "run-%u/console.log", index);
	snprintf(rec.kernel_image, sizeof(rec.kernel_image), "%s", c->kernel);
	snprintf(rec.kernel_cmdline, sizeof(rec.kernel_cmdline), "%s", c->cmdline);
	gj = guest_job(c->job, run_id);
	if (!gj)
		return -ENOMEM;
	struct boot_params bp = {
		.run_dir = dir, .name = name, .kernel = c->kernel, .cmdline = c->cmdline,
		.topo = &c->job->topo, .kvm = !strcmp(c->host.accel, "kvm"),
		.runners_dir = c->runners, .guestjob = gj, .nr_workloads = c->job->nr_workloads,
		.boot_timeout_s = run_boot_timeout(c->job),
		.progress_timeout_s = run_progress_timeout(c->job),
		.total_timeout_s = total_timeout(c->job), .interrupt = c->o->interrupt,
		.keep_initrd = c->o->keep_initrd,
	};
	progress(c, "run %u/%u: booting %u vCPUs, %u nodes (%s)", index + 1,
		 c->job->repeats, c->job->topo.vcpus, c->job->topo.nr_nodes, c->host.accel);
	r = boot_run(&c->vc, &bp, &res);
	if (r < 0) {
		rec.outcome = OUTCOME_INFRA_ERROR;
		snprintf(rec.reason, sizeof(rec.reason), "lab error: %s", strerror(-r));
	} else {
		fill_record(c, &res, &rec);
	}
	rj = report_run_json(&rec);
	boot_result_free(&res);
	if (!rj)
		return -ENOMEM;
	json_array_append_new(c->runs, rj);
	c->sum->status = outcome_worst(c->sum->status, rec.outcome);
	c->sum->runs++;
	c->sum->ok += rec.outcome == OUTCOME_OK;
	progress(c, "run %u/%u: %s (%s) boot %.1f s, total %.1f s", index + 1, c->job->repeats,
		 outcome_name(rec.outcome), rec.reason, rec.boot_s, rec.total_s);
	return write_report(c);
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

static int setup_host(struct run_ctx *c, char *msg, size_t len)
{
	struct accel_verdict v;
	unsigned long hv = 0, lib = 0;
	int r;

	r = virt_open(&c->vc, c->o->uri, c->o->state_dir);
	if (r < 0) {
		snprintf(msg, len, "cannot open libvirt: %s",
			 c->vc.last_error[0] ? c->vc.last_error : strerror(-r));
		return r;
	}
	virt_versions(&c->vc, &hv, &lib);
	virt_version_string(hv, c->host.qemu_version, sizeof(c->host.qemu_version));
	virt_version_string(lib, c->host.libvirt_version, sizeof(c->host.libvirt_version));
	snprintf(c->host.uri, sizeof(c->host.uri), "%s", c->vc.uri);
	progress(c, "deciding KVM or TCG (cached per host after the first probe)");
	r = accel_decide(&c->vc, c->o->state_dir, c->kernel, c->runners, c->o->accel,
			 c->o->interrupt, &v);
	if (r < 0) {
		snprintf(msg, len, "KVM probe failed: %s", strerror(-r));
		return r;
	}
	snprintf(c->host.accel, sizeof(c->host.accel), "%s", v.kvm ? "kvm" : "tcg");
	snprintf(c->host.accel_reason, sizeof(c->host.accel_reason), "%s%s", v.reason,
		 v.cached ? " (cached verdict)" : "");
	progress(c, "accel %s: %s", c->host.accel, c->host.accel_reason);
	return 0;
}

static int prepare(struct run_ctx *c, char *msg, size_t len)
{
	struct lab_error err = { 0 };
	int r;

	make_id(c);
	if (c->o->out_dir)
		snprintf(c->sum->out_dir, sizeof(c->sum->out_dir), "%s", c->o->out_dir);
	else
		snprintf(c->sum->out_dir, sizeof(c->sum->out_dir), "reports/%s", c->id);
	snprintf(c->sum->report, sizeof(c->sum->report), "%s/report.json", c->sum->out_dir);
	r = run_resolve_kernel(c->job, c->kernel, sizeof(c->kernel), &err);
	if (r < 0) {
		error_format(&err, msg, len);
		return r;
	}
	c->cmdline = boot_cmdline(c->job->kernel_cmdline);
	c->runners = initramfs_runners_dir();
	c->runs = json_array();
	if (!c->cmdline || !c->runners || !c->runs)
		return -ENOMEM;
	r = fs_mkdir_p(c->sum->out_dir, 0755);
	if (r < 0) {
		snprintf(msg, len, "cannot create %s: %s", c->sum->out_dir, strerror(-r));
		return r;
	}
	return setup_host(c, msg, len);
}

int run_job(const struct run_opts *o, const struct job *job, struct run_summary *sum,
	    char *msg, size_t msglen)
{
	struct run_ctx c = { .o = o, .job = job, .sum = sum };
	int r;

	memset(sum, 0, sizeof(*sum));
	c.vc.lock_fd = -1;
	msg[0] = '\0';
	r = prepare(&c, msg, msglen);
	for (unsigned i = 0; r == 0 && i < job->repeats; i++) {
		if (o->interrupt && *o->interrupt)
			break;
		r = one_run(&c, i, i);
		if (r < 0)
			snprintf(msg, msglen, "cannot write %s: %s", sum->report, strerror(-r));
	}
	virt_close(&c.vc);
	json_decref(c.runs);
	free(c.cmdline);
	free(c.runners);
	return r;
}
