#include "analysis/modelfit.h"

#include <stdio.h>

#include "core/timing.h"
#include "proto/workload.h"

static const char *mech_words(unsigned m)
{
	if ((m & WORKLOAD_MECH_CONTENTION) && (m & WORKLOAD_MECH_PARALLEL))
		return "lock contention and parallel speed-up";
	return m & WORKLOAD_MECH_CONTENTION ? "lock contention" : "parallel speed-up";
}

enum modelfit modelfit_series(const char *timing_key, unsigned host_cpus, const char *workload,
			      const json_t *params, const char *metric, unsigned tasks,
			      char *why, size_t len)
{
	const struct workload_def *w = workload_find(workload);
	const struct timing_info *t;
	enum timing_model m;
	unsigned q, threads, shows, missing;
	int only;
	unsigned needs = workload_mechs(workload, metric, params, tasks, &only);

	if (len)
		why[0] = '\0';
	if (!needs || timing_parse_key(timing_key, &m, &q, NULL) < 0)
		return MODELFIT_INSIDE;
	t = timing_info(m);
	threads = w && w->threads ? w->threads(params, tasks) : tasks;
	shows = t->shows;
	/* Beyond the host's CPUs the threads take turns on them: nothing of either shows. */
	if (t->shows_to_host_cpus && host_cpus && threads > host_cpus)
		shows = 0;
	missing = needs & ~shows;
	if (!missing)
		return MODELFIT_INSIDE;
	if (t->shows_to_host_cpus)
		snprintf(why, len, "%s %s depends on %s with %u threads at once: %s on %u host "
			 "CPUs cannot show it", workload, metric, mech_words(missing), threads,
			 t->name, host_cpus);
	else
		snprintf(why, len, "%s %s depends on %s with %u threads at once: %s cannot show it",
			 workload, metric, mech_words(missing), threads, t->name);
	return only ? MODELFIT_OUTSIDE : MODELFIT_PARTLY;
}

const char *modelfit_name(enum modelfit f)
{
	static const char *const names[] = { [MODELFIT_INSIDE] = "inside",
					     [MODELFIT_PARTLY] = "partly",
					     [MODELFIT_OUTSIDE] = "outside" };

	return (unsigned)f < sizeof(names) / sizeof(names[0]) ? names[f] : "inside";
}

const char *modelfit_blind(const char *timing_key)
{
	enum timing_model m;
	unsigned q;

	return timing_parse_key(timing_key, &m, &q, NULL) < 0 || !timing_info(m)->blind
		       ? "" : timing_info(m)->blind;
}

int modelfit_size_bound(const char *timing_key, const char *workload, const json_t *params,
			const char *metric, unsigned tasks)
{
	enum timing_model m;
	unsigned q;
	int only;

	if (timing_parse_key(timing_key, &m, &q, NULL) < 0 || !timing_info(m)->rounds)
		return 0;
	return !!(workload_mechs(workload, metric, params, tasks, &only) & WORKLOAD_MECH_CONTENTION);
}
