/* The results channel (runners/PROTOCOL.md, "Guest -> host"): what the guest writes, framed
 * into lines as the guest watcher does (linesplit, the bytes arriving in pieces of 1, 2, 3 ...
 * bytes) and read by the host's one reader of it (collect_line: each line through
 * channel_parse), then made into the run's report (runreport_run_json) with the kernel's
 * config the guest sent parsed as lab/run/kernels.c parses it.  A second splitter with a
 * small bound checks that no line it hands on is longer. */
#include "core/collect.h"
#include "core/kvariant.h"
#include "core/runreport.h"
#include "fuzz/fuzz.h"
#include "util/linesplit.h"

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

#define FUZZ_SMALL_LINE 64

static void fuzz_results_line(const char *line, size_t len, void *ud)
{
	collect_line(ud, line, len, 1.0);
}

static void fuzz_results_small(const char *line, size_t len, void *ud)
{
	(void)ud;
	FUZZ_ASSERT(len <= FUZZ_SMALL_LINE && strlen(line) <= len);
}

/* data through splitter ls (emptied first: its buffer is made once, 1 MiB under ASan is
 * slow to make) in pieces of growing size. */
static void fuzz_results_split(struct linesplit *ls, const uint8_t *data, size_t size,
			       void (*on_line)(const char *, size_t, void *), void *ud)
{
	ls->len = 0;
	ls->dropping = 0;
	for (size_t i = 0, piece = 1; i < size; i += piece, piece = piece % 4096 + 1)
		linesplit_feed(ls, (const char *)data + i, size - i < piece ? size - i : piece,
			       on_line, ud);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct linesplit big, small;
	const struct job *job = fuzz_results_get_job();
	struct run_record rec = { .job = job, .end = GUEST_END_STOPPED };
	struct guest_log g;
	int failed, missing;

	if (!big.line && (linesplit_init(&big, COLLECT_MAX_LINE) < 0 ||
			  linesplit_init(&small, FUZZ_SMALL_LINE) < 0))
		abort();
	if (collect_init(&g, job->nr_workloads) < 0)
		return 0;
	fuzz_results_split(&big, data, size, fuzz_results_line, &g);
	fuzz_results_split(&small, data, size, fuzz_results_small, NULL);
	collect_count(&g, &failed, &missing);
	FUZZ_ASSERT(failed >= 0 && missing >= 0 && failed + missing <= (int)job->nr_workloads);
	json_decref(collect_vma_lock_json(&g.kernel));
	fuzz_results_config(&g.kernel);
	rec.log = &g;
	json_decref(runreport_run_json(&rec));
	collect_free(&g);
	return 0;
}
