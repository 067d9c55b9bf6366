/* A job file as labd will read it (labd_job.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/labd_client.h"
#include "cli/labd_job.h"
#include "core/job.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/jsonpath.h"
#include "util/sha256.h"

/* labd keeps its own copy of the job and runs it from its own directory. */
static int refuse_relative(const char *path, const char *ref, const char *from, const char *use,
			   struct lab_error *err)
{
	return error_set(err, path, "\"%.200s\" is a relative path (from %s), which labd does "
			 "not share: use %s", ref, from, use);
}

/* The rule of lab/builder/kernel.c and lab/builder/image.c: a reference holding '/' or ending
 * in .json is a path (relative to the job's directory), anything else a name. */
static int is_path(const char *ref)
{
	size_t n = strlen(ref);

	return strchr(ref, '/') || (n > 5 && !strcmp(ref + n - 5, ".json"));
}

/* A topology name means topologies/NAME.json beside the job first (run/jobload.c); labd
 * has no such file beside the copy it keeps, so it would take its configs/topologies/ one:
 * only when both are the same bytes does the name mean the same there. */
static int check_topology_name(const char *ref, const char *job_dir, struct lab_error *err)
{
	char beside[PATH_MAX + 64], rel[PATH_MAX], found[PATH_MAX + 64], a[65], b[65];

	snprintf(beside, sizeof(beside), "%s/topologies/%s.json", job_dir, ref);
	if (!fs_exists(beside))
		return 0;
	snprintf(rel, sizeof(rel), "configs/topologies/%s.json", ref);
	if (checkout_find(rel, found, sizeof(found)) == 0 && sha256_file_hex(beside, a) == 0 &&
	    sha256_file_hex(found, b) == 0 && !strcmp(a, b))
		return 0;
	return error_set(err, "topology", "\"%s\" is %s here, beside the job, which labd does "
			 "not see (it takes its own configs/topologies/%s.json): use the file's "
			 "absolute path", ref, beside, ref);
}

static int check_topology(const json_t *j, const char *job_dir, struct lab_error *err)
{
	const char *ref = json_string_value(json_object_get(j, "topology"));

	/* An inline topology names nothing; a bad one is labd's to refuse. */
	if (!ref || !ref[0])
		return 0;
	if (strchr(ref, '/') || strstr(ref, ".json")) /* run/jobload.c's rule */
		return ref[0] == '/' ? 0 : refuse_relative("topology", ref, "the job's directory",
							   "an absolute path or a name", err);
	return check_topology_name(ref, job_dir, err);
}

/* Kernels and the image recipe, as the job's own parser reads them.  A section it refuses
 * is labd's to refuse, in the same words. */
static int check_kernels_image(const json_t *j, struct lab_error *err)
{
	struct lab_error ignored = { 0 };
	struct job job = { 0 };
	char p[JSONPATH_LEN];
	int r = 0;

	if (job_parse_kernels(j, &job, &ignored) == 0)
		for (unsigned i = 0; r == 0 && i < job.nr_kernels; i++) {
			const struct job_kernel *k = &job.kernels[i];

			/* `lab run` takes a kernel image from its current directory. */
			if (k->image[0] && k->image[0] != '/') {
				jsonpath_key(p, sizeof(p), k->path, "image");
				r = refuse_relative(p, k->image, "the current directory",
						    "an absolute path", err);
			} else if (k->variant[0] && is_path(k->variant) && k->variant[0] != '/') {
				jsonpath_key(p, sizeof(p), k->path, "variant");
				r = refuse_relative(p, k->variant, "the job's directory",
						    "an absolute path or a name", err);
			}
		}
	if (r == 0 && job_parse_image(j, &job, &ignored) == 0 && is_path(job.image.recipe) &&
	    job.image.recipe[0] != '/')
		r = refuse_relative("image.recipe", job.image.recipe, "the job's directory",
				    "an absolute path or a name", err);
	job_free(&job);
	return r;
}

/* "numa_cost": a preset's name is configs/numa/NAME.json of labd's lab, a path is the job's. */
static int check_numa_cost(const json_t *j, struct lab_error *err)
{
	const char *ref = json_string_value(json_object_get(j, "numa_cost"));

	if (!ref || !job_numa_is_path(ref) || ref[0] == '/')
		return 0;
	return refuse_relative("numa_cost", ref, "the job's directory",
			       "an absolute path or a preset's name", err);
}

int labd_job_load(const char *file, json_t **out)
{
	_cleanup_free_ char *dir = fs_dirname(file);
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	char msg[1200];
	int r = dir ? jsonio_load_file(file, LABD_JOB_MAX, &j, &err) : -ENOMEM;

	if (r == 0 && !json_is_object(j))
		r = error_set(&err, "", "a job is a JSON object");
	if (r == 0 && (r = check_topology(j, dir, &err)) == 0 &&
	    (r = check_numa_cost(j, &err)) == 0)
		r = check_kernels_image(j, &err);
	if (r == -ENOMEM) {
		cli_err("out of memory");
		return EXIT_LAB_ERROR;
	}
	if (r < 0) {
		error_set_file(&err, file);
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg);
		return EXIT_BAD_INPUT;
	}
	*out = TAKE_PTR(j);
	return EXIT_OK;
}
