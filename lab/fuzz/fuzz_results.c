/* The results channel (runners/PROTOCOL.md, "Guest -> host"): what the guest writes, read by
 * the host's one reader of it (collect_text: each line through channel_parse), then made into
 * the run's report (runreport_run_json) with the kernel's config the guest sent parsed as
 * lab/stage/krun.c parses it. */
#include "core/collect.h"
#include "core/kvariant.h"
#include "core/runreport.h"
#include "fuzz/fuzz.h"

/* The job the guest answers: three workloads on the 4s-8c topology. */
static const char fuzz_results_job[] =
	"{\"name\": \"fuzz\", \"topology\": \"4s-8c\", \"kernel\": {\"image\": \"/vmlinuz\"},"
	" \"workloads\": [{\"name\": \"pft\"}, {\"name\": \"pft\", \"params\": {\"mode\":"
	" \"processes\"}}, {\"name\": \"pft\"}]}";

static const struct job *fuzz_results_get_job(void)
{
	static struct job job;
	static int ready;
	struct lab_error err = { 0 };
	json_t *j;

	if (!ready) {
		j = json_loads(fuzz_results_job, JSON_REJECT_DUPLICATES, NULL);
		if (!j || job_from_json(j, fuzz_topology_loader, NULL, &job, &err) < 0) {
			fprintf(stderr, "fuzz: the harness's job: %s: %s\n", err.path, err.msg);
			abort();
		}
		json_decref(j);
		ready = 1;
	}
	return &job;
}

static void fuzz_results_config(const struct guest_kernel *k)
{
	struct lab_error err = { 0 };
	struct kconfig c = { 0 };

	if (!k->config || kconfig_parse(k->config, 0, &c, &err) < 0)
		return;
	json_decref(kconfig_confounds(&c));
	json_decref(kconfig_subset(&c, NULL, 0));
	kconfig_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct job *job = fuzz_results_get_job();
	struct run_record rec = { .job = job, .end = GUEST_END_STOPPED };
	struct guest_log g;
	int failed, missing;

	if (collect_init(&g, job->nr_workloads) < 0)
		return 0;
	collect_text(&g, (const char *)data, size, 1.0);
	collect_count(&g, &failed, &missing);
	FUZZ_ASSERT(failed >= 0 && missing >= 0 && failed + missing <= (int)job->nr_workloads);
	json_decref(collect_vma_lock_json(&g.kernel));
	fuzz_results_config(&g.kernel);
	rec.log = &g;
	json_decref(runreport_run_json(&rec));
	collect_free(&g);
	return 0;
}
