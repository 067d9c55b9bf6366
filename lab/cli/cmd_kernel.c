/* lab kernel build VARIANT... | list | path VARIANT   (kernels/README.md) */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder/kernel.h"
#include "cli/cli.h"
#include "util/cachedir.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void cmd_kernel_help(void)
{
	char cache[4096];

	cachedir_default("kernels", geteuid(), cache, sizeof(cache));
	printf("usage: lab kernel build VARIANT... [--cache DIR] [--force] [-j N]\n"
	       "       lab kernel list [--cache DIR] [--json]\n"
	       "       lab kernel path VARIANT [--cache DIR]\n\n"
	       "Kernel variants are kernels/NAME.json (or a path to such a file): a source, a\n"
	       "patch series and config fragments on a lean base config; see kernels/README.md.\n\n"
	       "  build   configure and build each variant unless the cache has it; prints the\n"
	       "          image path.  Progress (percent, ETA) on stderr, niced, ccache'd.\n"
	       "  list    the variants in kernels/ and whether the cache has each\n"
	       "  path    print the cached image of a variant: vmlinux for a build with the PVH\n"
	       "          entry point (the lab's base config), else bzImage (exit 4 when not\n"
	       "          built)\n\n"
	       "  --cache DIR  artifact cache (default $LAB_KERNEL_CACHE or\n"
	       "               %s)\n"
	       "  --force      configure and build even when the cache has it\n"
	       "  -j N         parallel make jobs (default: the number of CPUs)\n"
	       "  --json       list: a JSON array, one object a variant (name, state,\n"
	       "               description, image and key when built, error)\n\n"
	       "EXAMPLES\n"
	       "  lab kernel list\n"
	       "  lab kernel build baseline no-per-vma-lock -j 8\n"
	       "  lab kernel path baseline\n\n"
	       "Exit status: 0 ok, 2 bad variant (its file, its source, a patch that does not\n"
	       "apply, an option that did not stick), 3 the build failed (log kept), 4 lab\n"
	       "error.\n",
	       cache);
}

static void print_progress(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "lab: %s\n", msg);
}

struct kargs {
	const char *cache;
	int force, json;
	unsigned jobs;
};

static int parse(int argc, char **argv, struct kargs *a)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "force", no_argument, NULL, 'f' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "json", no_argument, NULL, 'J' },
		{ 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":c:fj:", opts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'c': a->cache = optarg; break;
		case 'f': a->force = 1; break;
		case 'J': a->json = 1; break;
		case 'j':
			a->jobs = (unsigned)strtoul(optarg, &end, 10);
			if (*end || a->jobs < 1 || a->jobs > 1024) {
				cli_err("-j must be 1..1024");
				return -EINVAL;
			}
			break;
		default: cli_bad_option(c, argv); return -EINVAL;
		}
	}
	return 0;
}

static int load(const char *ref, struct kvariant *v)
{
	struct lab_error err = { 0 };
	char msg[1200], cwd[4096];

	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), ".");
	if (kernel_variant_load(ref, cwd, v, &err) < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg);
		return -EINVAL;
	}
	return 0;
}

static int exit_for(enum kernel_fail f)
{
	switch (f) {
	case KERNEL_FAIL_SOURCE: /* missing tarball or commit, wrong sha256 */
	case KERNEL_FAIL_PATCH:
	case KERNEL_FAIL_CONFIG: return EXIT_BAD_INPUT;
	case KERNEL_FAIL_BUILD: return EXIT_RUN_FAILED;
	default: return EXIT_LAB_ERROR;
	}
}

static int build_one(const char *ref, const struct kernel_build_opts *o)
{
	struct kvariant v;
	struct kernel_artifact a;
	int r, rc = EXIT_OK;

	if (load(ref, &v) < 0)
		return EXIT_BAD_INPUT;
	r = kernel_build(&v, o, &a);
	if (r < 0) {
		cli_err("kernel build %s: %s", v.name, a.error[0] ? a.error : strerror(-r));
		if (a.log_tail)
			fprintf(stderr, "--- last lines of %s ---\n%s\n---\n", a.log, a.log_tail);
		rc = exit_for(a.fail);
	} else {
		printf("%s: %s %s (%s)\nimage: %s\n", v.name, a.cached ? "cached" : "built",
		       a.key, a.release, a.image);
		if (a.text_sha256[0])
			printf("text: %s\n", a.text_sha256);
		if (!a.cached)
			printf("build: %.1f s, log %s\n", a.build_s, a.log);
	}
	kernel_artifact_free(&a);
	kvariant_free(&v);
	return rc;
}

static int filter_json(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && !strcmp(d->d_name + n - 5, ".json");
}

/* One variant of the list: a line (and its image or error below it), or a JSON object. */
static void list_one(const struct kvariant *v, int hit, const struct kernel_artifact *a,
		     json_t *arr)
{
	const char *state = hit > 0 ? "built" : hit == 0 ? "missing" : "error";

	if (arr) {
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s?}", "name",
						     v->name, "state", state, "description",
						     v->description, "image", hit > 0 ? a->image : NULL,
						     "key", hit > 0 ? a->key : NULL, "error",
						     hit < 0 ? a->error : NULL));
		return;
	}
	printf("%-22s %-8s %s\n", v->name, state, v->description);
	if (hit > 0)
		printf("%-22s          %s\n", "", a->image);
	else if (hit < 0)
		printf("%-22s          %s\n", "", a->error);
}

static int list(const struct kernel_build_opts *o, int json)
{
	char dir[4096];
	struct dirent **ents = NULL;
	_cleanup_json_ json_t *arr = json ? json_array() : NULL;
	_cleanup_free_ char *text = NULL;
	int n, rc = EXIT_OK;

	if (kernel_variants_dir(dir, sizeof(dir)) < 0 ||
	    (n = scandir(dir, &ents, filter_json, alphasort)) < 0) {
		cli_err("list: cannot read the kernels/ directory");
		return EXIT_LAB_ERROR;
	}
	for (int i = 0; i < n; i++) {
		char name[256];
		struct kvariant v;
		struct kernel_artifact a;

		snprintf(name, sizeof(name), "%.*s", (int)strlen(ents[i]->d_name) - 5,
			 ents[i]->d_name);
		free(ents[i]);
		if (load(name, &v) < 0) {
			rc = EXIT_BAD_INPUT;
			continue;
		}
		list_one(&v, kernel_lookup(&v, o, &a), &a, arr);
		kernel_artifact_free(&a);
		kvariant_free(&v);
	}
	free(ents);
	if (arr && (text = jsonio_dumps(arr)))
		printf("%s\n", text);
	return rc;
}

static int path(const char *ref, const struct kernel_build_opts *o)
{
	struct kvariant v;
	struct kernel_artifact a;
	int hit;

	if (load(ref, &v) < 0)
		return EXIT_BAD_INPUT;
	hit = kernel_lookup(&v, o, &a);
	if (hit > 0)
		printf("%s\n", a.image);
	else
		cli_err("path: %s is not built (lab kernel build %s)%s%s", v.name, v.name,
			hit < 0 ? ": " : "", hit < 0 ? a.error : "");
	kernel_artifact_free(&a);
	kvariant_free(&v);
	return hit > 0 ? EXIT_OK : EXIT_LAB_ERROR;
}

int cmd_kernel(int argc, char **argv)
{
	struct kargs a = { 0 };
	struct kernel_build_opts o = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	const char *verb;
	int rc = EXIT_OK;

	if (argc < 2) {
		cli_usage_err("expected build, list or path");
		return EXIT_BAD_INPUT;
	}
	verb = argv[1];
	if (parse(argc - 1, argv + 1, &a) < 0)
		return EXIT_BAD_INPUT;
	o.cache_dir = a.cache;
	o.force = a.force;
	o.jobs = a.jobs;
	o.interrupt = &interrupted;
	o.progress = print_progress;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	argc--, argv++;
	if (!strcmp(verb, "list") && optind == argc)
		return list(&o, a.json);
	if (!strcmp(verb, "path") && optind == argc - 1)
		return path(argv[optind], &o);
	if (!strcmp(verb, "build") && optind < argc) {
		for (int i = optind; i < argc && !interrupted; i++) {
			int r = build_one(argv[i], &o);

			rc = r > rc ? r : rc;
		}
		return rc;
	}
	cli_usage_err("expected 'build VARIANT...', 'list' or 'path VARIANT'");
	return EXIT_BAD_INPUT;
}
