/* The run environment's options (runenv.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/runenv.h"
#include "core/timing.h"
#include "util/statedir.h"

/* One command line a process: the values the group's table writes to. */
static struct {
	const char *uri, *state;
	int accel; /* enum accel_mode: the index in cli_accel_words */
	double quiet_wait_s;
	char state_buf[PATH_MAX];
} v;

const char *const cli_accel_words[] = { "auto", "tcg", "kvm", NULL };

const struct cli_opt cli_state_opts[] = {
	OPT_STRING(0, "state", &v.state, "DIR",
		   "state directory (default $LAB_STATE_DIR or ~/.local/state/numalab)"),
	OPT_END(),
};

const struct cli_opt cli_connect_opts[] = {
	OPT_STRING(0, "connect", &v.uri, "URI",
		   "the libvirt host the guests run on (default: this machine)"),
	OPT_END(),
};

const struct cli_opt cli_runenv_opts[] = {
	OPT_GROUP(cli_connect_opts),
	OPT_CHOICE(0, "accel", &v.accel, "MODE", cli_accel_words,
		   "auto (probe KVM once per host), tcg or kvm"),
	OPT_GROUP(cli_state_opts),
	OPT_DOUBLE(0, "quiet-wait", &v.quiet_wait_s, "S", 0, 3600,
		   "under kvm or tcg, wait up to S s for a quiet host"),
	OPT_END(),
};

int cli_timing_take(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	enum timing_model m;

	if (timing_parse(arg, &m) < 0)
		return opt_invalid(o, arg, "auto, kvm, tcg, icount or quantum", e);
	*(const char **)o->value = arg;
	return 0;
}

int cli_runenv_init(void)
{
	const char *env = getenv("LAB_QUIET_WAIT");
	struct opt_error e;

	v.uri = v.state = NULL;
	v.accel = ACCEL_AUTO;
	v.quiet_wait_s = RUN_QUIET_WAIT_S;
	if (env && opt_double("LAB_QUIET_WAIT", env, 0, 3600, &v.quiet_wait_s, &e) < 0) {
		cli_err("%s", e.msg);
		return -EINVAL;
	}
	return 0;
}

const char *cli_runenv_state(void)
{
	if (v.state)
		return v.state;
	statedir_default(v.state_buf, sizeof(v.state_buf));
	return v.state_buf;
}

const char *cli_runenv_uri(void)
{
	return v.uri;
}

void cli_runenv_get(struct run_env *env)
{
	env->uri = v.uri;
	env->accel = (enum accel_mode)v.accel;
	env->state_dir = cli_runenv_state();
	env->quiet_wait_s = v.quiet_wait_s;
}
