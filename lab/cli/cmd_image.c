/* lab image build RECIPE [--rebuild] [--accel auto|tcg|kvm] [--cache DIR] [--state DIR]
 * lab image list [--json] [--cache DIR] */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder/image.h"
#include "builder/initramfs.h"
#include "cli/cli.h"
#include "run/accel.h"
#include "run/engine.h"
#include "util/cachedir.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/hostkernel.h"
#include "util/statedir.h"

void cmd_image_help(void)
{
	char cache[4096];

	cachedir_default("images", geteuid(), cache, sizeof(cache));
	printf("usage: lab image build RECIPE [--rebuild] [--accel auto|tcg|kvm] [--cache DIR]\n"
	       "                              [--state DIR]\n"
	       "       lab image list [--json] [--cache DIR]\n\n"
	       "Guest disk images from recipes (images/NAME.json, see images/README.md).\n\n"
	       "build  makes the image unless the cache has it: mmdebstrap builds the root file\n"
	       "       system from Debian's archive, libguestfs puts it on a qcow2 with the\n"
	       "       agent as init.  RECIPE is a name (images/NAME.json) or a path.  Prints\n"
	       "       the image.\n"
	       "list   the cached images.\n\n"
	       "  --rebuild     build even when cached (replaces the entry)\n"
	       "  --accel MODE  how libguestfs runs its appliance: auto (the host's KVM verdict,\n"
	       "                probed once per host like 'lab run'), tcg or kvm\n"
	       "  --cache DIR   image cache (default $LAB_IMAGE_CACHE or\n"
	       "                %s)\n"
	       "  --state DIR   state directory for the KVM verdict (as 'lab run')\n"
	       "  --json        list as JSON\n\n"
	       "EXAMPLES\n"
	       "  lab image build debian-perf\n"
	       "  lab image build images/debian-kbuild-full.json --accel tcg\n"
	       "  lab image list --json\n\n"
	       "Exit status: 0 ok, 2 bad recipe (the error names the JSON path), 4 lab error.\n",
	       cache);
}

static void print_progress(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "lab: %s\n", msg);
}

struct image_args {
	const char *recipe, *cache, *accel;
	int rebuild, json;
	char state[4096];
};

static int parse_args(int argc, char **argv, struct image_args *a)
{
	static const struct option opts[] = {
		{ "rebuild", no_argument, NULL, 'r' },
		{ "accel", required_argument, NULL, 'a' },
		{ "cache", required_argument, NULL, 'c' },
		{ "state", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	int c;

	a->accel = "auto";
	statedir_default(a->state, sizeof(a->state));
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'r': a->rebuild = 1; break;
		case 'a': a->accel = optarg; break;
		case 'c': a->cache = optarg; break;
		case 's': snprintf(a->state, sizeof(a->state), "%s", optarg); break;
		case 'j': a->json = 1; break;
		default: cli_bad_option(c, argv); return -EINVAL;
		}
	}
	return optind;
}

/* The host's KVM verdict, as `lab run` decides it (probing once per host). */
static int kvm_verdict(const struct image_args *a, int *kvm)
{
	_cleanup_free_ char *runners = initramfs_runners_dir();
	struct accel_verdict v;
	struct virt_conn vc;
	enum accel_mode mode;
	char kernel[4096] = "";
	int r;

	if (accel_mode_parse(a->accel, &mode) < 0) {
		cli_err("--accel must be auto, tcg or kvm");
		return -EINVAL;
	}
	*kvm = mode == ACCEL_FORCE_KVM;
	if (mode != ACCEL_AUTO)
		return 0;
	hostkernel_pick(HOSTKERNEL_GLOB, kernel, sizeof(kernel)); /* none: "" */
	r = virt_open(&vc, NULL, a->state);
	if (r == 0)
		r = accel_decide(&vc, a->state, kernel, runners, ACCEL_AUTO, NULL, &v);
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

static int image_build(const struct image_args *a)
{
	_cleanup_free_ char *runners = initramfs_runners_dir();
	struct image_opts o = { .cache_dir = a->cache, .runners_dir = runners,
				.rebuild = a->rebuild, .progress = print_progress };
	struct lab_error err = { 0 };
	struct image_info info;
	char path[4096], msg[1200];
	int r;

	if (!runners)
		return EXIT_LAB_ERROR;
	r = image_recipe_path(a->recipe, NULL, path, sizeof(path), &err);
	if (r == 0)
		r = image_precheck(path, &o, &info, &err);
	if (r == 0 && (a->rebuild || !info.dir[0] || !fs_exists(info.disk)))
		r = kvm_verdict(a, &o.kvm);
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

static int image_list_cmd(const struct image_args *a)
{
	_cleanup_json_ json_t *list = NULL;
	char cache[4096];
	size_t i;
	json_t *m;

	if (a->cache)
		snprintf(cache, sizeof(cache), "%s", a->cache);
	else
		image_cache_dir(cache, sizeof(cache));
	if (image_list(cache, &list) < 0)
		return EXIT_LAB_ERROR;
	if (a->json) {
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
	struct image_args a = { 0 };
	const char *verb;
	int first;

	if (argc < 2) {
		cli_usage_err("expected 'build RECIPE' or 'list'");
		return EXIT_BAD_INPUT;
	}
	verb = argv[1];
	first = parse_args(argc - 1, argv + 1, &a);
	if (first < 0)
		return EXIT_BAD_INPUT;
	if (!strcmp(verb, "build") && first == argc - 2) {
		a.recipe = argv[first + 1];
		return image_build(&a);
	}
	if (!strcmp(verb, "list") && first == argc - 1)
		return image_list_cmd(&a);
	cli_usage_err("expected 'build RECIPE' or 'list'");
	return EXIT_BAD_INPUT;
}
