/* `lab run --dry-run`: what a job would do, resolved and checked, with nothing built, booted
 * or written (lab/run/plan.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder/initramfs.h"
#include "builder/qemu.h"
#include "core/memplan.h"
#include "core/timing.h"
#include "history/history.h"
#include "run/accel.h"
#include "run/disk.h"
#include "run/hostload.h"
#include "run/kernels.h"
#include "run/numacost_plugin.h"
#include "run/plan.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

static void plan_job(struct strbuf *sb, const struct job *job)
{
	strbuf_appendf(sb, "job %s: %s, %u vCPUs (%us x %ud x %uc x %ut), %u nodes; %u kernel%s x "
			   "%u repeat%s; workloads:", job->name,
		       job->topology_ref[0] ? job->topology_ref : "inline topology", job->topo.vcpus,
		       job->topo.sockets, job->topo.dies, job->topo.cores, job->topo.threads,
		       job->topo.nr_nodes, job->nr_kernels, job->nr_kernels == 1 ? "" : "s",
		       job->repeats, job->repeats == 1 ? "" : "s");
	for (unsigned i = 0; i < job->nr_workloads; i++)
		strbuf_appendf(sb, " %s", job->workloads[i].name);
	strbuf_append(sb, "\n");
	if (job->precision.until_decided)
		strbuf_appendf(sb, "sequential: rounds of one boot a side until every deciding series "
				   "is decided, at least %u, at most %u (analysis/sequential.h)\n",
			       job->precision.min_boots, job->repeats);
}

static void plan_memory(struct strbuf *sb, const struct job *job)
{
	unsigned long total = 0, avail = 0;
	struct memplan plan;

	memplan_build(&job->topo, &plan);
	strbuf_appendf(sb, "memory: %lu MiB for the guest, QEMU and the host's reserve", plan.need_mib);
	if (hostload_memory(&total, &avail) == 0)
		strbuf_appendf(sb, "; %lu MiB available: %u guest%s at once fit", avail,
			       memplan_fit(&plan, avail), memplan_fit(&plan, avail) == 1 ? "" : "s");
	strbuf_append(sb, "\n");
}

/* Each kernel: a host image, or a variant the cache has (its key) or would build. */
static void plan_kernels(struct strbuf *sb, const struct krun *kr)
{
	struct kernel_build_opts ko = { 0 };

	for (unsigned i = 0; i < kr->n; i++) {
		const struct krun_kernel *k = &kr->k[i];
		struct kernel_artifact a;
		int hit;

		if (!k->is_variant) {
			strbuf_appendf(sb, "kernel %s: the image %s\n", k->jk->label, k->image);
			continue;
		}
		hit = kernel_lookup(&k->v, &ko, &a);
		if (hit > 0)
			strbuf_appendf(sb, "kernel %s: variant %s, cached (%.12s)\n", k->jk->label,
				       k->v.name, a.key);
		else if (hit == 0)
			strbuf_appendf(sb, "kernel %s: variant %s, to build (lab kernel build %s)%s\n",
				       k->jk->label, k->v.name, k->v.name,
				       k->patches_checked ? "; its patches apply" : "");
		else
			strbuf_appendf(sb, "kernel %s: variant %s, cannot be looked up: %s\n",
				       k->jk->label, k->v.name, a.error);
		kernel_artifact_free(&a);
	}
}

static int plan_image(struct strbuf *sb, const struct job *job, const char *dir,
		      struct lab_error *err)
{
	_cleanup_free_ char *runners = initramfs_runners_dir();
	struct imgrun ir = { 0 };
	int r;

	if (!runners)
		return -ENOMEM;
	if ((r = imgrun_resolve(job, dir, runners, &ir, err)) < 0)
		return r;
	if (ir.on)
		strbuf_appendf(sb, "image %s: %s\n", ir.info.name,
			       fs_exists(ir.info.disk) ? "cached" : "to build (lab image build)");
	return 0;
}

/* The timing model: a TCG model asked for needs no probe; otherwise what the KVM verdict
 * would make of it, both ways while the host has not been probed. */
static void plan_timing(struct strbuf *sb, const struct run_opts *o, const struct job *job)
{
	enum timing_model req = o->timing != TIMING_AUTO ? o->timing : job->timing;
	int ab = job->nr_kernels > 1 || o->comparison;
	char why[512], no_kvm[256];
	enum timing_model m;

	if (req != TIMING_AUTO && req != TIMING_KVM) {
		m = timing_choose(req, 0, job->topo.vcpus, ab, why, sizeof(why));
	} else if (accel_kvm_ruled_out(ACCEL_SYS_MODULE, no_kvm, sizeof(no_kvm)) ||
		   access("/dev/kvm", R_OK | W_OK) < 0) {
		m = timing_choose(req, 0, job->topo.vcpus, ab, why, sizeof(why));
	} else {
		char with[512];

		timing_choose(req, 1, job->topo.vcpus, ab, with, sizeof(with));
		m = timing_choose(req, 0, job->topo.vcpus, ab, why, sizeof(why));
		strbuf_appendf(sb, "timing model: decided by the KVM verdict (the first run probes, "
				   "cached after): %s; without KVM: %s\n", with, why);
		return;
	}
	strbuf_appendf(sb, "timing model %s: %s\n", timing_info(m)->name, why);
	if (timing_info(m)->rounds) {
		struct qemu_build_opts qo = { .offline = 1 };
		struct qemu_build b;
		char w[512];

		strbuf_appendf(sb, "QEMU for %s: %s\n", timing_info(m)->name,
			       qemu_build_ensure(&qo, &b, w, sizeof(w)) == 0
				       ? "cached" : "to build (lab qemu build)");
	}
}

/* numa_cost: the preset, and what would refuse it: a built QEMU without the charge, the
 * plugin not built. */
static void plan_numa(struct strbuf *sb, const struct job *job)
{
	_cleanup_free_ char *runners = NULL;
	struct qemu_build_opts qo = { .offline = 1 };
	struct qemu_build b;
	char why[512] = "";

	if (!job->numa_cost[0] || !job->numa.name[0])
		return;
	strbuf_appendf(sb, "NUMA cost model: preset %s (%.12s), ipns %g%s\n", job->numa.name,
		       job->numa_sha256, job->numa.ipns.value,
		       numapreset_is_estimate(&job->numa) ? ", estimates among its figures" : "");
	runners = initramfs_runners_dir();
	if (runners && qemu_build_ensure(&qo, &b, why, sizeof(why)) == 0 &&
	    numacost_check_host(b.binary, runners, why, sizeof(why)) < 0)
		strbuf_appendf(sb, "%s\n", why);
}

static void plan_order(struct strbuf *sb, const struct job *job)
{
	unsigned n = job->repeats * job->nr_kernels;

	strbuf_appendf(sb, "run order (%u run%s, interleaved):", n, n == 1 ? "" : "s");
	for (unsigned i = 0; i < n && i < 12; i++)
		strbuf_appendf(sb, " %s", job->kernels[i % job->nr_kernels].label);
	strbuf_append(sb, n > 12 ? " ...\n" : "\n");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int plan_estimate(const char *state_dir, const struct job *job, double *run_s, char *report,
		  size_t len)
{
	struct history_filter f = { .job = job->name, .limit = 1 };
	struct lab_error err = { 0 };
	struct history *h = NULL;
	struct history_report *reps = NULL;
	_cleanup_json_ json_t *doc = NULL;
	_cleanup_free_ char *db = fs_join(state_dir, "history.db");
	double t[256];
	size_t n = 0, nr = 0, i;
	const json_t *run;

	if (db && history_open(db, 0, &h, &err) == 0 && history_list(h, &f, &reps, &nr, &err) == 0 &&
	    nr && jsonio_load_file(reps[0].path, 64 << 20, &doc, &err) == 0)
		json_array_foreach(json_object_get(doc, "runs"), i, run) {
			const json_t *s = json_object_get(json_object_get(run, "timings"), "total_s");

			if (n < 256 && json_is_number(s) &&
			    json_equal(json_object_get(run, "status"), json_string("ok")))
				t[n++] = json_number_value(s);
		}
	if (n) {
		qsort(t, n, sizeof(t[0]), cmp_double);
		*run_s = t[n / 2];
		snprintf(report, len, "%s", reps[0].id);
	}
	if (reps)
		history_reports_free(reps, nr);
	if (h)
		history_close(h);
	return n ? 0 : -ENOENT;
}

static void plan_estimate_text(struct strbuf *sb, const struct run_opts *o, const struct job *job)
{
	char id[256];
	double s;

	if (plan_estimate(o->env.state_dir, job, &s, id, sizeof(id)) == 0)
		strbuf_appendf(sb, "estimate: %s %.0f min for %u runs, one at a time (the median "
				   "run of report %s took %.0f s; builds not counted)\n",
			       job_rounds(job) ? "at most about" : "about",
			       ceil(s * job->repeats * job->nr_kernels / 60),
			       job->repeats * job->nr_kernels, id, s);
	else
		strbuf_append(sb, "estimate: none (no earlier report of this job in the history)\n");
}

int run_plan(const struct run_opts *o, const struct job *job, struct strbuf *sb,
	     struct lab_error *err)
{
	_cleanup_free_ char *dir = fs_dirname(o->job_file ? o->job_file : ".");
	struct krun kr = { 0 };
	int r;

	if (!dir)
		return -ENOMEM;
	error_set_file(err, o->job_file);
	/* Patches are checked where that takes seconds: a tree of the base's is there. */
	if ((r = krun_resolve(job, dir, &kr, err)) < 0 ||
	    (r = krun_check_patches(&kr, &(struct kernel_build_opts){ 0 }, 0, err)) < 0) {
		krun_free(&kr);
		return r;
	}
	plan_job(sb, job);
	plan_memory(sb, job);
	plan_kernels(sb, &kr);
	krun_free(&kr);
	if ((r = plan_image(sb, job, dir, err)) < 0)
		return r;
	plan_timing(sb, o, job);
	plan_numa(sb, job);
	plan_order(sb, job);
	plan_estimate_text(sb, o, job);
	return 0;
}
