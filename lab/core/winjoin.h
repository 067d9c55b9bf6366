/* What the TCG plugins' outputs share when they are joined to a run (core/lockinsn.h,
 * core/profile.h): per measured window (the id a result names in info.lock_insn_window,
 * runners/rt_team.c), one object into each result's info.  Pure: no I/O. */
#pragma once
#include <jansson.h>

/* Whether o's key is an integer >= 0. */
int winjoin_count_ok(const json_t *o, const char *key);
/* o's key as an integer; 0 when it is not one. */
json_int_t winjoin_int(const json_t *o, const char *key);

/* Each result of run (a report's run object: workloads[].results[]) whose window is one of
 * plugin's windows[] gets info.KEY = make(that window, plugin), a new reference.  The number of
 * results given one, or -ENOMEM (make returned NULL). */
int winjoin_attach(json_t *run, const json_t *plugin, const char *key,
		   json_t *(*make)(const json_t *window, const json_t *plugin));
