/* A report and what its runs used, as one archive (run/bundle.h): the writer.  The job's
 * references are resolved here the way a run resolves them (run/jobload.h, builder/kernel.h,
 * builder/image.h), and each file becomes a member the rewritten job names by a relative
 * path, so that the bundle depends on no checkout, state directory or home of this machine. */
#include "run/bundle.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builder/image.h"
#include "builder/kernel.h"
#include "core/runreport.h"
#include "core/runresume.h"
#include "run/jobload.h"
#include "util/archive.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"
#include "util/version.h"

#define BUNDLE_RECIPE_MAX (1u << 20)

struct pending {
	char name[256];
	char src[PATH_MAX];  /* the file it was read from ("" for made ones) */
	char *data;
	size_t len;
	char what[160];
};

struct bctx {
	struct pending p[BUNDLE_MAX_MEMBERS];
	unsigned n, serial;
	const char *dir;     /* where the job's relative references resolve */
	struct bundle_manifest *m;
	struct lab_error *err;
};

static void bctx_free(struct bctx *c)
{
	for (unsigned i = 0; i < c->n; i++)
		free(c->p[i].data);
	free(c);
}

static void cleanup_bctx(struct bctx **c)
{
	if (*c)
		bctx_free(*c);
}

static int pending_has(const struct bctx *c, const char *name)
{
	for (unsigned i = 0; i < c->n; i++)
		if (!strcmp(c->p[i].name, name))
			return 1;
	return 0;
}

/* data (taken) as member name; a name added twice must be the same bytes. */
static int add_data(struct bctx *c, const char *name, char *data, size_t len, const char *what,
		    const char *src)
{
	struct pending *p;

	for (unsigned i = 0; i < c->n; i++)
		if (!strcmp(c->p[i].name, name)) {
			int same = c->p[i].len == len && !memcmp(c->p[i].data, data, len);

			free(data);
			return same ? 0 : error_set(c->err, name, "two different files would be "
						    "this member");
		}
	if (c->n >= BUNDLE_MAX_MEMBERS || !arc_name_ok(name)) {
		free(data);
		return error_set(c->err, name, c->n >= BUNDLE_MAX_MEMBERS ? "more than %u members"
				 : "not a safe member name", BUNDLE_MAX_MEMBERS);
	}
	p = &c->p[c->n++];
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->src, sizeof(p->src), "%s", src ? src : "");
	snprintf(p->what, sizeof(p->what), "%s", what);
	p->data = data;
	p->len = len;
	return 0;
}

/* A JSON document as a member, keys sorted. */
static int add_json(struct bctx *c, const char *name, const json_t *j, const char *what)
{
	char *text = jsonio_dumps(j);

	return text ? add_data(c, name, text, strlen(text), what, NULL) : -ENOMEM;
}

/* s's last component, cut to the characters a member name keeps. */
static void safe_base(const char *s, const char *cut, char *out, size_t len)
{
	const char *b = strrchr(s, '/');
	size_t n, k = 0;

	b = b ? b + 1 : s;
	n = strlen(b);
	if (cut && n > strlen(cut) && !strcmp(b + n - strlen(cut), cut))
		n -= strlen(cut);
	for (size_t i = 0; i < n && k + 1 < len && k < 120; i++)
		out[k++] = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-",
				  b[i]) && b[i] ? b[i] : '_';
	out[k] = '\0';
	if (!k || out[0] == '.')
		snprintf(out, len, "file");
}

/* The file at path (absolute, or relative to from) as a member in dir (named NN-BASE, one
 * member for one file however often it is named); *rel gets its name after strip. */
static int add_file(struct bctx *c, const char *from, const char *path, const char *dir,
		    const char *strip, const char *what, char *rel, size_t rlen)
{
	char abs[PATH_MAX + 512], base[128], name[300];
	char *data = NULL;
	size_t len;
	int r;

	snprintf(abs, sizeof(abs), "%s%s%s", path[0] == '/' ? "" : from, path[0] == '/' ? "" : "/",
		 path);
	for (unsigned i = 0; i < c->n; i++)
		if (!strcmp(c->p[i].src, abs)) {
			snprintf(rel, rlen, "%s", c->p[i].name + strlen(strip));
			return 0;
		}
	if ((r = fs_read_file(abs, ARC_MAX_MEMBER, &data, &len)) < 0)
		return error_set(c->err, "", "cannot read %s: %s", abs, strerror(-r));
	safe_base(abs, NULL, base, sizeof(base));
	snprintf(name, sizeof(name), "%s/%02u-%s", dir, ++c->serial, base);
	if ((r = add_data(c, name, data, len, what, abs)) < 0)
		return r;
	snprintf(rel, rlen, "%s", name + strlen(strip));
	return 0;
}

/* One string of a variant (a patch or a fragment, at holder[key] or holder[idx]) as a member,
 * the string rewritten to the member's name from kernels/. */
static int variant_file(struct bctx *c, json_t *holder, const char *key, size_t idx,
			const char *vdir, const char *sub, const char *what)
{
	json_t *v = key ? json_object_get(holder, key) : json_array_get(holder, idx);
	char dir[64], rel[300];
	int r;

	if (!json_is_string(v))
		return 0;
	snprintf(dir, sizeof(dir), "kernels/%s", sub);
	if ((r = add_file(c, vdir, json_string_value(v), dir, "kernels/", what, rel,
			  sizeof(rel))) < 0)
		return r;
	return (key ? json_object_set_new(holder, key, json_string(rel))
		    : json_array_set_new(holder, idx, json_string(rel))) < 0 ? -ENOMEM : 0;
}

static int variant_files(struct bctx *c, json_t *v, const char *vdir)
{
	json_t *a = json_object_get(v, "patches"), *e, *src = json_object_get(v, "source");
	size_t i;
	int r = 0;

	json_array_foreach(a, i, e)
		if (r == 0)
			r = json_is_string(e) ? variant_file(c, a, NULL, i, vdir, "patches", "a patch")
					      : variant_file(c, e, "file", 0, vdir, "patches",
							     "a patch");
	a = json_object_get(v, "config");
	json_array_foreach(a, i, e)
		if (r == 0)
			r = variant_file(c, a, NULL, i, vdir, "config", "a config fragment");
	if (r == 0 && json_is_string(json_object_get(src, "git"))) {
		const char *g = json_string_value(json_object_get(src, "git"));
		char abs[PATH_MAX + 512], note[256];

		snprintf(abs, sizeof(abs), "%s%s%s", g[0] == '/' ? "" : vdir, g[0] == '/' ? "" : "/",
			 g);
		if (json_object_set_new(src, "git", json_string(abs)) < 0)
			return -ENOMEM;
		snprintf(note, sizeof(note), "a kernel's source is the git tree %.160s, not in the "
			 "bundle: a re-run needs it", abs);
		bundle_manifest_note(c->m, note);
	}
	return r;
}

/* kernels[i] (or "kernel"): a variant flattened into kernels/NAME.json. */
static int job_kernel(struct bctx *c, json_t *k, const char *path)
{
	_cleanup_json_ json_t *v = NULL;
	_cleanup_free_ char *vdir = NULL;
	const char *ref = json_string_value(json_object_get(k, "variant"));
	char name[128], member[200], what[160];
	int r;

	if (!ref)
		return error_set(c->err, path, "a prebuilt kernel image (\"image\") is not built from "
				 "sources, so a bundle cannot carry it: bundle a report of kernel "
				 "variants (kernels/)");
	if ((r = kernel_variant_flat(ref, c->dir, &v, name, sizeof(name), &vdir, c->err)) < 0)
		return r;
	if ((r = variant_files(c, v, vdir)) < 0)
		return r;
	snprintf(member, sizeof(member), "kernels/%s.json", name);
	snprintf(what, sizeof(what), "kernel variant %s, its \"extends\" resolved into it", name);
	if ((r = add_json(c, member, v, what)) < 0)
		return r;
	return json_object_set_new(k, "variant", json_string(member)) < 0 ? -ENOMEM : 0;
}

static int job_kernels(struct bctx *c, json_t *job)
{
	json_t *ks = json_object_get(job, "kernels"), *k;
	size_t i;
	int r;

	if (json_is_object(json_object_get(job, "kernel")))
		return job_kernel(c, json_object_get(job, "kernel"), "kernel");
	json_array_foreach(ks, i, k) {
		char path[32];

		snprintf(path, sizeof(path), "kernels[%zu]", i);
		if ((r = job_kernel(c, k, path)) < 0)
			return r;
	}
	return 0;
}

static int job_topology(struct bctx *c, json_t *job)
{
	const char *ref = json_string_value(json_object_get(job, "topology"));
	_cleanup_json_ json_t *t = NULL;
	char base[128], member[200];
	int r;

	if (!ref)
		return 0; /* inline: it is in the job */
	if ((r = jobload_topology_json(ref, c->dir, &t, c->err)) < 0)
		return r;
	safe_base(ref, ".json", base, sizeof(base));
	snprintf(member, sizeof(member), "topologies/%s.json", base);
	if ((r = add_json(c, member, t, "the guest's topology")) < 0)
		return r;
	return json_object_set_new(job, "topology", json_string(member)) < 0 ? -ENOMEM : 0;
}

static int job_numa(struct bctx *c, json_t *job)
{
	const char *ref = json_string_value(json_object_get(job, "numa_cost"));
	char path[PATH_MAX + 64], base[128], member[200], *data = NULL;
	size_t len;
	int r;

	if (!ref)
		return 0;
	if ((r = jobload_numa_path(ref, c->dir, path, sizeof(path), c->err)) < 0)
		return r;
	if ((r = fs_read_file(path, BUNDLE_RECIPE_MAX, &data, &len)) < 0)
		return error_set(c->err, "numa_cost", "cannot read %s: %s", path, strerror(-r));
	safe_base(ref, ".json", base, sizeof(base));
	snprintf(member, sizeof(member), "numa/%s.json", base);
	if ((r = add_data(c, member, data, len, "the NUMA cost model's preset", path)) < 0)
		return r;
	return json_object_set_new(job, "numa_cost", json_string(member)) < 0 ? -ENOMEM : 0;
}

/* The recipe's files into images/files/, their "src" rewritten from images/. */
static int recipe_files(struct bctx *c, json_t *recipe, const char *rdir)
{
	json_t *a = json_object_get(recipe, "files"), *f;
	size_t i;
	int r;

	json_array_foreach(a, i, f) {
		const char *src = json_string_value(json_object_get(f, "src"));
		char rel[300];

		if (!src)
			continue;
		if ((r = add_file(c, rdir, src, "images/files", "images/", "a file of the image",
				  rel, sizeof(rel))) < 0)
			return r;
		if (json_object_set_new(f, "src", json_string(rel)) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int job_image(struct bctx *c, json_t *job)
{
	json_t *img = json_object_get(job, "image");
	const char *ref = json_string_value(json_object_get(img, "recipe"));
	_cleanup_json_ json_t *recipe = NULL;
	_cleanup_free_ char *rdir = NULL;
	char path[PATH_MAX + 64], base[128], member[200];
	int r;

	if (!ref || !ref[0])
		return 0;
	if ((r = image_recipe_path(ref, c->dir, path, sizeof(path), c->err)) < 0 ||
	    (r = jsonio_load_file(path, BUNDLE_RECIPE_MAX, &recipe, c->err)) < 0)
		return r;
	if (!(rdir = fs_dirname(path)))
		return -ENOMEM;
	if ((r = recipe_files(c, recipe, rdir)) < 0)
		return r;
	safe_base(path, ".json", base, sizeof(base));
	snprintf(member, sizeof(member), "images/%s.json", base);
	if ((r = add_json(c, member, recipe, "the guest disk image's recipe")) < 0)
		return r;
	bundle_manifest_note(c->m, "the disk image's packages come from the Debian mirror when it "
			     "is built: a later build may hold newer ones");
	return json_object_set_new(img, "recipe", json_string(member)) < 0 ? -ENOMEM : 0;
}

/* Each build's final .config from the kernel cache, while it has it. */
static int resolved_configs(struct bctx *c, const json_t *report)
{
	const json_t *runs = json_object_get(report, "runs"), *run;
	char cache[PATH_MAX], path[PATH_MAX + 200], name[200];
	size_t i;
	int missing = 0, r;

	kernel_cache_dir(NULL, cache, sizeof(cache));
	json_array_foreach(runs, i, run) {
		const json_t *k = json_object_get(run, "kernel");
		const char *key = json_string_value(json_object_get(json_object_get(k, "build"),
								    "key"));
		char label[128], *data = NULL;
		size_t len;

		if (!key || strspn(key, "0123456789abcdef") != strlen(key))
			continue;
		safe_base(json_string_value(json_object_get(k, "label")) ?: "kernel", NULL, label,
			  sizeof(label));
		snprintf(name, sizeof(name), "kernels/resolved/%s.config", label);
		snprintf(path, sizeof(path), "%s/artifacts/%s/config", cache, key);
		if (pending_has(c, name))
			continue;
		if (fs_read_file(path, ARC_MAX_MEMBER, &data, &len) < 0) {
			missing++;
			continue;
		}
		if ((r = add_data(c, name, data, len, "the .config its build ended with (to diff; "
				  "a re-run builds from the variant)", path)) < 0)
			return r;
	}
	if (missing)
		bundle_manifest_note(c->m, "a build's final .config was no longer in this kernel "
				     "cache: not in the bundle (a re-run makes it again)");
	return 0;
}

/* The job as run and where it resolved: job.as_run of the report; a report from before it,
 * its job file, when that still hashes to job.sha256. */
static int job_as_run(const json_t *report, json_t **job, char **dir, struct lab_error *err)
{
	const json_t *rj = json_object_get(report, "job");
	const char *want = json_string_value(json_object_get(rj, "sha256"));
	const char *file = json_string_value(json_object_get(rj, "file"));
	char sha[65];
	int r;

	if (json_is_object(json_object_get(rj, "as_run"))) {
		*job = json_deep_copy(json_object_get(rj, "as_run"));
		const char *d = json_string_value(json_object_get(rj, "dir"));

		*dir = strdup(d && d[0] ? d : ".");
	} else {
		struct lab_error load = { 0 };

		if (!file || !want)
			return error_set(err, "job", "the report records neither the job as run nor "
					 "its file and hash: it cannot be bundled");
		if ((r = jsonio_load_file(file, JOBLOAD_MAX_SIZE, job, &load)) < 0)
			return error_set(err, "job.file", "the report is older than job.as_run, and "
					 "its job file %s: %s", file, load.msg);
		*dir = fs_dirname(file);
	}
	if (!*job || !*dir)
		return -ENOMEM;
	if (want && (runresume_job_sha256(*job, sha) < 0 || strcmp(sha, want)))
		return error_set(err, json_object_get(rj, "as_run") ? "job.as_run" : "job.file",
				 "hashes to %.12s, the report's job.sha256 is %.12s: %s", sha, want,
				 json_object_get(rj, "as_run") ? "the report was altered"
				 : "the job file changed since the report (a report older than "
				   "job.as_run keeps only its hash)");
	return 0;
}

static void manifest_head(struct bundle_manifest *m, const json_t *rep)
{
	const json_t *runs = json_object_get(rep, "runs"), *run;
	const json_t *t = json_object_get(json_object_get(json_array_get(runs, 0), "host"),
					  "timing");
	size_t i;

	clock_utc_iso(m->created, sizeof(m->created));
	snprintf(m->lab_version, sizeof(m->lab_version), "%s",
		 json_string_value(json_object_get(json_object_get(rep, "lab"), "version")) ?: "");
	snprintf(m->lab_commit, sizeof(m->lab_commit), "%s",
		 json_string_value(json_object_get(json_object_get(rep, "lab"), "commit")) ?: "");
	snprintf(m->report_id, sizeof(m->report_id), "%s",
		 json_string_value(json_object_get(rep, "id")) ?: "");
	snprintf(m->model, sizeof(m->model), "%s",
		 json_string_value(json_object_get(t, "model")) ?: "unknown");
	m->quantum = (unsigned)json_integer_value(json_object_get(t, "quantum"));
	m->runs = (unsigned)json_array_size(runs);
	m->repeats = (unsigned)json_integer_value(json_object_get(json_object_get(rep, "job"),
								  "repeats"));
	m->has_seeds = m->runs > 0 && (m->seeds = calloc(m->runs, sizeof(*m->seeds))) != NULL;
	json_array_foreach(runs, i, run) {
		if (m->has_seeds && json_is_integer(json_object_get(run, "seed")))
			m->seeds[i] = (unsigned long long)json_integer_value(json_object_get(run,
											    "seed"));
		else
			m->has_seeds = 0;
	}
}

static int write_archive(struct bctx *c, const char *out, struct lab_error *err)
{
	_cleanup_json_ json_t *mj = bundle_manifest_json(c->m);
	_cleanup_free_ char *text = mj ? jsonio_dumps(mj) : NULL;
	struct arc_writer *w = NULL;
	int r;

	if (!text)
		return -ENOMEM;
	if ((r = arc_writer_open(out, &w)) < 0)
		return error_set(err, "", "cannot write %s: %s", out, strerror(-r));
	r = arc_writer_add(w, BUNDLE_MANIFEST, text, strlen(text));
	for (unsigned i = 0; r == 0 && i < c->n; i++)
		r = arc_writer_add(w, c->p[i].name, c->p[i].data, c->p[i].len);
	if (r < 0) {
		arc_writer_abort(w);
		return error_set(err, "", "cannot write %s: %s", out, strerror(-r));
	}
	if ((r = arc_writer_close(w)) < 0)
		return error_set(err, "", "cannot write %s: %s", out, strerror(-r));
	return 0;
}

static int collect(struct bctx *c, const char *report_path, const json_t *rep)
{
	_cleanup_json_ json_t *job = NULL;
	_cleanup_free_ char *dir = NULL, *raw = NULL;
	size_t len;
	int r;

	if ((r = job_as_run(rep, &job, &dir, c->err)) < 0)
		return r;
	if (strcmp(c->m->lab_commit, version_commit())) {
		char note[256];

		/* names (a variant, a topology, a preset, a recipe) resolve in this lab's files */
		snprintf(note, sizeof(note), "the report's lab is %.40s, this one %.40s: what the job "
			 "names by name was taken from this lab's files, which may differ",
			 c->m->lab_commit, version_commit());
		bundle_manifest_note(c->m, note);
	}
	c->dir = dir;
	if ((r = job_kernels(c, job)) < 0 || (r = job_topology(c, job)) < 0 ||
	    (r = job_numa(c, job)) < 0 || (r = job_image(c, job)) < 0 ||
	    (r = resolved_configs(c, rep)) < 0 ||
	    (r = add_json(c, "job.json", job, "the job as run, its references rewritten into "
			  "the bundle")) < 0)
		return r;
	if ((r = fs_read_file(report_path, RUNREPORT_MAX_SIZE, &raw, &len)) < 0)
		return error_set(c->err, "", "cannot read %s: %s", report_path, strerror(-r));
	r = add_data(c, "report.json", raw, len, "the report as it was", report_path);
	raw = NULL;
	c->dir = NULL;
	return r;
}

int bundle_write(const char *report_path, const char *out, struct bundle_manifest **m,
		 size_t *bytes, struct lab_error *err)
{
	_cleanup_json_ json_t *rep = NULL;
	__attribute__((cleanup(cleanup_bctx))) struct bctx *c = calloc(1, sizeof(*c));
	struct stat st;
	int r;

	*m = NULL;
	if (!c || !(c->m = bundle_manifest_new()))
		return -ENOMEM;
	c->err = err;
	if ((r = jsonio_load_file(report_path, RUNREPORT_MAX_SIZE, &rep, err)) < 0)
		goto fail;
	manifest_head(c->m, rep);
	error_set_file(err, report_path);
	if ((r = collect(c, report_path, rep)) < 0)
		goto fail;
	for (unsigned i = 0; i < c->n; i++) {
		char sha[65];

		if ((r = sha256_hex(c->p[i].data, c->p[i].len, sha)) < 0 ||
		    (r = bundle_manifest_add(c->m, c->p[i].name, sha, c->p[i].len,
					     c->p[i].what)) < 0)
			goto fail;
	}
	if ((r = write_archive(c, out, err)) < 0)
		goto fail;
	*bytes = stat(out, &st) == 0 ? (size_t)st.st_size : 0;
	*m = c->m;
	c->m = NULL;
	return 0;
fail:
	bundle_manifest_free(c->m);
	c->m = NULL;
	return r;
}
