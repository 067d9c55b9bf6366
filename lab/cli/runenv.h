/* Where guests run, as options: --connect, --accel, --state and --quiet-wait, one group
 * (parseopt.h) that `lab run`, `ab`, `bisect` and `nightly` join, parsed here and nowhere
 * else, into the engines' one form of it (struct run_env, run/env.h). */
#pragma once
#include "run/env.h"

/* The group: --connect URI, --accel MODE, --state DIR, --quiet-wait S. */
extern const struct cli_opt cli_runenv_opts[];
/* The group's --state DIR alone (lab image, lab hosts, lab history). */
extern const struct cli_opt cli_state_opts[];
/* The group's --connect URI alone (lab hosts); its value: cli_runenv_uri(). */
extern const struct cli_opt cli_connect_opts[];
/* --accel's words, in enum accel_mode's order (an OPT_CHOICE's index is the mode). */
extern const char *const cli_accel_words[];

/* An OPT_CALL for --timing M: M must be a timing model's name or "auto" (core/timing.h),
 * said in the parser's wording otherwise; the word is stored in *(const char **)o->value. */
int cli_timing_take(const struct cli_opt *o, const char *arg, struct opt_error *e);

/* Before cli_parse: the defaults, --quiet-wait's from $LAB_QUIET_WAIT (a value that is not
 * 0..3600 seconds is said and -EINVAL). */
int cli_runenv_init(void);
/* After cli_parse: the options as given, defaults for the others (the state directory:
 * util/statedir.h).  The strings live as long as argv and the process. */
void cli_runenv_get(struct run_env *env);
/* The state directory alone, as cli_runenv_get would give it. */
const char *cli_runenv_state(void);
/* --connect's URI as given, NULL when none. */
const char *cli_runenv_uri(void);
