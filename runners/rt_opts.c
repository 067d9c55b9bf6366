/* Runner options from a table: the agent turns job params into --key value (PROTOCOL.md), and
 * a person on the host types the same options.  One table per runner gives parsing, --help and
 * the "params" echo, so the three cannot disagree. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "rt_bench.h"

const char *const rt_mode_names[] = { "threads", "processes", NULL };
const char *const rt_pin_names[] = { "cpu", "none", NULL };
const char *const rt_membind_names[] = { "bind", "local", "interleave", "none", NULL };

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

static void rt_choices(char *buf, size_t len, const char *const *c)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; c[i] && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? "|" : "", c[i]);

		if (w < 0)
			return;
		used += (size_t)w;
	}
}

static void rt_usage(FILE *f, const char *prog, const char *summary, const struct rt_opt *o,
		     size_t n, const char *const *styles)
{
	char ch[256];

	fprintf(f, "usage: %s [--json] [--table%s] [options]\n%s\n", prog,
		styles ? "[=STYLE]" : "", summary);
	for (size_t i = 0; i < n; i++) {
		const char *arg = "";

		if (o[i].type == RT_OPT_ENUM) {
			rt_choices(ch, sizeof(ch), o[i].choices);
			arg = ch;
		} else if (o[i].type == RT_OPT_ULONG) {
			snprintf(ch, sizeof(ch), "%lu..%lu", o[i].min, o[i].max);
			arg = ch;
		} else if (o[i].type == RT_OPT_TASKS) {
			arg = "LIST";
		} else if (o[i].type == RT_OPT_STRING) {
			arg = "PATH";
		}
		fprintf(f, "  --%s%s%s\n      %s\n", o[i].name, arg[0] ? " " : "", arg, o[i].help);
	}
	fprintf(f, "  --json\n      JSON result on stdout (numalab runner protocol, PROTOCOL.md)\n"
		   "  --table%s\n      human table (on stderr when --json is also given)\n",
		styles ? "[=STYLE]" : "");
	if (styles) {
		rt_choices(ch, sizeof(ch), styles);
		fprintf(f, "      STYLE: %s (default %s)\n", ch, styles[0]);
	}
	fprintf(f, "Exit status: 0 ok, 2 bad parameters (message on stderr), 1 failure.\n");
}

static int rt_find_choice(const char *const *c, const char *s)
{
	for (int i = 0; c[i]; i++)
		if (!strcmp(c[i], s))
			return i;
	return -1;
}

static void rt_parse_tasks(const char *prog, const char *opt, const char *s, struct rt_tasks *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
	if (!strcmp(s, "per-cpu")) {
		t->per_cpu = 1;
		return;
	}
	if (!strcmp(s, "pow2")) {
		t->pow2 = 1;
		return;
	}
	if (rt_parse_ulong_list(s, 1, RT_MAX_TASKS, RT_MAX_COUNTS, &t->v, &t->n) < 0)
		rt_usage_error(prog, opt,
			       "'%s' is not per-cpu, pow2 or a comma list of at most %lu "
			       "integers in 1..%lu", s, RT_MAX_COUNTS, RT_MAX_TASKS);
}

static void rt_set(const char *prog, const struct rt_opt *o, const char *arg)
{
	char opt[80];
	int k;

	snprintf(opt, sizeof(opt), "--%s", o->name);
	switch (o->type) {
	case RT_OPT_FLAG:
		*(int *)o->dest = 1;
		break;
	case RT_OPT_ENUM: {
		char ch[256];

		k = rt_find_choice(o->choices, arg);
		if (k < 0) {
			rt_choices(ch, sizeof(ch), o->choices);
			rt_usage_error(prog, opt, "'%s' is not one of %s", arg, ch);
		}
		*(int *)o->dest = k;
		break;
	}
	case RT_OPT_ULONG:
		if (rt_parse_ulong(arg, o->min, o->max, (unsigned long *)o->dest) < 0)
			rt_usage_error(prog, opt, "'%s' is not an integer in %lu..%lu", arg, o->min,
				       o->max);
		break;
	case RT_OPT_TASKS:
		rt_parse_tasks(prog, opt, arg, o->dest);
		break;
	case RT_OPT_STRING:
		if (!arg[0] || strlen(arg) > 1024)
			rt_usage_error(prog, opt, "must be a non-empty path of at most 1024 bytes");
		*(const char **)o->dest = arg;
		break;
	}
}

void rt_opts_parse(const char *prog, const char *summary, const struct rt_opt *opts, size_t n,
		   const char *const *styles, int argc, char **argv, struct rt_cli *cli)
{
	enum { O_JSON = 1000, O_TABLE, O_HELP };
	_cleanup_free_ struct option *lo = calloc(n + 4, sizeof(*lo));
	int c, idx;

	if (!lo)
		exit(RT_EXIT_FAIL);
	for (size_t i = 0; i < n; i++) {
		lo[i].name = opts[i].name;
		lo[i].has_arg = opts[i].type == RT_OPT_FLAG ? no_argument : required_argument;
		lo[i].val = (int)i;
	}
	lo[n] = (struct option){ "json", no_argument, NULL, O_JSON };
	lo[n + 1] = (struct option){ "table", optional_argument, NULL, O_TABLE };
	lo[n + 2] = (struct option){ "help", no_argument, NULL, O_HELP };
	memset(cli, 0, sizeof(*cli));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", lo, &idx)) != -1) {
		if (c >= 0 && (size_t)c < n) {
			rt_set(prog, &opts[c], optarg);
		} else if (c == O_JSON) {
			cli->json = 1;
		} else if (c == O_TABLE) {
			cli->table = 1;
			if (optarg && (!styles || (cli->table_style = rt_find_choice(styles, optarg)) < 0))
				rt_usage_error(prog, "--table", "unknown style '%s'", optarg);
		} else if (c == O_HELP) {
			rt_usage(stdout, prog, summary, opts, n, styles);
			exit(RT_EXIT_OK);
		} else if (c == ':') {
			rt_usage_error(prog, argv[optind - 1], "needs a value");
		} else {
			rt_usage_error(prog, argv[optind - 1], "unknown option (see --help)");
		}
	}
	if (optind < argc)
		rt_usage_error(prog, argv[optind], "unexpected argument");
}

static json_t *rt_tasks_json(const struct rt_tasks *t)
{
	json_t *a;

	if (t->per_cpu && !t->v)
		return json_string("per-cpu");
	if (t->pow2 && !t->v)
		return json_string("pow2");
	a = json_array();
	for (size_t i = 0; a && i < t->n; i++)
		json_array_append_new(a, json_integer((json_int_t)t->v[i]));
	return a;
}

json_t *rt_opts_json(const struct rt_opt *opts, size_t n)
{
	json_t *p = json_object();

	for (size_t i = 0; p && i < n; i++) {
		const struct rt_opt *o = &opts[i];
		char key[80];
		json_t *v = NULL;

		if (o->hidden)
			continue;
		snprintf(key, sizeof(key), "%s", o->name);
		for (char *q = key; *q; q++)
			*q = *q == '-' ? '_' : *q;
		switch (o->type) {
		case RT_OPT_FLAG:
			v = json_boolean(*(int *)o->dest);
			break;
		case RT_OPT_ENUM:
			v = json_string(o->choices[*(int *)o->dest]);
			break;
		case RT_OPT_ULONG:
			v = json_integer((json_int_t) * (unsigned long *)o->dest);
			break;
		case RT_OPT_TASKS:
			v = rt_tasks_json(o->dest);
			break;
		case RT_OPT_STRING:
			v = *(const char **)o->dest ? json_string(*(const char **)o->dest)
						    : json_null();
			break;
		}
		json_object_set_new(p, key, v);
	}
	return p;
}

int rt_tasks_resolve(struct rt_tasks *t, size_t ncpus)
{
	size_t cnt = 0;

	if (ncpus == 0)
		ncpus = 1;
	if (!t->per_cpu && !t->pow2)
		return 0;
	free(t->v);
	t->v = calloc(RT_MAX_COUNTS, sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	if (t->per_cpu) {
		t->v[cnt++] = ncpus > RT_MAX_TASKS ? RT_MAX_TASKS : ncpus;
	} else {
		for (unsigned long p = 1; p <= ncpus && p <= RT_MAX_TASKS && cnt < RT_MAX_COUNTS;
		     p *= 2)
			t->v[cnt++] = p;
		if (t->v[cnt - 1] != ncpus && ncpus <= RT_MAX_TASKS && cnt < RT_MAX_COUNTS)
			t->v[cnt++] = ncpus;
	}
	t->n = cnt;
	return 0;
}
