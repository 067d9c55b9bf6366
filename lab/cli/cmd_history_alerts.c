/* lab history alerts [--state S] [--json] | lab history alerts ack|invalid|fixed|new ID
 * [--note TEXT] [--by WHO] [--commit SHA]: nightly's alerts and their triage
 * (lab/history/alerts.h), in the history index. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/history_alerts.h"
#include "cli/runenv.h"
#include "history/alerts.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/jsonio.h"

static const char *const list_states[] = { "new", "acknowledged", "invalid", "fixed", "all",
					    NULL };

struct aargs {
	int state;          /* index in list_states; "all" = ALERT__COUNT */
	int json;
	const char *note, *by, *commit, *db_opt;
	char db[PATH_MAX];
};

/* One command line a process: what the table writes to. */
static struct aargs args;

static const struct cli_opt options[] = {
	OPT_CHOICE(0, "show", &args.state, "STATE", list_states,
		   "only alerts in this state (default new; all: every one)"),
	OPT_FLAG(0, "json", &args.json, "list: JSON, keys sorted (schema " HISTORY_ALERTS_SCHEMA ")"),
	OPT_STRING(0, "note", &args.note, "TEXT", "set: a note (500 characters at most)"),
	OPT_STRING(0, "by", &args.by, "WHO", "set: who set it (default: the user)"),
	OPT_STRING(0, "commit", &args.commit, "SHA", "fixed: the commit that fixed it (needed)"),
	OPT_STRING(0, "db", &args.db_opt, "FILE", "the index (default STATE/" HISTORY_DB_NAME ")"),
	OPT_GROUP(cli_state_opts),
	OPT_END(),
};

void cmd_history_alerts_help(void)
{
	memset(&args, 0, sizeof(args));
	cli_synopsis("history alerts", NULL, options);
	printf("       lab history alerts ack|invalid|fixed|new ID [--note TEXT] [--by WHO]\n"
	       "                          [--commit SHA]\n\n"
	       "Every confirmed change 'lab nightly' raises is an alert with a state: new,\n"
	       "acknowledged (ack), invalid, or fixed by a commit; who set it, when, and a\n"
	       "note.  A fixed alert reopens when its series regresses again.  Nightly's exit\n"
	       "status counts only new alerts.  The states live in the history index and\n"
	       "survive 'lab history rebuild'.\n\n"
	       "EXAMPLES\n"
	       "  lab history alerts\n"
	       "  lab history alerts ack 3 --note 'looking at it'\n"
	       "  lab history alerts fixed 3 --commit 1a2b3c4d --note 'fixed in mm-hotfixes'\n"
	       "  lab history alerts --show all --json\n\n"
	       "Exit status: 0 ok; 2 bad arguments or no such alert; 4 the index could not be\n"
	       "read or written.\n");
}

static const char *user_name(void)
{
	const struct passwd *pw = getpwuid(getuid());

	return pw && pw->pw_name ? pw->pw_name : "unknown";
}

static int open_db(struct history **h, int create)
{
	struct lab_error err = { 0 };
	char msg[1400];
	int r = history_open(args.db, create, h, &err);

	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg);
	}
	return r;
}

static int list(void)
{
	struct history *h = NULL;
	struct history_alert *a = NULL;
	struct lab_error err = { 0 };
	_cleanup_free_ char *text = NULL, *js = NULL;
	_cleanup_json_ json_t *j = NULL;
	size_t n = 0;
	int r;

	r = open_db(&h, 0);
	if (r == -ENOENT)
		r = 0; /* no index yet: no alerts */
	else if (r < 0)
		return EXIT_LAB_ERROR;
	if (h && (r = history_alerts_list(h, args.state == ALERT__COUNT ? -1 : args.state, &a, &n,
					  &err)) < 0) {
		cli_err("%s", err.msg);
		history_close(h);
		return EXIT_LAB_ERROR;
	}
	history_close(h);
	if (args.json) {
		if (!(j = history_alerts_json(a, n)) || !(js = jsonio_dumps(j)))
			r = -ENOMEM;
		else
			printf("%s\n", js);
	} else if ((r = history_alerts_text(a, n, &text)) == 0) {
		fputs(text, stdout);
	}
	free(a);
	return r < 0 ? EXIT_LAB_ERROR : EXIT_OK;
}

static int set(const char *verb, const char *idarg)
{
	static const char *const verbs[] = { "new", "ack", "invalid", "fixed" };
	struct history *h = NULL;
	struct lab_error err = { 0 };
	char at[CLOCK_ISO_LEN], *end;
	long long id = strtoll(idarg, &end, 10);
	int s = -1, r;

	for (int i = 0; i < ALERT__COUNT; i++)
		if (!strcmp(verb, verbs[i]) || !strcmp(verb, alert_state_name((enum alert_state)i)))
			s = i;
	if (!*idarg || *end || id <= 0) {
		cli_usage_err("expected an alert's number, not '%s'", idarg);
		return EXIT_BAD_INPUT;
	}
	if (s == ALERT_FIXED && !args.commit) {
		cli_usage_err("fixed: --commit SHA names the commit that fixed it");
		return EXIT_BAD_INPUT;
	}
	if (open_db(&h, 0) < 0)
		return EXIT_LAB_ERROR;
	clock_utc_iso(at, sizeof(at));
	r = history_alert_set(h, id, (enum alert_state)s, args.by ? args.by : user_name(),
			      args.note, args.commit, at, &err);
	history_close(h);
	if (r < 0) {
		cli_err("alert %lld: %s", id, err.msg);
		return r == -ENOENT || r == -EINVAL ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	printf("alert %lld: %s\n", id, alert_state_name((enum alert_state)s));
	return EXIT_OK;
}

int cmd_history_alerts(int argc, char **argv)
{
	static const char *const verbs[] = { "new", "ack", "acknowledged", "invalid", "fixed" };
	int first, nv = sizeof(verbs) / sizeof(verbs[0]), is_set = 0;

	memset(&args, 0, sizeof(args));
	if ((first = cli_parse(argc, argv, options)) < 0)
		return EXIT_BAD_INPUT;
	if (args.db_opt)
		snprintf(args.db, sizeof(args.db), "%s", args.db_opt);
	else
		snprintf(args.db, sizeof(args.db), "%s/%s", cli_runenv_state(), HISTORY_DB_NAME);
	for (int i = 0; first < argc && i < nv; i++)
		is_set |= !strcmp(argv[first], verbs[i]);
	if (first == argc)
		return list();
	if (!is_set || argc - first != 2) {
		cli_usage_err("expected ack|invalid|fixed|new ID, or no argument to list");
		return EXIT_BAD_INPUT;
	}
	return set(argv[first], argv[first + 1]);
}
