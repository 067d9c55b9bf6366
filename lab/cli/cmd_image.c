/* lab image build RECIPE [--rebuild] [--accel MODE] [--cache DIR] [--state DIR]
 * lab image list [--json] [--cache DIR] */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder/image.h"
#include "builder/initramfs.h"
#include "cli/cli.h"
#include "cli/runenv.h"
#include "run/accel.h"
#include "util/cachedir.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/hostkernel.h"

/* One command line a process: what the tables write to. */
static struct {
	const char *recipe, *cache;
	int rebuild, json, accel;
} args;
/* --help's default of --cache: the variable, else this user's directory. */
static char cache_shown[PATH_MAX + 32];

static const struct cli_opt cache_opts[] = {
	OPT_STRING(0, "cache", &args.cache, "DIR", "the image cache"),
	OPT_END(),
};

static const struct cli_opt build_opts[] = {
	OPT_FLAG(0, "rebuild", &args.rebuild, "build even when cached (replaces the entry)"),
	/* image's own --accel (the run environment's words): how libguestfs runs its
	 * appliance here, not where guests run */
	OPT_CHOICE(0, "accel", &args.accel, "MODE", cli_accel_words,
		   "how libguestfs runs its appliance: auto (the KVM verdict), tcg or kvm"),
	OPT_GROUP(cache_opts),
	OPT_GROUP(cli_state_opts),
	OPT_END(),
};

static const struct cli_opt json_opts[] = {
	OPT_FLAG(0, "json", &args.json, "list as JSON"),
	OPT_END(),
};

/* The synopsis of list; both verbs take every option. */
static const struct cli_opt list_opts[] = {
	OPT_GROUP(json_opts),
	OPT_GROUP(cache_opts),
	OPT_END(),
};

static const struct cli_opt options[] = {
	OPT_GROUP(build_opts),
	OPT_GROUP(json_opts),
	OPT_END(),
};

void cmd_image_help(void)
{
	char cache[PATH_MAX];

	memset(&args, 0, sizeof(args));
	cachedir_default("images", geteuid(), cache, sizeof(cache));
	snprintf(cache_shown, sizeof(cache_shown), "$LAB_IMAGE_CACHE or %s", cache);
	args.cache = cache_shown;
	cli_synopsis("image build", "RECIPE", build_opts);
	cli_synopsis("image list", NULL, list_opts);
	printf("\nGuest disk images from recipes (images/NAME.json, see images/README.md).\n"
	       "  build   makes the image unless the cache has it (mmdebstrap, libguestfs);\n"
	       "          RECIPE is a name (images/NAME.json) or a path.  Prints the image.\n"
	       "  list    the cached images\n"
	       "Each option at length: man lab, \"OPTIONS OF LAB IMAGE\".\n\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab image build debian-perf\n"
	       "  lab image build images/debian-kbuild-full.json --accel tcg\n"
	       "  lab image list --json\n\n"
	       "Exit status: 0 ok, 2 bad recipe (the error names the JSON path), 4 lab error.\n");
}

/* The host's KVM verdict, as `lab run` decides it (probing once per host). */
static int kvm_verdict(int *kvm)
{
	_cleanup_free_ char *runners = initramfs_runners_dir();
	const char *state = cli_runenv_state();
	struct accel_verdict v;
	struct virt_conn vc;
	char kernel[4096] = "";
	int r;

	*kvm = args.accel == ACCEL_FORCE_KVM;
	if (args.accel != ACCEL_AUTO)
		return 0;
	hostkernel_pick(HOSTKERNEL_GLOB, kernel, sizeof(kernel)); /* none: "" */
	r = virt_open(&vc, NULL, state);
	if (r == 0)
		r = accel_decide(&vc, state, kernel, runners, ACCEL_AUTO, NULL, &v);
	virt_close(&vc);
	if (r < 0) {
		/* TCG always works; KVM is only taken on the host's proven word. */
		fprintf(stderr, "lab: no KVM verdict (%s): libguestfs uses TCG\n", strerror(-r));
		return 0;
	}
	*kvm = v.kvm;
	fprintf(stderr, "lab: libguestfs uses %s: %s\n", v.kvm ? "KVM" : "TCG", v.reason);
	return 0;
}

static int image_build(void)
{
	_cleanup_free_ char *runners = initramfs_runners_dir();
	struct image_opts o = { .cache_dir = args.cache, .runners_dir = runners,
				.rebuild = args.rebuild, .progress = cli_progress };
	struct lab_error err = { 0 };
	struct image_info info;
	char path[4096], msg[1200];
	int r;

	if (!runners)
		return EXIT_LAB_ERROR;
	r = image_recipe_path(args.recipe, NULL, path, sizeof(path), &err);
	if (r == 0)
		r = image_precheck(path, &o, &info, &err);
	if (r == 0 && (args.rebuild || !info.dir[0] || !fs_exists(info.disk)))
		r = kvm_verdict(&o.kvm);
	if (r == 0)
		r = image_ensure(path, &o, &info, &err);
	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg[0] ? msg : strerror(-r));
		/* -EINVAL: the recipe (JSON path in msg); -ENOENT: no such recipe. */
		return r == -EINVAL || r == -ENOENT ? EXIT_BAD_INPUT : EXIT_LAB_ERROR;
	}
	if (info.built)
		fprintf(stderr, "lab: image %s built in %.1f s\n", info.name, info.build_s);
	printf("%s\n", info.disk);
	return EXIT_OK;
}

static int image_list_cmd(void)
{
	_cleanup_json_ json_t *list = NULL;
	char cache[4096];
	size_t i;
	json_t *m;

	if (args.cache)
		snprintf(cache, sizeof(cache), "%s", args.cache);
	else
		image_cache_dir(cache, sizeof(cache));
	if (image_list(cache, &list) < 0)
		return EXIT_LAB_ERROR;
	if (args.json) {
		_cleanup_free_ char *s = json_dumps(list, JSON_SORT_KEYS | JSON_INDENT(2));

		printf("%s\n", s ? s : "[]");
		return EXIT_OK;
	}
	printf("%-20s %-16s %9s %-20s %s\n", "NAME", "KEY", "DISK MiB", "BUILT", "PACKAGES");
	json_array_foreach(list, i, m) {
		_cleanup_free_ char *pk = json_dumps(json_object_get(json_object_get(m, "recipe"),
								      "packages"), JSON_COMPACT);

		printf("%-20s %-16.16s %9.1f %-20s %s\n", json_string_value(json_object_get(m, "name")),
		       json_string_value(json_object_get(m, "key")),
		       (double)json_integer_value(json_object_get(m, "disk_bytes")) / 1048576.0,
		       json_string_value(json_object_get(m, "built")), pk ? pk : "");
	}
	if (json_array_size(list) == 0)
		printf("(no images in %s)\n", cache);
	return EXIT_OK;
}

int cmd_image(int argc, char **argv)
{
	int first;

	memset(&args, 0, sizeof(args));
	if (argc < 2) {
		cli_usage_err("expected 'build RECIPE' or 'list'");
		return EXIT_BAD_INPUT;
	}
	first = cli_parse(argc - 1, argv + 1, options);
	if (first < 0)
		return EXIT_BAD_INPUT;
	if (!strcmp(argv[1], "build") && first == argc - 2) {
		args.recipe = argv[first + 1];
		return image_build();
	}
	if (!strcmp(argv[1], "list") && first == argc - 1)
		return image_list_cmd();
	cli_usage_err("expected 'build RECIPE' or 'list'");
	return EXIT_BAD_INPUT;
}
