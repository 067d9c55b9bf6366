/* Runner options from the workload registry: the agent turns a job's validated params into
 * --key value (PROTOCOL.md), and a person on the host types the same options.  The options,
 * their --help and their checks all come from lab/proto/workload.c, the table the lab checks
 * jobs with, so a runner refuses exactly what the lab refuses; only options that are not job
 * parameters (--json, --table, --dry-run, --help, a runner's own such as --dir) live here. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "rt_bench.h"
#include "util/error.h"

void rt_usage_error(const char *prog, const char *opt, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", prog, opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(RT_EXIT_USAGE);
}

/* Help text indented by 6 and wrapped before column 92, at spaces. */
static void rt_usage_text(FILE *f, const char *s)
{
	size_t col = 0;

	while (*s) {
		size_t w = strcspn(s, " ");

		if (col && col + 1 + w > 86) {
			fputc('\n', f);
			col = 0;
		}
		fprintf(f, "%s%.*s", col ? " " : "      ", (int)w, s);
		col += (col ? 1 : 0) + w;
		s += w;
		s += strspn(s, " ");
	}
	fputc('\n', f);
}

static void rt_usage(FILE *f, const struct workload_def *w, const struct rt_opt *o, size_t n,
		     const char *const *styles)
{
	char name[WOPTS_NAME_LEN], arg[320];

	fprintf(f, "usage: %s [--json] [--table%s] [--dry-run] [options]\n%s\n", w->name,
		styles ? "[=STYLE]" : "", w->help);
	for (size_t i = 0; i < w->nr_params; i++) {
		wopts_name(w->params[i].name, name, sizeof(name));
		wopts_arg(&w->params[i], arg, sizeof(arg));
		fprintf(f, "  --%s%s%s\n", name, arg[0] ? " " : "", arg);
		rt_usage_text(f, w->params[i].help);
	}
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "  --%s %s\n", o[i].name, o[i].arg);
		rt_usage_text(f, o[i].help);
	}
	fprintf(f, "  --json\n      JSON result on stdout (numalab runner protocol, PROTOCOL.md)\n"
		   "  --table%s\n      human table (on stderr when --json is also given)\n",
		styles ? "[=STYLE]" : "");
	if (styles) {
		fprintf(f, "      STYLE: ");
		for (size_t i = 0; styles[i]; i++)
			fprintf(f, "%s%s", i ? "|" : "", styles[i]);
		fprintf(f, " (default %s)\n", styles[0]);
	}
	fprintf(f, "  --dry-run\n      check the options as the lab checks a job's params, print "
		   "the params object\n      (JSON) and run nothing\n");
	fprintf(f, "Primary metrics (what an A/B verdict looks at):");
	for (size_t i = 0; i < w->nr_primary; i++)
		fprintf(f, "%s %s (%s is better)", i ? "," : "", w->primary[i].name,
			w->primary[i].better);
	fprintf(f, "\nExit status: 0 ok, 2 bad parameters (message on stderr), 1 failure.\n");
}

static int rt_find_choice(const char *const *c, const char *s)
{
	for (int i = 0; c[i]; i++)
		if (!strcmp(c[i], s))
			return i;
	return -1;
}

static const struct workload_def *rt_workload(const char *prog)
{
	const struct workload_def *w = workload_find(prog);

	if (!w) {
		fprintf(stderr, "%s: not a registered workload (lab/proto/workload.c)\n", prog);
		exit(RT_EXIT_FAIL);
	}
	return w;
}

static void rt_local_set(const char *prog, const struct rt_opt *o, const char *arg)
{
	char opt[WOPTS_NAME_LEN + 2];

	snprintf(opt, sizeof(opt), "--%s", o->name);
	if (!arg[0] || strlen(arg) > 1024)
		rt_usage_error(prog, opt, "must be a non-empty path of at most 1024 bytes");
	*o->dest = arg;
}

json_t *rt_opts_parse(const char *prog, const struct rt_opt *opts, size_t n,
		      const char *const *styles, int argc, char **argv, struct rt_cli *cli)
{
	enum { O_JSON = 1000, O_TABLE, O_HELP, O_DRY_RUN };
	const struct workload_def *w = rt_workload(prog);
	size_t np = w->nr_params;
	_cleanup_free_ struct option *lo = calloc(np + n + 5, sizeof(*lo));
	_cleanup_free_ char(*names)[WOPTS_NAME_LEN] = calloc(np + 1, sizeof(*names));
	json_t *raw = json_object();
	int c, idx;

	if (!lo || !names || !raw)
		exit(RT_EXIT_FAIL);
	for (size_t i = 0; i < np; i++) {
		wopts_name(w->params[i].name, names[i], sizeof(names[i]));
		lo[i] = (struct option){ names[i],
					 w->params[i].type == WORKLOAD_PARAM_BOOL ? no_argument
										  : required_argument,
					 NULL, (int)i };
	}
	for (size_t i = 0; i < n; i++)
		lo[np + i] = (struct option){ opts[i].name, required_argument, NULL, (int)(np + i) };
	lo[np + n] = (struct option){ "json", no_argument, NULL, O_JSON };
	lo[np + n + 1] = (struct option){ "table", optional_argument, NULL, O_TABLE };
	lo[np + n + 2] = (struct option){ "help", no_argument, NULL, O_HELP };
	lo[np + n + 3] = (struct option){ "dry-run", no_argument, NULL, O_DRY_RUN };
	memset(cli, 0, sizeof(*cli));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", lo, &idx)) != -1) {
		if (c >= 0 && (size_t)c < np) {
			if (wopts_set(raw, &w->params[c], optarg) < 0)
				exit(RT_EXIT_FAIL);
		} else if (c >= 0 && (size_t)c < np + n) {
			rt_local_set(prog, &opts[(size_t)c - np], optarg);
		} else if (c == O_JSON) {
			cli->json = 1;
		} else if (c == O_TABLE) {
			cli->table = 1;
			if (optarg && (!styles || (cli->table_style = rt_find_choice(styles, optarg)) < 0))
				rt_usage_error(prog, "--table", "unknown style '%s'", optarg);
		} else if (c == O_HELP) {
			rt_usage(stdout, w, opts, n, styles);
			exit(RT_EXIT_OK);
		} else if (c == O_DRY_RUN) {
			cli->dry_run = 1;
		} else if (c == ':') {
			rt_usage_error(prog, argv[optind - 1], "needs a value");
		} else {
			rt_usage_error(prog, argv[optind - 1], "unknown option (see --help)");
		}
	}
	if (optind < argc)
		rt_usage_error(prog, argv[optind], "unexpected argument");
	return raw;
}

json_t *rt_params_check(const char *prog, const json_t *raw, size_t ncpus,
			const struct rt_cli *cli, struct rt_common *c)
{
	const struct workload_def *w = rt_workload(prog);
	unsigned cpus = ncpus == 0 ? 1 : ncpus > RT_MAX_TASKS ? RT_MAX_TASKS : (unsigned)ncpus;
	struct lab_error err = { 0 };
	json_t *params = NULL, *tasks, *e;
	size_t i;

	if (workload_params_max(w, raw, "", cpus, RT_MAX_TASKS, &params, &err) < 0) {
		char opt[WOPTS_NAME_LEN + 2];

		if (!err.msg[0])
			exit(RT_EXIT_FAIL);
		wopts_path_option(err.path, opt, sizeof(opt));
		rt_usage_error(prog, opt, "%s", err.msg);
	}
	if (cli->dry_run) {
		int r = json_dumpf(params, stdout, JSON_COMPACT | JSON_SORT_KEYS);

		exit(r == 0 && fputc('\n', stdout) != EOF && fflush(stdout) == 0 ? RT_EXIT_OK
										   : RT_EXIT_FAIL);
	}
	memset(c, 0, sizeof(*c));
	c->processes = rt_param_enum(prog, params, "mode") == 1;
	c->unpinned = rt_param_enum(prog, params, "pin") == 1;
	c->membind = rt_param_enum(prog, params, "membind");
	c->repetitions = (unsigned long)wopts_int(params, "repetitions");
	c->warmup = (unsigned long)wopts_int(params, "warmup");
	tasks = json_object_get(params, "tasks");
	c->tasks.v = calloc(json_array_size(tasks) + 1, sizeof(*c->tasks.v));
	if (!c->tasks.v)
		exit(RT_EXIT_FAIL);
	json_array_foreach(tasks, i, e)
		c->tasks.v[c->tasks.n++] = (unsigned long)json_integer_value(e);
	return params;
}

int rt_param_enum(const char *prog, const json_t *params, const char *name)
{
	return wopts_enum(rt_workload(prog), params, name);
}
