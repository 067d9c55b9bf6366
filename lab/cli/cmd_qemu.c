/* lab qemu build | path: the contention model's QEMU (images/qemu/README.md) */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder/qemu.h"
#include "cli/cli.h"
#include "util/cachedir.h"

/* One command line a process: what the tables write to. */
static struct qemu_build_opts o;
/* --help's default of --cache: the variable, else this user's directory. */
static char cache_shown[PATH_MAX + 32];

static const struct cli_opt path_opts[] = {
	OPT_STRING(0, "cache", &o.cache, "DIR", "the cache"),
	OPT_END(),
};

static const struct cli_opt options[] = {
	OPT_GROUP(path_opts),
	OPT_FLAG(0, "force", &o.force, "build even when the cache has it"),
	OPT_UINT('j', NULL, &o.jobs, "N", 1, 256, "parallel build jobs (default: the host's CPUs)"),
	OPT_END(),
};

static void set_defaults(void)
{
	memset(&o, 0, sizeof(o));
	o.interrupt = &cli_interrupted;
	o.progress = cli_progress;
}

void cmd_qemu_help(void)
{
	char cache[PATH_MAX];

	set_defaults();
	cachedir_default("qemu", geteuid(), cache, sizeof(cache));
	snprintf(cache_shown, sizeof(cache_shown), "$LAB_QEMU_CACHE or %s", cache);
	o.cache = cache_shown;
	cli_synopsis("qemu build", NULL, options);
	cli_synopsis("qemu path", NULL, path_opts);
	printf("\nThe QEMU of the contention timing model: Debian's source of the QEMU the lab\n"
	       "runs with the patches in images/qemu/, x86_64-softmmu only, cached by content.\n"
	       "  build   build it unless the cache has it; prints the binary's path\n"
	       "  path    print the cached binary (exit 4 when not built)\n"
	       "Each option at length: man lab, \"OPTIONS OF LAB QEMU\".\n\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab qemu build             # about 20 minutes on 2 cores the first time\n"
	       "  lab qemu build --force -j 8\n"
	       "  lab qemu path\n\n"
	       "Exit status: 0 ok, 4 not built (path) or the build failed, 2 bad usage.\n");
}

static int parse_args(int argc, char **argv)
{
	int first;

	if (argc < 2 || (strcmp(argv[1], "build") && strcmp(argv[1], "path"))) {
		cli_usage_err("expected build or path");
		return -EINVAL;
	}
	set_defaults();
	first = cli_parse(argc - 1, argv + 1, options);
	if (first < 0)
		return -EINVAL;
	if (first != argc - 1) {
		cli_usage_err("unexpected argument '%s'", argv[1 + first]);
		return -EINVAL;
	}
	o.offline = !strcmp(argv[1], "path");
	return 0;
}

int cmd_qemu(int argc, char **argv)
{
	struct qemu_build b;
	char why[1024];
	int r;

	if (parse_args(argc, argv) < 0)
		return EXIT_BAD_INPUT;
	cli_catch_signals();
	r = qemu_build_ensure(&o, &b, why, sizeof(why));
	if (r < 0) {
		cli_err("%s", why[0] ? why : strerror(-r));
		return EXIT_LAB_ERROR;
	}
	if (!o.offline)
		fprintf(stderr, "lab: qemu %.16s: %s%s\n", b.key, b.cached ? "cached" : "built",
			b.cached ? "" : " now");
	printf("%s\n", b.binary);
	return EXIT_OK;
}
