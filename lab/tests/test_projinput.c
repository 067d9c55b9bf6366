/* analysis/projinput: `lab project --from`'s inputs from a report with lock counts.
 * lab/tests/data/projinput/lock-insns-ab.json: configs/lock-insns.json as measured (tcg, two
 * boots a side of baseline and no-split-pmd-ptlock, memscale with THP at 1 and 4 tasks),
 * reduced to the labels and info.lock_insns.  The sums and per-acquisition figures are checked
 * by hand against the file (jq), and which series may be projected: the one whose site took
 * one lock all tasks shared, and the one whose site took a lock per task (private); one with
 * fewer locks than tasks, each shared by some, is not. */
#include <math.h>
#include <string.h>

#include "analysis/projinput.h"
#include "testutil.h"

#define DATA "lab/tests/data/projinput/lock-insns-ab.json"
/* The 1-task windows of seed 000's A/B at 64 vCPUs under quantum (same memscale params but the
 * sweep and repetitions), reduced: no-split's mean elapsed_s at 1 task is 4.7270465 ms. */
#define WINDOW "lab/tests/data/projinput/window-quantum.json"
#define SITE "do_huge_pmd_anonymous_page+"

static int pick(const json_t *rep, const char *label, const char *site, unsigned tasks,
		struct projinput *pi, struct lab_error *err)
{
	struct projinput_pick p = { .label = label, .site = site, .tasks = tasks };

	memset(err, 0, sizeof(*err));
	return projinput_from_report(rep, &p, pi, err);
}

/* A copy of win with key set to v in each run's memscale params ("params") or timing. */
static json_t *edited(const json_t *win, const char *obj, const char *key, json_t *v)
{
	json_t *c = json_deep_copy(win), *run;
	size_t i;

	json_array_foreach(json_object_get(c, "runs"), i, run) {
		json_t *o = !strcmp(obj, "params")
				    ? json_object_get(json_array_get(json_object_get(run, "workloads"),
								     0), "params")
				    : json_object_get(json_object_get(run, "host"), "timing");

		json_object_set(o, key, v);
	}
	json_decref(v);
	return c;
}

static void test_window(const json_t *rep)
{
	_cleanup_json_ json_t *win = testutil_load(WINDOW), *mem = NULL, *tcg = NULL;
	struct projinput pi;
	struct lab_error err;
	double t1 = 4727046.5 / 16;
	int r;

	if (!tap_ok(win != NULL, "%s loads", WINDOW))
		return;
	pick(rep, "no-split-pmd-ptlock", SITE, 1, &pi, &err);
	r = projinput_window(rep, win, &pi, &err);
	tap_ok(r == 0 && fabs(pi.window_t1 - t1) < 1e-6 && fabs(pi.outside - (t1 - pi.inside)) < 1e-6,
	       "window: T1 = mean elapsed_s at 1 task x 1e9 / 16 acquisitions a window = %.1f, "
	       "Z = T1 - S (%.1f) %s", pi.window_t1, pi.outside, err.msg);
	mem = edited(win, "params", "memory_mib", json_integer(64));
	pick(rep, "no-split-pmd-ptlock", SITE, 1, &pi, &err);
	r = projinput_window(rep, mem, &pi, &err);
	tap_ok(r == -EINVAL && strstr(err.msg, "param memory_mib differs") && pi.window_t1 == 0,
	       "window: another memory_mib, other operations: refused (%s)", err.msg);
	tcg = edited(win, "timing", "deterministic", json_false());
	pick(rep, "no-split-pmd-ptlock", SITE, 1, &pi, &err);
	r = projinput_window(rep, tcg, &pi, &err);
	tap_ok(r == -EINVAL && strstr(err.msg, "not under a deterministic model"),
	       "window: a run on the host clock: refused (%s)", err.msg);
	pick(rep, "no-split-pmd-ptlock", SITE, 1, &pi, &err);
	snprintf(pi.label, sizeof(pi.label), "no-such");
	r = projinput_window(rep, win, &pi, &err);
	tap_ok(r == -EINVAL && strstr(err.msg, "no ok run of no-such"),
	       "window: no run of the label: refused (%s)", err.msg);
}

int main(void)
{
	_cleanup_json_ json_t *rep = testutil_load(DATA);
	struct projinput pi;
	struct lab_error err;
	int r;

	if (!tap_ok(rep != NULL, "%s loads", DATA))
		return tap_done();
	r = pick(rep, "no-split-pmd-ptlock", SITE, 1, &pi, &err);
	tap_ok(r == 0 && pi.boots == 2 && pi.acquisitions == 32 && pi.inside_insns == 32831 &&
		       pi.window_insns == 1206188,
	       "no-split, 1 task: 2 boots, 32 acquisitions, 32831 inside, 1206188 in the windows "
	       "(%zu, %g, %g, %g)", pi.boots, pi.acquisitions, pi.inside_insns, pi.window_insns);
	tap_ok(r == 0 && fabs(pi.inside - 32831.0 / 32) < 1e-9 &&
		       fabs(pi.outside - (1206188.0 - 32831) / 32) < 1e-9,
	       "... per acquisition: S = inside / acquisitions, Z = window / acquisitions - S");
	tap_ok(!strcmp(pi.site, "do_huge_pmd_anonymous_page+0x15f") && !strcmp(pi.workload,
										  "memscale"),
	       "... the site and workload found: %s in %s", pi.site, pi.workload);
	tap_ok(pi.shared_tasks == 4 && pi.shared_locks == 1 && pi.shared_max_cpus == 4 &&
		       !projinput_not_shared(&pi),
	       "... at 4 tasks one lock taken by 4 vCPUs: shared, projected");
	r = pick(rep, "baseline", SITE, 1, &pi, &err);
	tap_ok(r == 0 && pi.shared_tasks == 4 && pi.shared_locks == 4 &&
		       pi.shared_max_cpus == 1 && projinput_private(&pi) &&
		       !projinput_not_shared(&pi) && !projinput_why_not(&pi, NULL, 0),
	       "baseline: at 4 tasks four split locks, each taken by 1 vCPU: a lock per task, "
	       "projected as private");
	{
		struct projinput two = pi;
		char buf[300];
		const char *why;

		two.shared_locks = two.shared_max_cpus = 2;
		why = projinput_why_not(&two, buf, sizeof(buf));
		tap_ok(projinput_not_shared(&two) && !projinput_private(&two) && why &&
			       strstr(why, "took 2 lock(s), the busiest by 2 vCPU(s): neither"),
		       "two locks of 2 vCPUs each at 4 tasks: neither shared nor private, not "
		       "projected (%s)", why ? why : "(null)");
	}
	r = pick(rep, "no-split-pmd-ptlock", SITE, 4, &pi, &err);
	tap_ok(r == 0 && pi.tasks == 4 && pi.shared_tasks == 0 && pi.acquisitions == 128,
	       "at 4 tasks (the most measured): 128 acquisitions, sharing not measured above it");
	r = pick(rep, NULL, SITE, 1, &pi, &err);
	tap_ok(r == -EINVAL && strstr(err.msg, "say which with --label"),
	       "two labels and no --label: refused (%s)", err.msg);
	r = pick(rep, "no-such", SITE, 1, &pi, &err);
	tap_ok(r == -EINVAL && strstr(err.msg, "no run of kernel no-such"),
	       "an unknown label: refused (%s)", err.msg);
	r = pick(rep, "baseline", "no_such_function+", 1, &pi, &err);
	tap_ok(r == -EINVAL && strstr(err.msg, "its sites include do_huge_pmd_anonymous_page+"),
	       "an unknown site: refused, naming sites there are (%s)", err.msg);
	r = pick(rep, "baseline", SITE, 2, &pi, &err);
	tap_ok(r == -EINVAL && strstr(err.msg, "no result at 2 task(s)"),
	       "a task count not measured: refused (%s)", err.msg);
	r = pick(rep, "baseline", "", 1, &pi, &err);
	tap_ok(r == -EINVAL && strstr(err.msg, "--site"), "no site: refused (%s)", err.msg);
	test_window(rep);
	return tap_done();
}
