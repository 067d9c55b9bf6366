/* The kernels of one `lab run` (run/kernels.h). */
#include "run/kernels.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/collect.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/hostkernel.h"
#include "util/jsonpath.h"
#include "util/sha256.h"

/* A path or a glob (the highest version wins: util/hostkernel.h), as `kernel.image` always
 * worked. */
static int resolve_image(const char *image, const char *path, char *out, size_t len,
			 struct lab_error *err)
{
	if (!strpbrk(image, "*?[")) {
		_cleanup_free_ char *abs = realpath(image, NULL);

		if (!abs || access(abs, R_OK) < 0)
			return error_set(err, path, "cannot read %s: %s", image, strerror(errno));
		snprintf(out, len, "%s", abs);
		return 0;
	}
	if (hostkernel_pick(image, out, len) < 0)
		return error_set(err, path, "no file matches %s", image);
	return 0;
}

/* The variant's patches as the report names them: the file's (or URL's) last component, its
 * sha256 and the subject of its first mail (null for a bare diff), so that what was measured
 * is named by what its author called it, not by a path of this machine. */
static json_t *patches_json(const struct kvariant *v)
{
	json_t *a = json_array();

	for (unsigned i = 0; a && i < v->nr_patches; i++) {
		const struct kpatch *p = &v->patches[i];
		const char *src = p->path[0] ? p->path : p->url, *base = strrchr(src, '/');
		_cleanup_free_ char *text = NULL;
		char sha[65] = "", subject[300] = "";
		size_t n;

		if (p->path[0] && fs_read_file(p->path, 16u << 20, &text, &n) == 0) {
			if (kpatch_subject(text, subject, sizeof(subject)) < 0)
				subject[0] = '\0';
			if (sha256_hex(text, n, sha) < 0)
				sha[0] = '\0';
		} else if (!p->path[0]) {
			snprintf(sha, sizeof(sha), "%s", p->sha256); /* checked when fetched */
		}
		if (json_array_append_new(a, json_pack("{s:s,s:s?,s:s?}", "file",
						       base ? base + 1 : src, "sha256",
						       sha[0] ? sha : NULL, "subject",
						       subject[0] ? subject : NULL)) < 0)
			return json_decref(a), NULL;
	}
	return a;
}

int krun_resolve(const struct job *job, const char *job_dir, struct krun *kr,
		 struct lab_error *err)
{
	char saved[sizeof(err->file)];

	memset(kr, 0, sizeof(*kr));
	kr->k = calloc(job->nr_kernels ? job->nr_kernels : 1, sizeof(*kr->k));
	if (!kr->k)
		return -ENOMEM;
	kr->n = job->nr_kernels;
	snprintf(saved, sizeof(saved), "%s", err->file);
	for (unsigned i = 0; i < kr->n; i++) {
		struct krun_kernel *k = &kr->k[i];
		const char *path = job->kernels[i].path;
		char p[JSONPATH_LEN];
		int r;

		k->jk = &job->kernels[i];
		if (!k->jk->variant[0]) {
			jsonpath_key(p, sizeof(p), path, "image");
			r = resolve_image(k->jk->image, p, k->image, sizeof(k->image), err);
		} else {
			k->is_variant = 1;
			snprintf(err->file, sizeof(err->file), "%s", saved);
			r = kernel_variant_load(k->jk->variant, job_dir, &k->v, err);
			if (r == 0 && !(k->patches = patches_json(&k->v)))
				r = -ENOMEM;
			if (r < 0 && !strcmp(err->file, saved)) {
				/* Not about the variant file: name the job's path. */
				jsonpath_key(p, sizeof(p), path, "variant");
				snprintf(err->path, sizeof(err->path), "%s", p);
			}
		}
		if (r < 0)
			return r;
	}
	snprintf(err->file, sizeof(err->file), "%s", saved);
	return 0;
}

static int load_fragments(struct krun_kernel *k)
{
	k->frags = calloc(k->v.nr_fragments ? k->v.nr_fragments : 1, sizeof(*k->frags));
	if (!k->frags)
		return -ENOMEM;
	for (unsigned i = 0; i < k->v.nr_fragments; i++) {
		_cleanup_free_ char *text = NULL;
		struct lab_error err = { 0 };

		if (fs_read_file(k->v.fragments[i], 1u << 20, &text, NULL) == 0)
			kconfig_parse(text, 0, &k->frags[i], &err);
	}
	return 0;
}

/* What exactly booted, once per kernel: the image's and the .config's sha256, so that two runs
 * (or two bisection steps) can tell whether they ran the same kernel. */
static void hash_kernel(struct krun_kernel *k)
{
	if (k->image[0] && sha256_file_hex(k->image, k->image_sha256) < 0)
		k->image_sha256[0] = '\0';
	if (k->build_config &&
	    sha256_hex(k->build_config, strlen(k->build_config), k->config_sha256) < 0)
		k->config_sha256[0] = '\0';
}

int krun_check_patches(struct krun *kr, const struct kernel_build_opts *o, int may_extract,
		       struct lab_error *err)
{
	for (unsigned i = 0; i < kr->n; i++) {
		struct krun_kernel *k = &kr->k[i];
		struct kernel_artifact a;
		char p[JSONPATH_LEN];
		int r;

		if (!k->is_variant)
			continue;
		r = kernel_check_patches(&k->v, o, may_extract, &a);
		if (r < 0 && (a.fail == KERNEL_FAIL_PATCH || a.fail == KERNEL_FAIL_SOURCE)) {
			jsonpath_key(p, sizeof(p), k->jk->path, "variant");
			r = error_set(err, p, "%s: %s", k->v.name, a.error);
		} else if (r < 0) {
			error_set(err, NULL, "kernel %s: %s", k->v.name,
				  a.error[0] ? a.error : strerror(-r));
		}
		k->patches_checked = r == 0;
		kernel_artifact_free(&a);
		if (r < 0)
			return r;
	}
	return 0;
}

int krun_build(struct krun *kr, const struct kernel_build_opts *o)
{
	for (unsigned i = 0; i < kr->n; i++) {
		struct krun_kernel *k = &kr->k[i];
		int r;

		if (!k->is_variant) {
			hash_kernel(k);
			continue;
		}
		if (o->interrupt && *o->interrupt)
			return -EINTR;
		r = kernel_build(&k->v, o, &k->art);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			k->fail = k->art.fail == KERNEL_FAIL_INTERRUPTED || k->art.fail == KERNEL_FAIL_LAB
					  ? OUTCOME_INFRA_ERROR : OUTCOME_BUILD_FAILURE;
			snprintf(k->reason, sizeof(k->reason), "kernel %s: %s failed: %s", k->v.name,
				 kernel_fail_name(k->art.fail), k->art.error);
			if (k->art.fail == KERNEL_FAIL_INTERRUPTED)
				return -EINTR;
			continue;
		}
		snprintf(k->image, sizeof(k->image), "%s", k->art.image);
		fs_read_file(k->art.config, KCONFIG_MAX_TEXT, &k->build_config, NULL);
		if (load_fragments(k) < 0)
			return -ENOMEM;
		hash_kernel(k);
	}
	return 0;
}

const char *krun_first_image(const struct krun *kr)
{
	for (unsigned i = 0; i < kr->n; i++)
		if (kr->k[i].image[0])
			return kr->k[i].image;
	return NULL;
}

static json_t *build_json(const struct krun_kernel *k)
{
	const struct kernel_artifact *a = &k->art;

	if (!k->is_variant)
		return json_null();
	if (k->fail != OUTCOME_OK)
		return json_pack("{s:s,s:s,s:s?,s:s?}", "failed", kernel_fail_name(a->fail),
				 "error", a->error, "log", a->log[0] ? a->log : NULL, "log_tail",
				 a->log_tail);
	return json_pack("{s:s,s:b,s:f,s:s,s:s,s:s,s:s*}", "key", a->key, "cached", a->cached,
			 "build_s", a->build_s, "log", a->log, "source", a->source_id, "image",
			 a->image, "text_sha256", a->text_sha256[0] ? a->text_sha256 : NULL);
}

/* "config": which options the kernel had, from the guest (its /proc/config.gz) when it sent
 * it, else from the build; "verified" says the guest's config is the build's, byte for
 * byte, i.e. the guest runs this variant. */
static json_t *config_json(const struct krun_kernel *k, const struct guest_kernel *g,
			   json_t **conf)
{
	/* The guest said its config is the build's, which the host gave it to compare with. */
	const char *guest = g && g->config_same ? k->build_config : g ? g->config : NULL;
	const char *text = guest ? guest : k->build_config;
	struct lab_error err = { 0 };
	struct kconfig c;
	json_t *o;

	*conf = json_array();
	if (!text || kconfig_parse(text, 0, &c, &err) < 0)
		return json_pack("{s:n,s:n,s:n,s:s?}", "source", "verified", "options",
				 "guest_error", g && g->config_error[0] ? g->config_error : NULL);
	json_decref(*conf);
	*conf = kconfig_confounds(&c);
	o = json_pack("{s:s,s:o,s:o,s:s?}", "source", guest ? "guest" : "build",
		      "verified", guest && k->build_config
					  ? json_boolean(!strcmp(guest, k->build_config))
					  : json_null(),
		      "options", kconfig_subset(&c, k->frags, k->frags ? k->v.nr_fragments : 0),
		      "guest_error", g && !guest && g->config_error[0] ? g->config_error : NULL);
	kconfig_free(&c);
	if (json_is_null(json_object_get(o, "guest_error")))
		json_object_del(o, "guest_error"); /* only when the guest sent none */
	return o;
}

json_t *krun_report(const struct krun_kernel *k, const struct guest_log *log)
{
	const struct guest_kernel *g = log && log->kernel.seen ? &log->kernel : NULL;
	json_t *conf = NULL, *cfg = config_json(k, g, &conf);

	return json_pack("{s:s,s:s?,s:s*,s:O*,s:o,s:o,s:o,s:o,s:s*,s:s*}", "label", k->jk->label,
			 "variant", k->is_variant ? k->v.name : NULL, "description",
			 k->is_variant && k->v.description[0] ? k->v.description : NULL,
			 "patches", k->patches,
			 "build", build_json(k), "config", cfg,
			 "confounds", conf ? conf : json_array(), "vma_lock",
			 log ? collect_vma_lock_json(&log->kernel) : json_null(), "image_sha256",
			 k->image_sha256[0] ? k->image_sha256 : NULL, "config_sha256",
			 k->config_sha256[0] ? k->config_sha256 : NULL);
}

void krun_free(struct krun *kr)
{
	for (unsigned i = 0; kr->k && i < kr->n; i++) {
		struct krun_kernel *k = &kr->k[i];

		for (unsigned f = 0; k->frags && f < k->v.nr_fragments; f++)
			kconfig_free(&k->frags[f]);
		free(k->frags);
		free(k->build_config);
		kernel_artifact_free(&k->art);
		kvariant_free(&k->v);
		json_decref(k->patches);
	}
	free(kr->k);
	memset(kr, 0, sizeof(*kr));
}
