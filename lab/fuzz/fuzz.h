/* Glue shared by the libFuzzer harnesses (lab/fuzz/fuzz_*.c, one parser of outside input
 * each; `make fuzz`, lab/tests/fuzz.sh).  A harness hands the fuzzer's bytes to the parser the
 * lab uses, the way the lab uses it, then to what the lab does next with what was accepted;
 * AddressSanitizer, UBSan and LeakSanitizer turn a bad access, undefined behaviour or a leak
 * into a finding, and FUZZ_ASSERT a broken promise of the code under test. */
#pragma once
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/job.h"
#include "core/kwarn.h"
#include "core/memfit.h"
#include "core/memplan.h"
#include "util/checkout.h"
#include "util/error.h"
#include "util/jsonio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(c)                                                                    \
	do {                                                                              \
		if (!(c)) {                                                               \
			fprintf(stderr, "fuzz: %s:%d: broken: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                          \
		}                                                                         \
	} while (0)

/* The input as a NUL-terminated string (a NUL inside ends it early, as for the C string
 * the lab would hold); NULL when out of memory. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* The input parsed as the lab parses a JSON file (jsonio: duplicate keys rejected), or NULL. */
static inline json_t *fuzz_json(const uint8_t *data, size_t size)
{
	struct lab_error err = { 0 };
	json_t *j = NULL;

	if (jsonio_load_buf((const char *)data, size, &j, &err) < 0)
		return NULL;
	return j;
}

/* ---- jobs (fuzz_job, fuzz_api) ------------------------------------------------------------ */

#define FUZZ_NR_TOPOLOGIES 5
static const char *const fuzz_topology_names[FUZZ_NR_TOPOLOGIES] = {
	"4s-8c", "4s-64c", "4s-128c", "4s-256c", "4s-512c",
};

/* The lab's topology loader without the file system: the checkout's topologies, read once
 * (the first call), then served from memory; any other name is refused as the lab refuses
 * a name it cannot find. */
static inline int fuzz_topology_loader(const char *ref, void *ud, json_t **out,
				       struct lab_error *err)
{
	static json_t *topo[FUZZ_NR_TOPOLOGIES];
	static int loaded;

	(void)ud;
	if (!loaded) {
		for (int i = 0; i < FUZZ_NR_TOPOLOGIES; i++) {
			char rel[128], path[4096];
			struct lab_error e = { 0 };

			snprintf(rel, sizeof(rel), "configs/topologies/%s.json",
				 fuzz_topology_names[i]);
			if (checkout_find(rel, path, sizeof(path)) == 0)
				jsonio_load_file(path, 4u << 20, &topo[i], &e);
		}
		loaded = 1;
	}
	for (int i = 0; i < FUZZ_NR_TOPOLOGIES; i++)
		if (topo[i] && !strcmp(ref, fuzz_topology_names[i])) {
			*out = json_deep_copy(topo[i]);
			return *out ? 0 : -ENOMEM;
		}
	return error_set(err, "topology", "no topology named \"%s\"", ref);
}

/* What `lab run` and labd do with a job's JSON: job_from_json, then the memory plans (against
 * a fixed host: the check is pure, the host's numbers are not) and the guest job every run
 * hands the agent, which the agent's reader must accept. */
static inline void fuzz_job_json(const json_t *j)
{
	struct lab_error err = { 0 };
	struct guestjob gj;
	struct memplan plan;
	struct job job;

	memset(&job, 0, sizeof(job));
	if (job_from_json(j, fuzz_topology_loader, NULL, &job, &err) < 0)
		return;
	memplan_build(&job.topo, &plan);
	memplan_check(&plan, "topology", 16384, 32768, &err);
	memfit_check_job(&job, &err);
	/* Every kernel's guest job: each with its knobs merged over the job's. */
	for (unsigned i = 0; i < job.nr_kernels; i++) {
		struct lab_error gerr = { 0 };
		json_t *guest = job_guestjob(&job, &job.kernels[i], "run-0", 1);
		int r;

		if (!guest)
			continue;
		r = guestjob_validate(guest, &gj, &gerr);
		if (r < 0)
			fprintf(stderr, "fuzz: guest job refused: %s: %s\n", gerr.path, gerr.msg);
		FUZZ_ASSERT(r == 0);
		json_decref(guest);
	}
	job_free(&job);
}

/* ---- kernel warnings (fuzz_kwarn, fuzz_report) -------------------------------------------- */

static inline void fuzz_kwarn_same(const struct kwarn_list *a, const struct kwarn_list *b)
{
	FUZZ_ASSERT(a->n == b->n && a->dropped == b->dropped);
	for (unsigned i = 0; i < a->n; i++) {
		const struct kwarn *x = &a->items[i], *y = &b->items[i];

		FUZZ_ASSERT(x->kind == y->kind && x->count == y->count);
		FUZZ_ASSERT(!strcmp(x->where, y->where) && !strcmp(x->first_line, y->first_line));
		FUZZ_ASSERT(!strcmp(x->excerpt, y->excerpt));
	}
}

/* A run's warnings (core/kwarn.h) written as the report holds them, dumped, parsed as the lab
 * parses a report and read back: unchanged, never refused (fuzz_kwarn, fuzz_report). */
static inline void fuzz_kwarn_round_trip(const struct kwarn_list *l)
{
	struct lab_error err = { 0 };
	struct kwarn_list back;
	json_t *run = json_object(), *again;
	char *text;
	int r;

	if (!run || kwarn_list_to_json(l, run) < 0) {
		json_decref(run);
		return;
	}
	text = json_dumps(run, JSON_SORT_KEYS);
	json_decref(run);
	if (!text)
		return;
	again = fuzz_json((const uint8_t *)text, strlen(text));
	free(text);
	FUZZ_ASSERT(again);
	r = kwarn_list_from_json(again, "runs[0]", &back, &err);
	if (r < 0 && r != -ENOMEM)
		fprintf(stderr, "fuzz: warnings refused: %s: %s\n", err.path, err.msg);
	FUZZ_ASSERT(r == 0 || r == -ENOMEM);
	if (r == 0)
		fuzz_kwarn_same(l, &back);
	kwarn_list_free(&back);
	json_decref(again);
}
