/* The projection (lab/analysis/projection.h) and its priors (lab/core/projpriors.h), pure:
 * the hand-off odds by hand; with priors of zero width it is exactly the MVA of
 * analysis/mva.h and within its bounds; a ticket lock never beats a queued one; the same seed
 * gives the same band, another seed another; inputs out of range are refused; the priors
 * file's errors name the JSON path; and the text and JSON of one case match
 * lab/tests/golden/projection-4s-64c.{txt,json} (UPDATE_GOLDEN=1 rewrites them), from a
 * frozen copy of the priors (lab/tests/data/projection/priors.json), so that retuning the
 * shipped priors does not churn the goldens.  The shipped file must parse. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/mva.h"
#include "analysis/projection.h"
#include "testutil.h"
#include "util/strbuf.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

static void test_odds(void)
{
	double r, l;

	projection_handoff_odds(1, 4, 8, &r, &l);
	tap_ok(r == 0 && l == 0, "odds: one CPU hands the lock to itself");
	projection_handoff_odds(4, 2, 2, &r, &l);
	tap_ok(near(r, 0.5) && near(l, 0.25), "odds: 4 CPUs on 2 sockets of 2: 1/2 across, 1/4 "
	       "to the other CPU of the socket");
	projection_handoff_odds(3, 2, 2, &r, &l);
	tap_ok(near(r, 4.0 / 9) && near(l, 2.0 / 9), "odds: 3 CPUs (2 + 1): 4/9 across, 2/9 local");
	projection_handoff_odds(8, 4, 8, &r, &l);
	tap_ok(r == 0 && near(l, 7.0 / 8), "odds: 8 CPUs within socket 0: none across");
}

/* Priors of zero width: CPI 1, 1 GHz (1 ns an instruction), local 10 ns, remote 100 ns. */
static struct proj_priors point_priors(void)
{
	struct proj_priors p = { .cpi = { 1, 1, 0, "t" }, .clock_ghz = { 1, 1, 0, "t" },
				 .line_local_ns = { 10, 10, 0, "t" },
				 .line_remote_ns = { 100, 100, 0, "t" } };
	return p;
}

static void test_exact(void)
{
	struct proj_priors pr = point_priors();
	struct proj_input in = { .insn_inside = 50, .insn_outside = 2000, .sockets = 4,
				 .cpus_per_socket = 16, .nmax = 64, .draws = 5, .seed = 7,
				 .no_transfer = 1 };
	struct proj_point pts[64];
	struct proj_result res = { .points = pts };
	struct mva_point m[64];
	int same = 1, bounded = 1;

	tap_ok(projection_run(&in, &pr, &res) == 0 && mva_solve(2000, 50, 0, 64, m) == 0,
	       "exact: runs");
	for (int i = 0; i < 64; i++)
		same &= near(pts[i].lo, m[i].x * 1e9) && pts[i].lo == pts[i].mid &&
			pts[i].mid == pts[i].hi && near(pts[i].speedup_mid, m[i].x / m[0].x);
	tap_ok(same && near(res.knee[1], 2050.0 / 50), "exact: zero-width priors, no hand-off: "
	       "the MVA itself at every n, knee (Z + S) / S = 41");
	/* With the hand-off: X <= min(n / (Z + S + H_n), 1 / (S + H_n)) in ns. */
	in.no_transfer = 0;
	tap_ok(projection_run(&in, &pr, &res) == 0, "bounds: runs with the hand-off");
	for (unsigned n = 1; n <= 64; n++) {
		double rem, loc, h, x = pts[n - 1].mid / 1e9;

		projection_handoff_odds(n, 4, 16, &rem, &loc);
		h = 100 * rem + 10 * loc;
		bounded &= x <= fmin(n / (2000 + 50 + h), 1 / (50 + h)) * (1 + 1e-12);
	}
	tap_ok(bounded, "bounds: X <= min(n/(Z+S+H_n), 1/(S+H_n)) at n 1..64");
}

static int run_json(const struct proj_input *in, const struct proj_priors *pr, char **out)
{
	struct proj_point pts[64];
	struct proj_result res = { .points = pts };
	struct proj_label l = { "4s-64c", "lab/tests/data/projection/priors.json" };
	_cleanup_json_ json_t *j = NULL;

	if (projection_run(in, pr, &res) < 0 || !(j = projection_json(in, pr, &l, &res)))
		return -1;
	*out = jsonio_dumps(j);
	return *out ? 0 : -1;
}

static void test_seeds_and_locks(const struct proj_priors *pr)
{
	struct proj_input in = { .insn_inside = 300, .insn_outside = 6000, .sockets = 4,
				 .cpus_per_socket = 16, .nmax = 64, .draws = 300, .seed = 1 };
	_cleanup_free_ char *a = NULL, *b = NULL, *c = NULL;
	struct proj_point q[64], t[64];
	struct proj_result rq = { .points = q }, rt = { .points = t };
	int slower = 1;

	tap_ok(run_json(&in, pr, &a) == 0 && run_json(&in, pr, &b) == 0 && !strcmp(a, b),
	       "seed: the same seed, the same projection byte for byte");
	in.seed = 2;
	tap_ok(run_json(&in, pr, &c) == 0 && strcmp(a, c), "seed: another seed, other draws");
	in.seed = 1;
	projection_run(&in, pr, &rq);
	in.lock = PROJ_LOCK_TICKET;
	projection_run(&in, pr, &rt);
	for (int i = 0; i < 64; i++)
		slower &= t[i].mid <= q[i].mid * (1 + 1e-12) && t[i].hi <= q[i].hi * (1 + 1e-12);
	tap_ok(slower, "ticket: never faster than queued, same draws (median and 95 %%)");
	tap_ok(q[0].lo < q[0].mid && q[0].mid < q[0].hi, "band: 5 %% < 50 %% < 95 %% at 1 CPU");
}

static void test_refused(const struct proj_priors *pr)
{
	static const struct proj_input bad[] = {
		{ .insn_inside = 0, .insn_outside = 1, .sockets = 1, .cpus_per_socket = 1, .nmax = 1, .draws = 1 },
		{ .insn_inside = 1, .insn_outside = -1, .sockets = 1, .cpus_per_socket = 1, .nmax = 1, .draws = 1 },
		{ .insn_inside = 1, .insn_outside = 1, .sockets = 1, .cpus_per_socket = 4, .nmax = 5, .draws = 1 },
		{ .insn_inside = 1, .insn_outside = 1, .sockets = 1, .cpus_per_socket = 4, .nmax = 4, .draws = 0 },
		{ .insn_inside = 1, .insn_outside = 1, .sockets = 1, .cpus_per_socket = 4, .nmax = 4,
		  .draws = PROJ_MAX_DRAWS + 1 },
		{ .insn_inside = NAN, .insn_outside = 1, .sockets = 1, .cpus_per_socket = 4, .nmax = 4, .draws = 1 },
	};
	struct proj_point pts[8];
	struct proj_result res = { .points = pts };
	int all = 1;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		all &= projection_run(&bad[i], pr, &res) == -EINVAL;
	tap_ok(all, "refused: no instructions inside, negative outside, more CPUs than the "
	       "target, 0 or too many draws, NaN");
}

static void test_priors_errors(void)
{
	static const char *const cases[][2] = {
		{ "[]", ": projection priors must be a JSON object" },
		{ "{\"schema\": \"x\"}", "schema: must be \"numalab.projection-priors/1\"" },
		{ "{\"schema\": \"numalab.projection-priors/1\"}", "cpi: missing" },
		{ "{\"schema\": \"numalab.projection-priors/1\", \"cpu\": 1}", "cpu: unknown key" },
		{ "{\"schema\": \"numalab.projection-priors/1\", \"cpi\": {\"lo\": 2, \"hi\": 1, "
		  "\"shape\": \"uniform\", \"basis\": \"b\"}}", "cpi.hi: must be a number >= lo (2)" },
		{ "{\"schema\": \"numalab.projection-priors/1\", \"cpi\": {\"lo\": 1, \"hi\": 1, "
		  "\"shape\": \"normal\", \"basis\": \"b\"}}", "cpi.shape: must be \"uniform\" or" },
		{ "{\"schema\": \"numalab.projection-priors/1\", \"cpi\": {\"lo\": 1, \"hi\": 1, "
		  "\"shape\": \"uniform\", \"basis\": \"\"}}", "cpi.basis: must say where the range" },
		{ "{\"schema\": \"numalab.projection-priors/1\", \"cpi\": {\"lo\": 0, \"hi\": 1, "
		  "\"shape\": \"uniform\", \"basis\": \"b\"}}", "cpi.lo: must be a number > 0" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_json_ json_t *j = json_loads(cases[i][0], JSON_REJECT_DUPLICATES, NULL);
		struct lab_error err = { 0 };
		struct proj_priors p;
		char msg[1400];

		tap_ok(j && projpriors_from_json(j, &p, &err) == -EINVAL &&
			       (error_format(&err, msg, sizeof(msg)), strstr(msg, cases[i][1]) ||
				!strncmp(cases[i][1], ": ", 2)),
		       "priors refused: %s", cases[i][1]);
	}
}

static void test_golden(const struct proj_priors *pr)
{
	struct proj_input in = { .insn_inside = 300, .insn_outside = 6000, .sockets = 4,
				 .cpus_per_socket = 16, .nmax = 64, .draws = 200, .seed = 1 };
	struct proj_point pts[64];
	struct proj_result res = { .points = pts };
	struct proj_label l = { "4s-64c", "lab/tests/data/projection/priors.json" };
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_free_ char *text = NULL, *js = NULL;

	if (!tap_ok(projection_run(&in, pr, &res) == 0 &&
			    projection_text(&in, pr, &l, &res, &sb) == 0 &&
			    strbuf_take(&sb, &text) == 0 && run_json(&in, pr, &js) == 0,
		    "golden: projected"))
		return;
	tap_ok(!strncmp(text, "PROJECTION, not a measurement", 29) && strstr(js,
	       "\"projection\": true"), "golden: labelled a projection, in text and JSON");
	testutil_golden("projection-4s-64c.txt", text);
	testutil_golden("projection-4s-64c.json", js);
}

/* A lock per CPU: nobody waits, X(n) = n / (Z + S) in every draw, speed-up n, no knee (null
 * in the JSON, the model named "private", no hand-off). */
static void test_private(const struct proj_priors *pr)
{
	struct proj_input in = { .insn_inside = 50, .insn_outside = 2000, .sockets = 4,
				 .cpus_per_socket = 16, .nmax = 64, .draws = 50, .seed = 7,
				 .private_lock = 1 };
	struct proj_priors zero = point_priors();
	struct proj_point pts[64];
	struct proj_result res = { .points = pts };
	struct proj_label l = { .target = "4s-64c", .priors = "p" };
	_cleanup_json_ json_t *j = NULL;
	int lin = 1, band = 1;

	tap_ok(projection_run(&in, &zero, &res) == 0, "private: runs");
	for (unsigned n = 1; n <= 64; n++)
		lin &= near(pts[n - 1].mid, n / 2050.0 * 1e9) && pts[n - 1].speedup_lo == n &&
		       pts[n - 1].speedup_hi == n;
	tap_ok(lin && isinf(res.knee[1]), "private, zero-width priors: n / (Z + S) at every n, "
	       "speed-up n, no knee");
	tap_ok(projection_run(&in, pr, &res) == 0, "private with the frozen priors: runs");
	for (unsigned n = 1; n <= 64; n++)
		band &= pts[n - 1].speedup_lo == n && pts[n - 1].speedup_hi == n &&
			near(pts[n - 1].mid, n * pts[0].mid) && pts[n - 1].lo < pts[n - 1].hi;
	tap_ok(band, "... the ops/s band from CPI and clock alone, n times one CPU's; speed-up n");
	j = projection_json(&in, pr, &l, &res);
	tap_ok(j && json_is_null(json_object_get(j, "knee")) &&
		       !strcmp(json_string_value(json_object_get(json_object_get(j, "model"),
								 "lock")), "private") &&
		       json_is_false(json_object_get(json_object_get(j, "model"), "hand_off")),
	       "... JSON: knee null, lock \"private\", no hand-off");
}

int main(void)
{
	_cleanup_json_ json_t *frozen = testutil_load("lab/tests/data/projection/priors.json");
	_cleanup_json_ json_t *shipped = testutil_load("configs/projection/priors.json");
	struct lab_error err = { 0 };
	struct proj_priors pr, ship;

	tap_ok(shipped && projpriors_from_json(shipped, &ship, &err) == 0,
	       "configs/projection/priors.json parses, every prior with its basis %s", err.msg);
	if (!tap_ok(frozen && projpriors_from_json(frozen, &pr, &err) == 0, "frozen priors parse"))
		return tap_done();
	test_odds();
	test_exact();
	test_private(&pr);
	test_seeds_and_locks(&pr);
	test_refused(&pr);
	test_priors_errors();
	test_golden(&pr);
	return tap_done();
}
