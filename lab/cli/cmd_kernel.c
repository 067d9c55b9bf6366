/* lab kernel build VARIANT... | list | path VARIANT   (kernels/README.md) */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
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

/* One command line a process: what the tables write to. */
static struct {
	struct kernel_build_opts o;
	int json;
} args;
/* --help's default of --cache: the variable, else this user's directory. */
static char cache_shown[PATH_MAX + 32];

static const struct cli_opt cache_opts[] = {
	OPT_STRING('c', "cache", &args.o.cache_dir, "DIR", "the artifact cache"),
	OPT_END(),
};

static const struct cli_opt build_opts[] = {
	OPT_GROUP(cache_opts),
	OPT_FLAG('f', "force", &args.o.force, "configure and build even when the cache has it"),
	OPT_UINT('j', "jobs", &args.o.jobs, "N", 1, 1024,
		 "parallel make jobs (default: the number of CPUs)"),
	OPT_END(),
};

static const struct cli_opt json_opts[] = {
	OPT_FLAG(0, "json", &args.json, "list: a JSON array, one object a variant"),
	OPT_END(),
};

/* The synopsis of list; every verb takes every option. */
static const struct cli_opt list_opts[] = {
	OPT_GROUP(cache_opts),
	OPT_GROUP(json_opts),
	OPT_END(),
};

static const struct cli_opt options[] = {
	OPT_GROUP(build_opts),
	OPT_GROUP(json_opts),
	OPT_END(),
};

static void set_defaults(void)
{
	memset(&args, 0, sizeof(args));
	args.o.interrupt = &cli_interrupted;
	args.o.progress = cli_progress;
}

void cmd_kernel_help(void)
{
	char cache[PATH_MAX];

	set_defaults();
	cachedir_default("kernels", geteuid(), cache, sizeof(cache));
	snprintf(cache_shown, sizeof(cache_shown), "$LAB_KERNEL_CACHE or %s", cache);
	args.o.cache_dir = cache_shown;
	cli_synopsis("kernel build", "VARIANT...", build_opts);
	cli_synopsis("kernel list", NULL, list_opts);
	cli_synopsis("kernel path", "VARIANT", cache_opts);
	printf("\nKernel variants are kernels/NAME.json (or a path to such a file): a source, a\n"
	       "patch series and config fragments on a lean base config; see kernels/README.md.\n"
	       "  build   configure and build each variant unless the cache has it; prints the\n"
	       "          image path (progress on stderr)\n"
	       "  list    the variants in kernels/ and whether the cache has each\n"
	       "  path    print the cached image of a variant (exit 4 when not built)\n"
	       "Each option at length: man lab, \"OPTIONS OF LAB KERNEL\".\n\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab kernel list\n"
	       "  lab kernel build baseline no-per-vma-lock -j 8\n"
	       "  lab kernel path baseline\n\n"
	       "Exit status: 0 ok, 2 bad variant (its file, its source, a patch that does not\n"
	       "apply, an option that did not stick), 3 the build failed (log kept), 4 lab\n"
	       "error.\n");
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

/* The verb and its operands, once the options are read: argv[first..argc) the operands. */
static int parse_args(int argc, char **argv, int *first)
{
	if (argc < 2) {
		cli_usage_err("expected build, list or path");
		return -EINVAL;
	}
	set_defaults();
	*first = cli_parse(argc - 1, argv + 1, options);
	if (*first < 0)
		return -EINVAL;
	(*first)++;
	if ((!strcmp(argv[1], "list") && *first == argc) ||
	    (!strcmp(argv[1], "path") && *first == argc - 1) ||
	    (!strcmp(argv[1], "build") && *first < argc))
		return 0;
	cli_usage_err("expected 'build VARIANT...', 'list' or 'path VARIANT'");
	return -EINVAL;
}

int cmd_kernel(int argc, char **argv)
{
	int first, rc = EXIT_OK;

	if (parse_args(argc, argv, &first) < 0)
		return EXIT_BAD_INPUT;
	cli_catch_signals();
	if (!strcmp(argv[1], "list"))
		return list(&args.o, args.json);
	if (!strcmp(argv[1], "path"))
		return path(argv[first], &args.o);
	for (int i = first; i < argc && !cli_interrupted; i++) {
		int r = build_one(argv[i], &args.o);

		rc = r > rc ? r : rc;
	}
	return rc;
}
