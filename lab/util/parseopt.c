/* One parser for every command's options (parseopt.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/parseopt.h"

int opt_error_set(struct opt_error *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->usage = 0;
	return -EINVAL;
}

/* The table with its groups joined, in order: at most CLI_OPT_MAX entries. */
struct flat {
	const struct cli_opt *o[CLI_OPT_MAX];
	size_t n;
};

static int flatten(const struct cli_opt *opts, struct flat *f)
{
	for (; opts->kind != CLI_OPT_END; opts++) {
		if (opts->kind == CLI_OPT_GROUP) {
			if (flatten(opts->group, f) < 0)
				return -E2BIG;
			continue;
		}
		if (f->n == CLI_OPT_MAX)
			return -E2BIG;
		f->o[f->n++] = opts;
	}
	return 0;
}

/* "--name" or "-c", as the user wrote it or would. */
static const char *opt_label(const struct cli_opt *o, char *buf, size_t len)
{
	if (o->name)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->short_name);
	return buf;
}

/* A range in words: "1..1000", ">= 0". */
static void range_words(double min, double max, int integer, char *buf, size_t len)
{
	if (max > min)
		snprintf(buf, len, integer ? "%.0f..%.0f" : "%g..%g", min, max);
	else
		snprintf(buf, len, integer ? ">= %.0f" : ">= %g", min);
}

static int bad_number(const char *from, const char *text, double min, double max, int integer,
		      const char *special, struct opt_error *e)
{
	char range[96];

	range_words(min, max, integer, range, sizeof(range));
	if (special)
		return opt_error_set(e, "%s must be %s or a number %s, not \"%.40s\"", from,
				     special, range, text);
	return opt_error_set(e, "%s must be a number %s, not \"%.40s\"", from, range, text);
}

int opt_double(const char *from, const char *text, double min, double max, double *out,
	       struct opt_error *e)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(v) || v < min || (max > min && v > max))
		return bad_number(from, text, min, max, 0, NULL, e);
	*out = v;
	return 0;
}

/* A whole number min..max in decimal digits only (no sign, no spaces, no hex). */
static int parse_whole(const char *from, const char *text, double min, double max,
		       const char *special, unsigned long long *out, struct opt_error *e)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || text[0] < '0' || text[0] > '9' || *end || (double)v < min ||
	    (max > min && (double)v > max))
		return bad_number(from, text, min, max, 1, special, e);
	*out = v;
	return 0;
}

static int bad_choice(const char *from, const char *const *choices, const char *text,
		      struct opt_error *e)
{
	char words[512] = "";
	size_t n = 0, len = 0;

	while (choices[n])
		n++;
	for (size_t i = 0; i < n && len < sizeof(words); i++)
		len += (size_t)snprintf(words + len, sizeof(words) - len, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", choices[i]);
	return opt_error_set(e, "%s must be %s, not \"%.40s\"", from, words, text);
}

int opt_invalid(const struct cli_opt *o, const char *arg, const char *what, struct opt_error *e)
{
	char from[80];

	return opt_error_set(e, "%s must be %s, not \"%.40s\"", opt_label(o, from, sizeof(from)),
			     what, arg);
}

static int take(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	char from[80];
	unsigned long long u;

	opt_label(o, from, sizeof(from));
	switch (o->kind) {
	case CLI_OPT_FLAG:
		*(int *)o->value = 1;
		return 0;
	case CLI_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case CLI_OPT_UINT:
		if (parse_whole(from, arg, o->min, o->max, NULL, &u, e) < 0)
			return -EINVAL;
		*(unsigned *)o->value = (unsigned)u;
		return 0;
	case CLI_OPT_ULL:
		if (parse_whole(from, arg, o->min, o->max, NULL, &u, e) < 0)
			return -EINVAL;
		*(unsigned long long *)o->value = u;
		return 0;
	case CLI_OPT_INT:
		if (o->special && !strcmp(arg, o->special)) {
			*(int *)o->value = o->special_value;
			return 0;
		}
		if (parse_whole(from, arg, o->min, o->max, o->special, &u, e) < 0)
			return -EINVAL;
		*(int *)o->value = (int)u;
		return 0;
	case CLI_OPT_DOUBLE:
		return opt_double(from, arg, o->min, o->max, (double *)o->value, e);
	case CLI_OPT_CHOICE:
		for (int i = 0; o->choices[i]; i++)
			if (!strcmp(arg, o->choices[i])) {
				*(int *)o->value = i;
				return 0;
			}
		return bad_choice(from, o->choices, arg, e);
	case CLI_OPT_CALL:
		return o->fn(o, arg, e);
	case CLI_OPT_END:
	case CLI_OPT_GROUP:
		break;
	}
	return -EINVAL;
}

/* getopt_long returned c ('?' an unknown option, ':' a missing value; the option string
 * starts with ':'): said naming the option as written. */
static int bad_option(int c, char *const *argv, struct opt_error *e)
{
	const char *arg = optind > 0 ? argv[optind - 1] : "";
	int len = (int)strcspn(arg, "=");

	if (c == '?' && !strncmp(arg, "--", 2) && arg[len] == '=' && optopt)
		opt_error_set(e, "option '%.*s' takes no value", len, arg);
	else if (strncmp(arg, "--", 2) && optopt)
		opt_error_set(e, c == ':' ? "option '-%c' needs a value" : "unknown option '-%c'",
			      optopt);
	else
		opt_error_set(e, c == ':' ? "option '%.*s' needs a value" : "unknown option '%.*s'",
			      len, arg);
	e->usage = 1;
	return -EINVAL;
}

int parseopt(int argc, char **argv, const struct cli_opt *opts,
	     int (*allow)(const struct cli_opt *o, struct opt_error *e), struct opt_error *e)
{
	struct option lo[CLI_OPT_MAX + 1];
	char so[2 * CLI_OPT_MAX + 2] = ":";
	struct flat f = { .n = 0 };
	size_t nl = 0, ns = 1;
	int c, idx;

	e->usage = 0;
	e->msg[0] = '\0';
	if (flatten(opts, &f) < 0)
		return opt_error_set(e, "the option table has more than %d options", CLI_OPT_MAX);
	memset(lo, 0, sizeof(lo));
	for (size_t i = 0; i < f.n; i++) {
		const struct cli_opt *o = f.o[i];
		int has_arg = o->kind == CLI_OPT_FLAG ? no_argument : required_argument;

		if (o->name)
			lo[nl++] = (struct option){ o->name, has_arg, NULL, 256 + (int)i };
		if (o->short_name) {
			so[ns++] = (char)o->short_name;
			if (has_arg == required_argument)
				so[ns++] = ':';
		}
	}
	so[ns] = '\0';
	/* errors are said in the table's wording (e), never by getopt on stderr */
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, so, lo, &idx)) != -1) {
		const struct cli_opt *o = NULL;

		if (c >= 256)
			o = f.o[c - 256];
		for (size_t i = 0; !o && c != '?' && c != ':' && i < f.n; i++)
			if (f.o[i]->short_name == c)
				o = f.o[i];
		if (!o)
			return bad_option(c, argv, e);
		if ((allow && allow(o, e) < 0) || take(o, optarg, e) < 0)
			return -EINVAL;
	}
	return optind;
}

/* The option's value now, as its default: set before --help prints, "" when it has none. */
static void default_words(const struct cli_opt *o, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!o->value)
		return;
	switch (o->kind) {
	case CLI_OPT_STRING:
		if (*(const char *const *)o->value)
			snprintf(buf, len, " (default %s)", *(const char *const *)o->value);
		break;
	case CLI_OPT_UINT:
		if (*(unsigned *)o->value)
			snprintf(buf, len, " (default %u)", *(unsigned *)o->value);
		break;
	case CLI_OPT_INT:
		if (o->special && *(int *)o->value == o->special_value)
			snprintf(buf, len, " (default %s)", o->special);
		else if (*(int *)o->value)
			snprintf(buf, len, " (default %d)", *(int *)o->value);
		break;
	case CLI_OPT_DOUBLE:
		if (*(double *)o->value != 0)
			snprintf(buf, len, " (default %g)", *(double *)o->value);
		break;
	case CLI_OPT_CHOICE:
		if (*(int *)o->value >= 0) /* negative: none chosen, the option must be given */
			snprintf(buf, len, " (default %s)", o->choices[*(int *)o->value]);
		break;
	default:
		break;
	}
}

/* text from column 24, wrapped at 80. */
static void print_wrapped(FILE *out, const char *text, size_t col)
{
	while (*text) {
		size_t room = 80 - col, n = strlen(text);

		if (n > room) {
			n = room;
			while (n > 0 && text[n] != ' ')
				n--;
			if (n == 0)
				n = strcspn(text, " ");
		}
		fprintf(out, "%.*s\n", (int)n, text);
		text += n;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(out, "%24s", "");
		col = 24;
	}
}

static void print_one(FILE *out, const struct cli_opt *o)
{
	char names[64], text[512], dflt[160];
	int len;

	if (!o->help)
		return;
	if (o->short_name && o->name)
		len = snprintf(names, sizeof(names), "-%c, --%s", o->short_name, o->name);
	else if (o->name)
		len = snprintf(names, sizeof(names), "--%s", o->name);
	else
		len = snprintf(names, sizeof(names), "-%c", o->short_name);
	if (o->argh && len > 0 && (size_t)len < sizeof(names))
		snprintf(names + len, sizeof(names) - (size_t)len, " %s", o->argh);
	default_words(o, dflt, sizeof(dflt));
	snprintf(text, sizeof(text), "%s%s", o->help, dflt);
	/* the help column at 24: a longer name gets a line of its own */
	if (strlen(names) > 20)
		fprintf(out, "  %s\n%24s", names, "");
	else
		fprintf(out, "  %-21s ", names);
	print_wrapped(out, text, 24);
}

void opt_print(FILE *out, const struct cli_opt *opts)
{
	for (; opts->kind != CLI_OPT_END; opts++) {
		if (opts->kind == CLI_OPT_GROUP)
			opt_print(out, opts->group);
		else
			print_one(out, opts);
	}
}

/* One "[--name VALUE]" of the synopsis. */
static int synopsis_word(const struct cli_opt *o, char *buf, size_t len)
{
	char name[64];

	if (o->name)
		snprintf(name, sizeof(name), "--%s", o->name);
	else
		snprintf(name, sizeof(name), "-%c", o->short_name);
	return snprintf(buf, len, o->argh ? "[%s %s]" : "[%s]", name, o->argh ? o->argh : "");
}

static void synopsis_opts(FILE *out, const struct cli_opt *opts, size_t indent, size_t *col)
{
	char word[128];

	for (; opts->kind != CLI_OPT_END; opts++) {
		int n;

		if (opts->kind == CLI_OPT_GROUP) {
			synopsis_opts(out, opts->group, indent, col);
			continue;
		}
		if (!opts->help)
			continue;
		n = synopsis_word(opts, word, sizeof(word));
		if (n <= 0)
			continue;
		if (*col + 1 + (size_t)n > 80) {
			fprintf(out, "\n%*s", (int)indent, "");
			*col = indent;
		} else {
			fputc(' ', out);
			(*col)++;
		}
		fputs(word, out);
		*col += (size_t)n;
	}
}

void opt_synopsis(FILE *out, const char *prog, const char *operands, const struct cli_opt *opts)
{
	int n = fprintf(out, "usage: %s", prog);
	size_t col = n > 0 ? (size_t)n : 0, indent = col + 1;

	if (operands && operands[0]) {
		fprintf(out, " %s", operands);
		col += 1 + strlen(operands);
	}
	synopsis_opts(out, opts, indent, &col);
	fputc('\n', out);
}
