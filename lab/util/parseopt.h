/* Options written once, in the style of git's parse-options: a program declares a table, one
 * line per option (its kind, names, value, range or choices, one help line), and one parser
 * reads argv against it.  The table also writes the synopsis and the options' lines of -h and
 * --help, so an option's name, value and range are written in exactly one place.  Groups of
 * options that several commands share (where guests run: cli/runenv.h) are tables of their
 * own, joined into a command's table with OPT_GROUP.  `lab` (cli/cli.h: cli_parse, which says
 * the error in lab's one shape) and labd use it; it prints nothing itself.
 *
 *	unsigned repeats = 0;
 *	const struct cli_opt opts[] = {
 *		OPT_STRING('o', "out", &a.out, "DIR", "report directory"),
 *		OPT_UINT(0, "repeats", &repeats, "N", 1, 1000, "boots of each kernel"),
 *		OPT_END(),
 *	};
 *	int first = parseopt(argc, argv, opts, NULL, &e);  // the first operand, or -EINVAL
 *
 * Every error has one wording ("--repeats must be a number 1..1000, not "0""), in e. */
#pragma once
#include <stddef.h>
#include <stdio.h>

/* Why argv was refused: the message, and whether it is about the command line's shape (an
 * unknown option, a missing value: the caller points to --help) rather than a value. */
struct opt_error {
	int usage;
	char msg[512];
};

enum cli_opt_kind {
	CLI_OPT_END,
	CLI_OPT_FLAG,   /* int, set to 1 */
	CLI_OPT_STRING, /* const char *, the argument itself (the last one given wins) */
	CLI_OPT_UINT,   /* unsigned, min..max */
	CLI_OPT_ULL,    /* unsigned long long, min..max */
	CLI_OPT_INT,    /* int, min..max; a word of `special` gives special_value instead */
	CLI_OPT_DOUBLE, /* double, min..max (max 0: no upper bound) */
	CLI_OPT_CHOICE, /* int, the index of the argument in choices (NULL-terminated) */
	CLI_OPT_CALL,   /* fn(opt, arg): checks and stores the value itself */
	CLI_OPT_GROUP,  /* the options of another table, joined here */
};

struct cli_opt {
	enum cli_opt_kind kind;
	int short_name;                 /* 'o' for -o, 0 none */
	const char *name;               /* "out" for --out */
	const char *argh;               /* the value's name in help ("DIR"); NULL: a flag */
	const char *help;               /* one line for the options list; NULL: not listed */
	void *value;
	double min, max;
	const char *const *choices;
	const char *special;            /* CLI_OPT_INT: a word accepted besides numbers ("auto") */
	int special_value;
	/* CLI_OPT_CALL: 0, or -EINVAL with e filled (opt_invalid). */
	int (*fn)(const struct cli_opt *o, const char *arg, struct opt_error *e);
	const struct cli_opt *group;
};

#define OPT_END() { .kind = CLI_OPT_END }
#define OPT_FLAG(s, l, v, h) \
	{ .kind = CLI_OPT_FLAG, .short_name = (s), .name = (l), .value = (v), .help = (h) }
#define OPT_STRING(s, l, v, a, h) \
	{ .kind = CLI_OPT_STRING, .short_name = (s), .name = (l), .value = (v), .argh = (a), \
	  .help = (h) }
#define OPT_UINT(s, l, v, a, lo, hi, h) \
	{ .kind = CLI_OPT_UINT, .short_name = (s), .name = (l), .value = (v), .argh = (a), \
	  .min = (lo), .max = (hi), .help = (h) }
#define OPT_ULL(s, l, v, a, lo, hi, h) \
	{ .kind = CLI_OPT_ULL, .short_name = (s), .name = (l), .value = (v), .argh = (a), \
	  .min = (lo), .max = (hi), .help = (h) }
#define OPT_INT(s, l, v, a, lo, hi, h) \
	{ .kind = CLI_OPT_INT, .short_name = (s), .name = (l), .value = (v), .argh = (a), \
	  .min = (lo), .max = (hi), .help = (h) }
/* An int that also takes one word: --parallel auto (-1) or 1..N. */
#define OPT_INT_OR(s, l, v, a, word, wv, lo, hi, h) \
	{ .kind = CLI_OPT_INT, .short_name = (s), .name = (l), .value = (v), .argh = (a), \
	  .special = (word), .special_value = (wv), .min = (lo), .max = (hi), .help = (h) }
#define OPT_DOUBLE(s, l, v, a, lo, hi, h) \
	{ .kind = CLI_OPT_DOUBLE, .short_name = (s), .name = (l), .value = (v), .argh = (a), \
	  .min = (lo), .max = (hi), .help = (h) }
#define OPT_CHOICE(s, l, v, a, c, h) \
	{ .kind = CLI_OPT_CHOICE, .short_name = (s), .name = (l), .value = (v), .argh = (a), \
	  .choices = (c), .help = (h) }
#define OPT_CALL(s, l, v, a, f, h) \
	{ .kind = CLI_OPT_CALL, .short_name = (s), .name = (l), .value = (v), .argh = (a), \
	  .fn = (f), .help = (h) }
#define OPT_GROUP(t) { .kind = CLI_OPT_GROUP, .group = (t) }

/* The most options one command line's table may have, groups included. */
#define CLI_OPT_MAX 64

/* Read argv[1..argc) against opts (GNU getopt_long: options and operands in any order, "--"
 * ends the options), with allow(o, e), when not NULL, asked before each option is taken (0
 * takes it; for a verb that refuses some of its table's options).  The index of the first
 * operand in the permuted argv (argc: none), or -EINVAL with e filled. */
int parseopt(int argc, char **argv, const struct cli_opt *opts,
	     int (*allow)(const struct cli_opt *o, struct opt_error *e), struct opt_error *e);

/* A number's text against [min, max] (max 0 for a double: no upper bound), in the parser's
 * one wording: "FROM must be a number MIN..MAX, not "TEXT"".  For values that come from
 * elsewhere than argv (an environment variable): 0, or -EINVAL with e filled. */
int opt_double(const char *from, const char *text, double min, double max, double *out,
	       struct opt_error *e);

/* For CLI_OPT_CALL functions: "--NAME must be WHAT, not "ARG"" into e, the parser's one
 * wording; -EINVAL. */
int opt_invalid(const struct cli_opt *o, const char *arg, const char *what, struct opt_error *e);
/* Any other message into e; -EINVAL. */
int opt_error_set(struct opt_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "usage: PROG OPERANDS [--name VALUE]..." from the table, wrapped at 80 columns. */
void opt_synopsis(FILE *f, const char *prog, const char *operands, const struct cli_opt *opts);

/* The table's options list for --help, one "  --name VALUE   help (default D)" entry each,
 * wrapped at 80 columns, in table order, groups where they are joined; D is the option's value
 * now (set the defaults before), left out when 0 or NULL (a choice: when negative). */
void opt_print(FILE *f, const struct cli_opt *opts);
