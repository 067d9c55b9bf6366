/* lab qemu build | path: the contention model's QEMU (images/qemu/README.md) */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder/qemu.h"
#include "cli/cli.h"
#include "util/cachedir.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void cmd_qemu_help(void)
{
	char cache[4096];

	cachedir_default("qemu", geteuid(), cache, sizeof(cache));
	printf("usage: lab qemu build [--cache DIR] [--force] [-j N]\n"
	       "       lab qemu path [--cache DIR]\n\n"
	       "The QEMU of the contention timing model: Debian's source of the QEMU the lab\n"
	       "runs (apt's deb-src index, SHA256 checked) with the patches in images/qemu/,\n"
	       "x86_64-softmmu only, cached by the content of all that (images/qemu/README.md).\n"
	       "Run by hand: $(lab qemu path) -icount shift=0,sleep=off,quantum=1000 ...\n\n"
	       "  build        build it unless the cache has it; prints the binary's path.\n"
	       "               Progress (percent, ETA) on stderr, niced\n"
	       "  path         print the cached binary (exit 4 when not built)\n"
	       "  --cache DIR  cache (default $LAB_QEMU_CACHE or %s)\n"
	       "  --force      build even when the cache has it\n"
	       "  -j N         parallel build jobs (default: the host's CPUs)\n\n"
	       "EXAMPLES\n"
	       "  lab qemu build             # about 20 minutes on 2 cores the first time\n"
	       "  lab qemu build --force -j 8\n"
	       "  lab qemu path\n\n"
	       "Exit status: 0 ok, 4 not built (path) or the build failed, 2 bad usage.\n",
	       cache);
}

static void print_progress(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "lab: %s\n", msg);
}

static int parse(int argc, char **argv, struct qemu_build_opts *o)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "force", no_argument, NULL, 'f' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":j:", opts, NULL)) != -1) {
		switch (c) {
		case 'c': o->cache = optarg; break;
		case 'f': o->force = 1; break;
		case 'j': {
			char *end;
			long n;

			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 1 || n > 256) {
				cli_err("-j must be a number 1..256");
				return -EINVAL;
			}
			o->jobs = (unsigned)n;
			break;
		}
		default: cli_bad_option(c, argv); return -EINVAL;
		}
	}
	if (optind != argc) {
		cli_usage_err("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

int cmd_qemu(int argc, char **argv)
{
	struct qemu_build_opts o = { .interrupt = &interrupted, .progress = print_progress };
	struct sigaction sa = { .sa_handler = on_signal };
	struct qemu_build b;
	char why[1024];
	int r;

	if (argc < 2 || (strcmp(argv[1], "build") && strcmp(argv[1], "path"))) {
		cli_usage_err("expected build or path");
		return EXIT_BAD_INPUT;
	}
	if (parse(argc - 1, argv + 1, &o) < 0)
		return EXIT_BAD_INPUT;
	o.offline = !strcmp(argv[1], "path");
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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
