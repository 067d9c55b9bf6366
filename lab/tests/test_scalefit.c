/* The scaling fit of every measured curve (lab/analysis/scalefit.h), pure: three boots of pft
 * at 1, 2, 4 and 8 tasks whose faults/s follow the scalability law with sigma 0.05 and kappa
 * 0.001 (each boot off by -0.3, 0 or +0.3 %: data/scalefit/usl.json) give those back; only
 * throughputs are fitted (sys_s, wall_max_s are not listed); a curve of 1 and 4 tasks says
 * why it cannot be fitted; and the dashboard's scaling chart carries the fit as a dashed line
 * over the measured task counts only, labelled descriptive. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "analysis/charts.h"
#include "analysis/scalefit.h"
#include "analysis/series.h"
#include "testutil.h"

static int add(struct series_set *s, const char *rel)
{
	_cleanup_json_ json_t *doc = testutil_load(rel);
	struct lab_error err = { 0 };

	return doc ? series_add_report(s, doc, rel, NULL, &err) : -EINVAL;
}

static size_t group_of(const struct series_set *s, const char *metric)
{
	for (size_t g = 0; g < s->nr_groups; g++)
		if (!strcmp(s->groups[g].metric, metric))
			return g;
	return (size_t)-1;
}

static void test_fit(void)
{
	struct series_set s;
	struct usl_fit f;
	const char *why = NULL;
	size_t g;
	int r;

	series_init(&s);
	if (!tap_ok(add(&s, "lab/tests/data/scalefit/usl.json") == 0, "usl.json read"))
		return;
	g = group_of(&s, "faults_per_s");
	tap_ok(g != (size_t)-1 && scalefit_variant(&s, g, 0, &f, &why) == 0,
	       "faults/s at 1, 2, 4, 8 tasks: fitted");
	tap_ok(fabs(f.sigma - 0.05) < 0.005 && fabs(f.kappa - 0.001) < 0.0005 &&
		       fabs(f.lambda - 1e6) < 1, "sigma %.4f (0.05), kappa %.5f (0.001), lambda %.0f",
	       f.sigma, f.kappa, f.lambda);
	tap_ok(f.sigma_ci[0] < 0.05 && 0.05 < f.sigma_ci[1] && f.points == 9 && f.n_min == 1 &&
		       f.n_max == 8, "sigma's interval [%.4f, %.4f] holds 0.05; 9 points above 1 task, "
	       "range 1..8", f.sigma_ci[0], f.sigma_ci[1]);
	g = group_of(&s, "sys_s");
	r = scalefit_variant(&s, g, 0, &f, &why);
	tap_ok(r == -EINVAL && why && strstr(why, "not a throughput"), "sys_s: not fitted (%s)",
	       why ? why : "no reason");
	{
		_cleanup_json_ json_t *all = scalefit_all_json(&s);
		_cleanup_json_ json_t *charts = charts_json(&s, NULL);
		json_t *c = json_array_get(json_object_get(charts, "charts"), 0), *line;
		size_t i;
		int fit = 0;

		tap_ok(json_array_size(all) == 1 && json_is_object(json_object_get(
			       json_array_get(all, 0), "usl")), "scaling_fits: the throughput alone, "
		       "with its fit");
		json_array_foreach(json_object_get(c, "lines"), i, line)
			if (json_is_true(json_object_get(line, "fit")))
				fit = json_array_size(json_object_get(line, "points")) == 8 &&
				      strstr(json_string_value(json_object_get(line, "label")),
					     "USL fit, sigma 0.05") &&
				      strstr(json_string_value(json_object_get(line, "label")),
					     "(descriptive)");
		tap_ok(fit && !strcmp(json_string_value(json_object_get(c, "metric")), "faults_per_s"),
		       "the scaling chart: a fit line over tasks 1..8, labelled descriptive");
	}
	series_free(&s);
}

static void test_unfit(void)
{
	struct series_set s;
	struct usl_fit f;
	const char *why = NULL;

	series_init(&s);
	if (!tap_ok(add(&s, "lab/tests/data/compare/a.json") == 0, "a.json read"))
		return;
	int r = scalefit_variant(&s, group_of(&s, "faults_per_s"), 0, &f, &why);

	tap_ok(r == -EINVAL && why && strstr(why, "two or more task counts above 1"),
	       "1 and 4 tasks: not fitted, and why (%s)", why ? why : "none");
	series_free(&s);
}

int main(void)
{
	test_fit();
	test_unfit();
	return tap_done();
}
