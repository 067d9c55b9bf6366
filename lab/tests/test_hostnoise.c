/* Host noise (lab/core/hostnoise.c) and timing models (lab/core/timing.c).
 *  - lab/tests/data/hostnoise/NAME.json: /proc/loadavg and /proc/stat text before and after a
 *    run, the times, the run's own QEMU CPU seconds and other QEMU counts; NAME.expected the
 *    report's host.noise object, or "error: ..." for text that must not parse.  hz = 100. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/hostnoise.h"
#include "core/timing.h"
#include "testutil.h"

static const char *str(const json_t *c, const char *k)
{
	return json_string_value(json_object_get(c, k));
}

static int sample(const json_t *c, const char *which, struct host_sample *s)
{
	char la[32], st[32], t[32];
	int r;

	snprintf(la, sizeof(la), "loadavg_%s", which);
	snprintf(st, sizeof(st), "stat_%s", which);
	snprintf(t, sizeof(t), "t_%s", which);
	r = hostnoise_parse(str(c, la), str(c, st), s);
	s->t = json_number_value(json_object_get(c, t));
	s->other_qemu = (unsigned)json_integer_value(
		json_array_get(json_object_get(c, "other_qemu"), !strcmp(which, "after")));
	return r;
}

static void run_case(const char *dir, const char *file)
{
	_cleanup_free_ char *path = fs_join(dir, file), *expected = NULL, *name = strdup(file);
	_cleanup_json_ json_t *c = NULL, *got = NULL;
	struct lab_error err = {0};
	struct host_noise n = {0};
	int r;

	if (!path || !name || jsonio_load_file(path, TESTUTIL_MAX_FILE, &c, &err) < 0) {
		tap_ok(0, "%s: load: %s", file, err.msg);
		return;
	}
	name[strlen(name) - 5] = '\0';
	expected = testutil_read_expected(path, name);
	if (!expected)
		return;
	r = sample(c, "before", &n.before);
	if (r == 0)
		r = sample(c, "after", &n.after);
	if (r < 0) {
		char line[64];

		snprintf(line, sizeof(line), "error: %s", strerror(-r));
		if (!tap_ok(!strcmp(line, expected), "%s: %s", name, expected))
			printf("# got %s\n", line);
		return;
	}
	n.own_cpu_s = json_number_value(json_object_get(c, "own_cpu_s"));
	hostnoise_judge(&n, 100);
	got = hostnoise_json(&n, 0.0, hostnoise_quiet(&n.before, &n.after, 100));
	testutil_check_json(name, "host.noise", got, expected);
}

static void test_timing(void)
{
	enum timing_model m;
	char why[256];

	tap_ok(timing_parse("icount", &m) == 0 && m == TIMING_ICOUNT &&
		       timing_info(m)->deterministic &&
		       timing_info(m)->accel == DOMAIN_ACCEL_TCG_ICOUNT,
	       "timing: icount is the deterministic model on TCG with icount");
	tap_ok(timing_parse("tcg", &m) == 0 && m == TIMING_TCG && !timing_info(m)->deterministic,
	       "timing: tcg is not deterministic");
	tap_ok(timing_parse("auto", &m) == 0 && m == TIMING_AUTO && !timing_info(m),
	       "timing: auto is a request, not a model");
	tap_ok(timing_parse("mttcg", &m) == -EINVAL && timing_parse(NULL, &m) == -EINVAL,
	       "timing: unknown names are refused");
	tap_ok(timing_choose(TIMING_AUTO, 1, 8, 1, why, sizeof(why)) == TIMING_KVM,
	       "timing: auto with KVM is kvm (%s)", why);
	tap_ok(timing_choose(TIMING_AUTO, 0, 8, 1, why, sizeof(why)) == TIMING_QUANTUM,
	       "timing: auto A/B without KVM is the contention model (%s)", why);
	tap_ok(timing_choose(TIMING_AUTO, 0, TIMING_ICOUNT_MAX_VCPUS + 1, 1, why, sizeof(why)) ==
		       TIMING_TCG,
	       "timing: auto A/B above the one-thread limit is tcg (%s)", why);
	tap_ok(timing_choose(TIMING_AUTO, 0, 8, 0, why, sizeof(why)) == TIMING_TCG,
	       "timing: auto with one kernel without KVM is tcg (%s)", why);
	tap_ok(timing_choose(TIMING_ICOUNT, 1, 512, 0, why, sizeof(why)) == TIMING_ICOUNT,
	       "timing: an explicit model is kept (%s)", why);
	tap_ok(timing_parse("quantum", &m) == 0 && m == TIMING_QUANTUM &&
		       timing_info(m)->deterministic && timing_info(m)->rounds &&
		       timing_info(m)->accel == DOMAIN_ACCEL_TCG_ICOUNT,
	       "timing: quantum is deterministic, has rounds, runs icount");
	timing_choose(TIMING_AUTO, 0, 8, 1, why, sizeof(why));
	tap_ok(strstr(why, "side by side") != NULL,
	       "timing: auto says why the contention model (%s)", why);
}

/* The pooling key: a model with rounds is one model per quantum, and with the NUMA cost
 * model's charges one per preset. */
static void test_timing_key(void)
{
	static const struct {
		const char *key;
		int ok;
		enum timing_model m;
		unsigned q;
		const char *numa;
	} cases[] = {
		{ "icount", 1, TIMING_ICOUNT, 0, "" },   { "kvm", 1, TIMING_KVM, 0, "" },
		{ "quantum-q1000", 1, TIMING_QUANTUM, 1000, "" },
		{ "quantum-q65535", 1, TIMING_QUANTUM, 65535, "" },
		{ "quantum-q65536", 0, 0, 0, "" },       { "quantum-q0", 0, 0, 0, "" },
		{ "quantum-q", 0, 0, 0, "" },            { "quantum-q12x", 0, 0, 0, "" },
		{ "quantum-1000", 0, 0, 0, "" },         { "icount-q1000", 0, 0, 0, "" },
		{ "auto", 0, 0, 0, "" },                 { "quantum-q+5", 0, 0, 0, "" },
		{ "averyveryverylongname-q1", 0, 0, 0, "" },
		{ "quantum-q250-numa-0123456789ab", 1, TIMING_QUANTUM, 250, "0123456789ab" },
		{ "quantum-q65535-numa-ffffffffffff", 1, TIMING_QUANTUM, 65535, "ffffffffffff" },
		{ "quantum-q250-numa-0123456789a", 0, 0, 0, "" },
		{ "quantum-q250-numa-0123456789abc", 0, 0, 0, "" },
		{ "quantum-q250-numa-0123456789AB", 0, 0, 0, "" },
		{ "quantum-q250-numa-", 0, 0, 0, "" },   { "quantum-q250-", 0, 0, 0, "" },
		{ "quantum-q250-nums-0123456789ab", 0, 0, 0, "" },
		{ "icount-numa-0123456789ab", 0, 0, 0, "" },
	};
	char buf[TIMING_KEY_MAX], numa[TIMING_NUMA_HEX + 1];
	enum timing_model m;
	unsigned q;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = timing_parse_key(cases[i].key, &m, &q, numa);

		tap_ok(cases[i].ok ? r == 0 && m == cases[i].m && q == cases[i].q &&
					     !strcmp(numa, cases[i].numa)
				   : r == -EINVAL && !numa[0],
		       "timing key %s: %s", cases[i].key, cases[i].ok ? "parses" : "refused");
		if (cases[i].ok)
			tap_ok(timing_key(m, q, numa, buf, sizeof(buf)) == 0 &&
				       !strcmp(buf, cases[i].key),
			       "timing key %s: round trip (%s)", cases[i].key, buf);
	}
	tap_ok(timing_parse_key("quantum-q250-numa-0123456789ab", &m, &q, NULL) == 0 && q == 250,
	       "timing key: the preset's digits are optional to ask for");
	tap_ok(timing_key(TIMING_ICOUNT, 1000, NULL, buf, sizeof(buf)) == 0 &&
		       !strcmp(buf, "icount"),
	       "timing key: a model without rounds ignores the quantum");
	tap_ok(timing_key(TIMING_QUANTUM, 65535, NULL, buf, 8) == -ENOSPC,
	       "timing key: short buffer");
	tap_ok(timing_key(TIMING_QUANTUM, 65535,
			  "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff", buf,
			  sizeof(buf)) == 0 &&
		       !strcmp(buf, "quantum-q65535-numa-ffffffffffff"),
	       "timing key: the longest, from a whole sha256 (%s)", buf);
	tap_ok(timing_key(TIMING_ICOUNT, 0, "0123456789ab", buf, sizeof(buf)) == -EINVAL,
	       "timing key: NUMA charges need a model with rounds");
	tap_ok(timing_key(TIMING_QUANTUM, 250, "0123456789AB", buf, sizeof(buf)) == -EINVAL,
	       "timing key: the preset's key must be lower-case hex");
}

/* Guests at once: timing_parallel(model, asked, free cpus, fit in memory, runs). */
static void test_parallel(void)
{
	static const struct {
		enum timing_model m;
		unsigned asked, free_cpus, fit, runs, want;
		const char *what;
	} cases[] = {
		{ TIMING_TCG, 0, 8, 8, 10, 1, "tcg: one at a time" },
		{ TIMING_KVM, 4, 8, 8, 10, 1, "kvm: an asked 4 is cut to 1" },
		{ TIMING_ICOUNT, 0, 2, 8, 10, 2, "icount auto: one per free core" },
		{ TIMING_ICOUNT, 0, 0, 8, 10, 1, "icount auto, no free core: still one" },
		{ TIMING_ICOUNT, 4, 2, 8, 10, 4, "icount: the number asked, even above free cores" },
		{ TIMING_ICOUNT, 0, 16, 3, 10, 3, "icount: no more than memory holds" },
		{ TIMING_ICOUNT, 0, 16, 0, 10, 1, "icount: memory for none still runs one" },
		{ TIMING_ICOUNT, 8, 16, 16, 3, 3, "icount: no more than runs" },
		{ TIMING_QUANTUM, 0, 2, 8, 10, 2, "quantum auto: one per free core, as icount" },
	};
	char why[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned got = timing_parallel(cases[i].m, cases[i].asked, cases[i].free_cpus,
					       cases[i].fit, cases[i].runs, why, sizeof(why));

		tap_ok(got == cases[i].want && why[0], "parallel: %s: %u (%s)", cases[i].what, got,
		       why);
	}
}

/* Free host cores from two samples: 4 CPUs, 100 Hz, 1 s apart. */
static void test_free_cpus(void)
{
	struct host_sample a = { .t = 0, .busy = 0, .ncpus = 4 }, b = a;

	b.t = 1;
	b.busy = 0;
	tap_ok(hostnoise_free_cpus(&a, &b, 100) == 4, "free cpus: idle host: all 4");
	b.busy = 140; /* 1.4 cores busy */
	tap_ok(hostnoise_free_cpus(&a, &b, 100) == 3, "free cpus: 1.4 cores busy: 3");
	b.busy = 400;
	tap_ok(hostnoise_free_cpus(&a, &b, 100) == 1, "free cpus: all busy: still 1");
	b.t = 0;
	tap_ok(hostnoise_free_cpus(&a, &b, 100) == 4, "free cpus: no time passed: unknown, all 4");
}

int main(void)
{
	_cleanup_json_dir_ struct testutil_json_dir d;

	testutil_json_dir_open(&d, "lab/tests/data/hostnoise");
	tap_ok(d.n > 0, "hostnoise: cases found");
	for (int i = 0; i < d.n; i++)
		run_case(d.dir, d.ents[i]->d_name);
	test_timing();
	test_timing_key();
	test_parallel();
	test_free_cpus();
	return tap_done();
}
