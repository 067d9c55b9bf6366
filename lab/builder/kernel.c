/* Kernel variants -> cached image: lookup, configure, build, store (kernel.h). */
#include "builder/kernel.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "builder/kernel_ctx.h"
#include "builder/kernel_git.h"
#include "builder/kernel_make.h"
#include "builder/kernel_source.h"
#include "util/cachedir.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"
#include "util/spawn.h"
#include "util/text.h"

#define VARIANT_MAX_SIZE (1u << 20)
#define FRAGMENT_MAX (1u << 20)

static const char *const fail_names[] = {
	[KERNEL_OK] = "ok", [KERNEL_FAIL_SOURCE] = "source", [KERNEL_FAIL_PATCH] = "patch",
	[KERNEL_FAIL_CONFIG] = "config", [KERNEL_FAIL_BUILD] = "build",
	[KERNEL_FAIL_INTERRUPTED] = "interrupted", [KERNEL_FAIL_LAB] = "lab",
};

const char *kernel_fail_name(enum kernel_fail f)
{
	return (unsigned)f < sizeof(fail_names) / sizeof(fail_names[0]) ? fail_names[f] : "?";
}

/* No variant ref in kernels/: where it was looked for, and the nearest name there. */
static int variant_unknown(const char *ref, const char *vdir, const char *path,
			   struct lab_error *err)
{
	char names[128][64];
	const char *ptr[128], *near;
	size_t n = fs_json_names(vdir, names, 128);

	for (size_t i = 0; i < n; i++)
		ptr[i] = names[i];
	near = text_nearest(ref, ptr, n);
	return error_set(err, "", "no kernel variant \"%s\" (looked for %s)%s%s%s; see 'lab kernel "
			 "list'", ref, path, near ? ": did you mean \"" : "", near ? near : "",
			 near ? "\"?" : "");
}

void kernel_cache_dir(const char *opt, char *buf, size_t len)
{
	cachedir_pick(opt, "LAB_KERNEL_CACHE", "kernels", buf, len);
}

int kernel_variants_dir(char *buf, size_t len)
{
	return checkout_find("kernels", buf, len);
}

/* The files a variant names must exist before anything starts. */
/* The most of a patch the lab reads to check it is one (patch(1) reads it all at build). */
#define PATCH_MAX (64u << 20)

/* The files a variant names exist, and its local patches are patches (a junk file is bad
 * input here, before anything is built or booted). */
static int check_files(const struct kvariant *v, struct lab_error *err)
{
	char p[64];

	if (v->src.type == KSRC_DEBIAN && !fs_exists(v->src.path))
		return error_set(err, "source.debian", "%s is missing (apt-get install %s, or "
				 "make deps)", v->src.path, v->src.package);
	if (v->src.type == KSRC_GIT && !fs_exists(v->src.path))
		return error_set(err, "source.git", "no such directory: %s", v->src.path);
	for (unsigned i = 0; i < v->nr_patches; i++) {
		snprintf(p, sizeof(p), "patches[%u]", i);
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		char why[128];
		int r;

		if (v->patches[i].url[0])
			continue;
		if ((r = fs_read_file(v->patches[i].path, PATCH_MAX, &text, &len)) < 0)
			return error_set(err, p, "cannot read %s: %s", v->patches[i].path,
					 r == -EFBIG ? "larger than 64 MiB" : strerror(-r));
		if (kpatch_check_text(text, len, why, sizeof(why)) < 0)
			return error_set(err, p, "%s: %s", v->patches[i].path, why);
	}
	for (unsigned i = 0; i < v->nr_fragments; i++) {
		snprintf(p, sizeof(p), "config[%u]", i);
		if (access(v->fragments[i], R_OK) < 0)
			return error_set(err, p, "cannot read %s: %s", v->fragments[i],
					 strerror(errno));
	}
	return 0;
}

/* A variant's file from its reference: a name in kernels/, or a path (from base_dir). */
static int variant_path(const char *ref, const char *base_dir, char *path, size_t len,
			struct lab_error *err)
{
	char vdir[PATH_MAX];
	size_t n = strlen(ref);

	if (strchr(ref, '/') || (n > 5 && !strcmp(ref + n - 5, ".json"))) {
		snprintf(path, len, "%s%s%s", ref[0] == '/' ? "" : base_dir, ref[0] == '/' ? "" : "/",
			 ref);
		return 0;
	}
	if (kernel_variants_dir(vdir, sizeof(vdir)) < 0)
		return error_set(err, "", "cannot find the kernels/ directory");
	snprintf(path, len, "%s/%s.json", vdir, ref);
	return fs_exists(path) ? 0 : variant_unknown(ref, vdir, path, err);
}

/* How deep "extends" may chain (a loop ends here too). */
#define VARIANT_EXTENDS_MAX 8

/* The variant's JSON with every "extends" resolved (kvariant_extend), its name and the
 * directory its own relative paths start from. */
static int variant_json(const char *ref, const char *base_dir, int depth, json_t **out,
			char *name, size_t nlen, char **dir, struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL, *bj = NULL;
	_cleanup_free_ char *bdir = NULL;
	char path[PATH_MAX + 64], bname[128];
	const char *base, *ext;
	int r;

	if ((r = variant_path(ref, base_dir, path, sizeof(path), err)) < 0)
		return r;
	error_set_file(err, path);
	if ((r = jsonio_load_file(path, VARIANT_MAX_SIZE, &j, err)) < 0)
		return r;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	snprintf(name, nlen, "%.*s", (int)(strlen(base) > 5 ? strlen(base) - 5 : 0), base);
	if (!(*dir = fs_dirname(path)))
		return -ENOMEM;
	ext = json_string_value(json_object_get(j, "extends"));
	if (!json_object_get(j, "extends")) {
		*out = json_incref(j);
		return 0;
	}
	if (!ext || depth >= VARIANT_EXTENDS_MAX)
		return error_set(err, "extends", ext ? "more than %d variants deep (a loop?)"
						     : "must be a variant name or path",
				 VARIANT_EXTENDS_MAX);
	if ((r = variant_json(ext, *dir, depth + 1, &bj, bname, sizeof(bname), &bdir, err)) < 0)
		return r;
	error_set_file(err, path);
	return kvariant_extend(bj, bdir, j, name, out, err);
}

int kernel_variant_flat(const char *ref, const char *base_dir, json_t **out, char *name,
			size_t nlen, char **dir, struct lab_error *err)
{
	return variant_json(ref, base_dir, 0, out, name, nlen, dir, err);
}

int kernel_variant_load(const char *ref, const char *base_dir, struct kvariant *v,
			struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL;
	_cleanup_free_ char *dir = NULL;
	char name[128];
	int r;

	memset(v, 0, sizeof(*v));
	if ((r = variant_json(ref, base_dir, 0, &j, name, sizeof(name), &dir, err)) < 0)
		return r;
	if ((r = kvariant_from_json(j, name, dir, v, err)) < 0)
		return r;
	if ((r = check_files(v, err)) < 0)
		kvariant_free(v);
	return r;
}

/* ---- context ---------------------------------------------------------------------------- */

static int compiler_version(struct kctx *c)
{
	static char cached[256];
	char *argv[] = { "gcc", "--version", NULL };
	_cleanup_free_ char *out = NULL;
	int st = 0, r;

	if (!cached[0]) {
		r = spawn_capture(argv, 4096, 30, &out, &st);
		if (r < 0 || st != 0)
			return kctx_fail(c, KERNEL_FAIL_LAB, r < 0 ? r : -ENOENT, "cannot run gcc "
					 "--version (install build-essential)");
		snprintf(cached, sizeof(cached), "%.*s", (int)strcspn(out, "\n"), out);
	}
	snprintf(c->compiler, sizeof(c->compiler), "%s", cached);
	return 0;
}

static int read_fragments(struct kctx *c)
{
	for (unsigned i = 0; i < c->v->nr_fragments; i++) {
		struct lab_error err = { 0 };
		size_t len = 0;
		int r = fs_read_file(c->v->fragments[i], FRAGMENT_MAX, &c->frag_text[i], &len);

		if (r < 0)
			return kctx_fail(c, KERNEL_FAIL_CONFIG, r, "config[%u]: cannot read %s: %s", i,
					 c->v->fragments[i], strerror(-r));
		if ((r = kconfig_parse(c->frag_text[i], 1, &c->frags[i], &err)) < 0)
			return kctx_fail(c, KERNEL_FAIL_CONFIG, r, "%s: %s", c->v->fragments[i],
					 err.msg);
		if ((r = sha256_hex(c->frag_text[i], len, c->frag_sha[i])) < 0)
			return kctx_fail(c, KERNEL_FAIL_LAB, r, "sha256 failed");
	}
	return 0;
}

static struct kkey_input key_input(struct kctx *c, const char *const *psha,
				   const char *const *fsha, const char *config_sha)
{
	return (struct kkey_input){ .source_id = c->source_id, .patch_sha256 = psha,
				    .nr_patches = c->v->nr_patches, .config_sha256 = config_sha,
				    .base = c->v->base, .fragment_sha256 = fsha,
				    .nr_fragments = c->v->nr_fragments, .compiler = c->compiler };
}

/* Everything the recipe key needs: source identity, patches, fragments, compiler. */
static int kctx_init(struct kctx *c, const struct kvariant *v, const struct kernel_build_opts *o,
		     struct kernel_artifact *a)
{
	unsigned np = v->nr_patches ? v->nr_patches : 1, nf = v->nr_fragments;
	const char **psha, **fsha;
	int r;

	memset(a, 0, sizeof(*a));
	memset(c, 0, sizeof(*c));
	c->v = v, c->o = o, c->a = a;
	kernel_cache_dir(o->cache_dir, c->cache, sizeof(c->cache));
	c->patch_file = calloc(np, sizeof(*c->patch_file));
	c->patch_sha = calloc(np, sizeof(*c->patch_sha));
	c->frag_text = calloc(nf, sizeof(*c->frag_text));
	c->frags = calloc(nf, sizeof(*c->frags));
	c->frag_sha = calloc(nf, sizeof(*c->frag_sha));
	psha = calloc(np, sizeof(*psha));
	fsha = calloc(nf, sizeof(*fsha));
	if (!c->patch_file || !c->patch_sha || !c->frag_text || !c->frags || !c->frag_sha ||
	    !psha || !fsha) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = compiler_version(c)) < 0 || (r = ksource_identity(c)) < 0 ||
	    (r = ksource_patches(c)) < 0 || (r = read_fragments(c)) < 0)
		goto out;
	for (unsigned i = 0; i < v->nr_patches; i++)
		psha[i] = c->patch_sha[i];
	for (unsigned i = 0; i < nf; i++)
		fsha[i] = c->frag_sha[i];
	struct kkey_input in = key_input(c, psha, fsha, NULL);

	if ((r = kkey_recipe(&in, c->recipe)) == 0 && (r = kkey_source(&in, c->srckey)) == 0) {
		if (v->src.type == KSRC_GIT)
			r = kgit_key(c);
		else
			snprintf(c->tree_key, sizeof(c->tree_key), "%s", c->srckey);
	}
out:
	free(psha);
	free(fsha);
	if (r < 0 && !a->fail)
		kctx_fail(c, KERNEL_FAIL_LAB, r, "%s", strerror(-r));
	return r;
}

/* ---- the cache ------------------------------------------------------------------------------ */

static void copy_sha256(const json_t *j, const char *key, char out[65])
{
	const char *t = json_string_value(json_object_get(j, key));

	out[0] = '\0';
	if (t && strlen(t) == 64 && strspn(t, "0123456789abcdef") == 64)
		snprintf(out, 65, "%s", t);
}

/* A cache hit says what a fresh build says: the .text hash from meta.json ("" for an
 * artifact stored before it was recorded, or without one), and the image's own hash. */
static void read_text_sha256(struct kernel_artifact *a)
{
	_cleanup_free_ char *path = fs_join(a->dir, "meta.json");
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };

	a->text_sha256[0] = a->image_sha256[0] = '\0';
	if (!path || jsonio_load_file(path, 1u << 20, &j, &err) < 0)
		return;
	copy_sha256(j, "text_sha256", a->text_sha256);
	copy_sha256(j, "image_sha256", a->image_sha256);
}

/* A cached image truncated or altered since it was stored is never booted: 1 when it
 * matches the sha256 recorded with it (or none was recorded), else 0, said as progress. */
static int image_intact(struct kctx *c)
{
	char got[65];

	if (!c->a->image_sha256[0])
		return 1;
	if (sha256_file_hex(c->a->image, got) == 0 && !strcmp(got, c->a->image_sha256))
		return 1;
	kctx_progress(c, "%s: the cached %s does not match its recorded sha256 (truncated or "
		      "altered); rebuilding it", c->v->name, c->a->image);
	return 0;
}

/* An artifact holds the one image its build boots (kconfig_boot_image): vmlinux for a PVH
 * build, else bzImage; one with neither yet (about to be built) is named bzImage. */
static void set_image(struct kernel_artifact *a)
{
	snprintf(a->image, sizeof(a->image), "%s/%s", a->dir, KCONFIG_IMAGE_PVH);
	if (!fs_exists(a->image))
		snprintf(a->image, sizeof(a->image), "%s/%s", a->dir, KCONFIG_IMAGE_BZ);
}

static void fill_paths(struct kctx *c, const char *key)
{
	struct kernel_artifact *a = c->a;
	_cleanup_free_ char *rel = NULL, *path = NULL;

	snprintf(a->key, sizeof(a->key), "%s", key);
	snprintf(a->dir, sizeof(a->dir), "%s/artifacts/%s", c->cache, key);
	set_image(a);
	snprintf(a->config, sizeof(a->config), "%s/config", a->dir);
	snprintf(a->log, sizeof(a->log), "%s/build.log", a->dir);
	path = fs_join(a->dir, "release");
	if (path && fs_read_file(path, 256, &rel, NULL) == 0)
		snprintf(a->release, sizeof(a->release), "%.*s", (int)strcspn(rel, "\n"), rel);
	read_text_sha256(a);
}

static int index_path(struct kctx *c, char *buf, size_t len)
{
	return snprintf(buf, len, "%s/index/%s", c->cache, c->recipe) < (int)len ? 0 : -ENAMETOOLONG;
}

/* 1 when the recipe maps to a complete artifact. */
static int lookup(struct kctx *c)
{
	_cleanup_free_ char *key = NULL;
	char idx[PATH_MAX + 96];

	if (index_path(c, idx, sizeof(idx)) < 0 || fs_read_file(idx, 128, &key, NULL) < 0)
		return 0;
	key[strcspn(key, "\n")] = '\0';
	if (strlen(key) != 64 || strspn(key, "0123456789abcdef") != 64)
		return 0;
	fill_paths(c, key);
	if (!fs_exists(c->a->image) || !image_intact(c))
		return 0;
	c->a->cached = 1;
	return 1;
}

static int write_index(struct kctx *c)
{
	char idx[PATH_MAX + 96], dir[PATH_MAX + 16], line[80];
	int r;

	snprintf(dir, sizeof(dir), "%s/index", c->cache);
	if ((r = fs_mkdir_p(dir, 0755)) < 0 || (r = index_path(c, idx, sizeof(idx))) < 0)
		return r;
	snprintf(line, sizeof(line), "%s\n", c->a->key);
	return fs_write_atomic(idx, line, strlen(line));
}

int kernel_lookup(const struct kvariant *v, const struct kernel_build_opts *o,
		  struct kernel_artifact *a)
{
	struct kctx c;
	int r = kctx_init(&c, v, o, a);

	if (r == 0)
		r = lookup(&c);
	kctx_free(&c);
	return r;
}

void kernel_artifact_free(struct kernel_artifact *a)
{
	free(a->log_tail);
	a->log_tail = NULL;
}

/* ---- building ------------------------------------------------------------------------------- */

static void say_waiting(void *ud)
{
	struct kctx *c = ud;

	kctx_progress(c, "%s: waiting for another build of it to finish", c->v->name);
}

/* An flock on locks/NAME; waits (saying so) when another lab holds it. */
static int take_lock(struct kctx *c, const char *name, int *fd)
{
	char path[PATH_MAX + 96];

	int r;

	snprintf(path, sizeof(path), "%s/locks/%s.lock", c->cache, name);
	r = fs_lock_wait(path, c->o->interrupt, say_waiting, c, fd);
	if (r == -EINTR)
		return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted");
	if (r < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot open %s: %s", path, strerror(-r));
	return 0;
}

static int write_synced(const char *path, const void *data, size_t len)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const char *p = data;

	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w, len -= (size_t)w;
	}
	return fsync(fd) < 0 ? -errno : 0;
}

static int copy_synced(const char *from, const char *to)
{
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	int r = fs_read_file(from, 256u << 20, &data, &len);

	return r < 0 ? r : write_synced(to, data, len);
}

/* How many of the variant's requested options a sibling's .config lacks (x 100000, plus the
 * options it sets): the smaller, the less Kbuild rebuilds after copying it.  -1 when the sibling is not usable (never built, or
 * built from another source tree: its .cmd files name that tree's files, so a git variant,
 * whose checkout is its own, never starts from a sibling's objects). */
static long sibling_distance(struct kctx *c, const char *sib, const char *tree_key)
{
	/* The config the tree's objects were built with: .config may have been rewritten since
	 * by a configure that found its artifact in the cache. */
	_cleanup_free_ char *m = NULL, *vml = fs_join(sib, "vmlinux");
	_cleanup_free_ char *cfg = fs_join(sib, ".numalab-built-config");
	_cleanup_free_ char *text = NULL, *mpath = fs_join(sib, ".numalab-src");
	const char **names = calloc(c->v->nr_fragments + 1, sizeof(*names));
	struct lab_error err = { 0 };
	struct kmismatch mm[1];
	struct kconfig k;
	long d = -1;

	if (names && vml && cfg && mpath && fs_exists(vml) &&
	    fs_read_file(mpath, 128, &m, NULL) == 0 && !strcmp(m, tree_key) &&
	    fs_read_file(cfg, KCONFIG_MAX_TEXT, &text, NULL) == 0 &&
	    kconfig_parse(text, 0, &k, &err) == 0) {
		for (unsigned i = 0; i < c->v->nr_fragments; i++)
			names[i] = c->v->fragments[i];
		/* Ties (siblings that lack none of ours: baseline and a debug variant built with
		 * more) go to the one with the fewest options set, the nearest to what
		 * tinyconfig + our fragments gives. */
		d = (long)kconfig_check(c->frags, names, c->v->nr_fragments, &k, mm, 1) * 100000;
		for (unsigned i = 0; i < k.n; i++)
			d += strcmp(k.opts[i].value, "n") != 0;
		kconfig_free(&k);
	}
	free(names);
	return d;
}

/* The nearest sibling of the variant's O= tree under src (a source tree whose objects carry
 * tree_key): its name in best, its distance returned, -1 if none. */
static long nearest_sibling(struct kctx *c, const char *src, const char *tree_key,
			    char best[256])
{
	char sib[PATH_MAX + 300];
	long best_d = -1;
	struct dirent *e;
	DIR *d = opendir(src);

	while (d && (e = readdir(d)) != NULL) {
		long dist;

		if (strncmp(e->d_name, KERNEL_OBJ_PREFIX, strlen(KERNEL_OBJ_PREFIX)) ||
		    (src == c->src_dir &&
		     !strcmp(e->d_name + strlen(KERNEL_OBJ_PREFIX), c->v->name)) ||
		    strstr(e->d_name, ".tmp-"))
			continue;
		snprintf(sib, sizeof(sib), "%s/%s", src, e->d_name);
		dist = sibling_distance(c, sib, tree_key);
		if (dist >= 0 && (best_d < 0 || dist < best_d)) {
			best_d = dist;
			snprintf(best, 256, "%s", e->d_name + strlen(KERNEL_OBJ_PREFIX));
		}
	}
	if (d)
		closedir(d);
	return best_d;
}

/* Start a new variant's O= tree from the sibling built from the same source whose config is
 * nearest: Kbuild then only rebuilds what the config difference touches.  Siblings are the
 * O- trees beside it in the same source tree or, when there are none, in the tree this one
 * was made from (ksource_tree): then the files this tree's own patches changed are made newer
 * than every copied object first, so Kbuild recompiles what they touch. */
static void seed_obj(struct kctx *c)
{
	char sib[PATH_MAX + 300], best[256] = "", tmp[PATH_MAX + 128], pdir[PATH_MAX + 96];
	char lpath[PATH_MAX + 300], pkey[65];
	const char *from = c->src_dir;
	_cleanup_close_ int lk = -1;
	long best_d = nearest_sibling(c, c->src_dir, c->tree_key, best);

	if (best_d < 0 && c->v->src.type != KSRC_GIT &&
	    ksource_parent(c, pdir, sizeof(pdir)) == 0) {
		snprintf(pkey, sizeof(pkey), "%s", strrchr(pdir, '/') + 1);
		best_d = nearest_sibling(c, pdir, pkey, best);
		from = pdir;
	}
	if (best_d < 0)
		return;
	/* Never copy a tree that another lab is building right now. */
	snprintf(lpath, sizeof(lpath), "%s/locks/obj-%s.lock", c->cache, best);
	lk = open(lpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lk < 0 || flock(lk, LOCK_SH | LOCK_NB) < 0)
		return;
	snprintf(sib, sizeof(sib), "%s/%s%s", from, KERNEL_OBJ_PREFIX, best);
	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", c->obj_dir, (long)getpid());
	char *argv[] = { "cp", "-a", "--reflink=auto", sib, tmp, NULL };
	struct spawn_job s = { .argv = argv, .log_fd = -1 };
	int st = 0;

	if (from == c->src_dir)
		kctx_progress(c, "%s: starting from %s's build tree (same source, %ld option(s) "
			      "apart)", c->v->name, best, best_d / 100000);
	else
		kctx_progress(c, "%s: starting from %s's build tree (its source without this "
			      "variant's last patches, %ld option(s) apart)", c->v->name, best,
			      best_d / 100000);
	if (kctx_spawn(c, &s, &st) < 0 || st != 0 ||
	    (from != c->src_dir && ksource_freshen(c, from) < 0) || rename(tmp, c->obj_dir) < 0)
		fs_rm_rf(tmp); /* no seed: the build starts from scratch, still correct */
}

/* The variant's O= tree, started afresh when the source tree it was built from is another
 * (its marker holds the tree key: a new SRCKEY for a tarball; for a git source its checkout's
 * key, the same at every commit, so Kbuild rebuilds only what a new commit changed). */
static int prepare_obj(struct kctx *c)
{
	char marker[PATH_MAX + 128];
	_cleanup_free_ char *m = NULL;
	int r;

	/* Inside the source tree, one level down: Kbuild then names every source file relative
	 * ("../mm/memory.c", srctree ".."), so two trees with the same files compile to the same
	 * ccache entries wherever they are (a bisection's checkout and baseline's tarball tree),
	 * and the .cmd files stay valid when a tree is copied. */
	snprintf(c->obj_dir, sizeof(c->obj_dir), "%s/%s%s", c->src_dir, KERNEL_OBJ_PREFIX,
		 c->v->name);
	snprintf(marker, sizeof(marker), "%s/.numalab-src", c->obj_dir);
	if (fs_exists(c->obj_dir) && (fs_read_file(marker, 128, &m, NULL) < 0 ||
				       strcmp(m, c->tree_key))) {
		kctx_progress(c, "%s: the source changed, starting a clean build tree", c->v->name);
		if ((r = fs_rm_rf(c->obj_dir)) < 0)
			return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot remove %s", c->obj_dir);
	}
	if (!fs_exists(c->obj_dir))
		seed_obj(c);
	if ((r = fs_mkdir_p(c->obj_dir, 0755)) < 0 ||
	    (r = fs_write_atomic(marker, c->tree_key, strlen(c->tree_key))) < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot prepare %s", c->obj_dir);
	return 0;
}

static json_t *meta_json(struct kctx *c, double build_s)
{
	json_t *patches = json_array(), *frags = json_array();

	for (unsigned i = 0; patches && i < c->v->nr_patches; i++)
		json_array_append_new(patches, json_pack("{s:s,s:s}", "file",
			c->v->patches[i].url[0] ? c->v->patches[i].url : c->v->patches[i].path,
			"sha256", c->patch_sha[i]));
	for (unsigned i = 0; frags && i < c->v->nr_fragments; i++)
		json_array_append_new(frags, json_pack("{s:s,s:s}", "file", c->v->fragments[i],
						       "sha256", c->frag_sha[i]));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:o,s:s,s:s,s:f,s:s*,s:s}", "schema",
			 "numalab.kernel/1", "variant", c->v->name, "key", c->a->key, "recipe",
			 c->recipe, "source", c->source_id, "patches", patches, "base",
			 c->v->base, "fragments", frags, "compiler", c->compiler, "release",
			 c->a->release, "build_s", build_s, "text_sha256",
			 c->a->text_sha256[0] ? c->a->text_sha256 : NULL, "image_sha256",
			 c->a->image_sha256);
}

/* artifacts/.tmp-KEY-PID with every file synced, then one rename. */
static int store(struct kctx *c, const char *final, const char *log, double build_s)
{
	char stage[PATH_MAX + 128], f[PATH_MAX + 160], from[PATH_MAX + 160], image[PATH_MAX + 160];
	_cleanup_free_ char *rel = NULL, *meta = NULL;
	_cleanup_json_ json_t *mj = NULL;
	const char *name = kconfig_boot_image(final);
	int r;

	if (!strcmp(name, KCONFIG_IMAGE_PVH))
		snprintf(image, sizeof(image), "%s/vmlinux", c->obj_dir);
	else
		snprintf(image, sizeof(image), "%s/arch/x86/boot/bzImage", c->obj_dir);
	if ((r = sha256_file_hex(image, c->a->image_sha256)) < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot hash %s: %s", image, strerror(-r));
	snprintf(from, sizeof(from), "%s/include/config/kernel.release", c->obj_dir);
	if (fs_read_file(from, 256, &rel, NULL) == 0)
		snprintf(c->a->release, sizeof(c->a->release), "%.*s", (int)strcspn(rel, "\n"),
			 rel);
	mj = meta_json(c, build_s);
	meta = mj ? jsonio_dumps(mj) : NULL;
	if (!meta)
		return kctx_fail(c, KERNEL_FAIL_LAB, -ENOMEM, "out of memory");
	snprintf(stage, sizeof(stage), "%s/artifacts/.tmp-%s-%ld", c->cache, c->a->key,
		 (long)getpid());
	fs_rm_rf(stage);
	r = fs_mkdir_p(stage, 0755);
#define STAGE(file) (snprintf(f, sizeof(f), "%s/%s", stage, file), f)
	if (r == 0)
		r = copy_synced(image, STAGE(name));
	if (r == 0)
		r = write_synced(STAGE("config"), final, strlen(final));
	if (r == 0)
		r = copy_synced(log, STAGE("build.log"));
	if (r == 0)
		r = write_synced(STAGE("release"), c->a->release, strlen(c->a->release));
	if (r == 0)
		r = write_synced(STAGE("meta.json"), meta, strlen(meta));
#undef STAGE
	if (r == 0 && rename(stage, c->a->dir) < 0 && errno != ENOTEMPTY && errno != EEXIST)
		r = -errno;
	fs_rm_rf(stage); /* gone after the rename; left only when another lab was first */
	if (r < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot store the artifact in %s: %s",
				 c->a->dir, strerror(-r));
	set_image(c->a);
	return write_index(c);
}

static int failed_build(struct kctx *c, const char *log)
{
	char keep[PATH_MAX + 160], stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(keep, sizeof(keep), "%s/logs/%s-%s.log", c->cache, c->v->name, stamp);
	if (copy_synced(log, keep) < 0)
		snprintf(keep, sizeof(keep), "%s", log);
	snprintf(c->a->log, sizeof(c->a->log), "%s", keep);
	c->a->log_tail = kbuild_log_tail(keep, KERNEL_LOG_TAIL_LINES);
	return -EIO;
}

/* Whether the O= tree's objects were last built (or copied from a build) with this .config:
 * then the build is what the source changed, no more.  The record goes either way: the
 * objects are about to change. */
static int same_built_config(const char *built, const char *final)
{
	_cleanup_free_ char *last = NULL;
	int same = fs_read_file(built, KCONFIG_MAX_TEXT, &last, NULL) == 0 && !strcmp(last, final);

	unlink(built);
	return same;
}

static int configure_and_build(struct kctx *c, double t0)
{
	_cleanup_free_ char *final = NULL;
	const char **psha = calloc(c->v->nr_patches + 1, sizeof(*psha));
	char cfg_sha[65], key[65], log[PATH_MAX + 128], built[PATH_MAX + 128];
	struct kkey_input in;
	int r;

	if (!psha)
		return -ENOMEM;
	for (unsigned i = 0; i < c->v->nr_patches; i++)
		psha[i] = c->patch_sha[i];
	r = c->v->src.type == KSRC_GIT ? kgit_tree(c) : ksource_tree(c);
	if (r < 0 || (r = prepare_obj(c)) < 0 ||
	    (r = kbuild_configure(c, &final)) < 0)
		goto out;
	in = key_input(c, psha, NULL, cfg_sha);
	if ((r = sha256_hex(final, strlen(final), cfg_sha)) < 0 || (r = kkey_artifact(&in, key)) < 0)
		goto out;
	fill_paths(c, key);
	/* A damaged artifact goes, so that the new one can take its place. */
	if (fs_exists(c->a->image) && !image_intact(c) && (r = fs_rm_rf(c->a->dir)) < 0) {
		kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot remove %s: %s", c->a->dir, strerror(-r));
		goto out;
	}
	if (fs_exists(c->a->image) && !c->o->force) {
		/* Same final .config as a build we have (e.g. an edited fragment that changed
		 * nothing): reuse it. */
		c->a->cached = 1;
		r = write_index(c);
		goto out;
	}
	snprintf(log, sizeof(log), "%s/numalab-build.log", c->obj_dir);
	snprintf(built, sizeof(built), "%s/.numalab-built-config", c->obj_dir);
	/* Only the image it boots: a PVH build's vmlinux needs no compressed bzImage (the
	 * decompressor, the set-up code, the compression: 2 s of an incremental build, some 45
	 * of a full build's steps). */
	r = kbuild_make(c, kconfig_boot_image(final), log, !same_built_config(built, final));
	if (r < 0 && c->a->fail == KERNEL_FAIL_BUILD)
		r = failed_build(c, log);
	if (r == 0)
		r = fs_write_atomic(built, final, strlen(final));
	if (r == 0)
		r = kbuild_config_record(c, final);
	if (r == 0)
		r = kbuild_text_sha256(c, c->a->text_sha256);
	if (r == 0)
		r = store(c, final, log, clock_now_s() - t0);
	if (r == 0)
		snprintf(c->a->log, sizeof(c->a->log), "%s/build.log", c->a->dir);
out:
	free(psha);
	return r;
}

int kernel_check_patches(const struct kvariant *v, const struct kernel_build_opts *o,
			 int may_extract, struct kernel_artifact *a)
{
	static const char *const dirs[] = { "locks", "src", NULL };
	char d[PATH_MAX + 32];
	struct kctx c;
	int r;

	if (v->src.type == KSRC_GIT || !v->nr_patches) { /* a checkout applies them at build */
		memset(a, 0, sizeof(*a));
		return 1;
	}
	if ((r = kctx_init(&c, v, o, a)) < 0 || lookup(&c))
		goto out; /* built before: its patches applied then */
	if (!may_extract && !ksource_tree_cheap(&c)) {
		r = 1;
		goto out;
	}
	for (unsigned i = 0; r == 0 && dirs[i]; i++) {
		snprintf(d, sizeof(d), "%s/%s", c.cache, dirs[i]);
		if ((r = fs_mkdir_p(d, 0755)) < 0)
			kctx_fail(&c, KERNEL_FAIL_LAB, r, "cannot create %s: %s", d, strerror(-r));
	}
	if (r == 0)
		r = ksource_tree(&c);
out:
	kctx_free(&c);
	return r;
}

int kernel_build(const struct kvariant *v, const struct kernel_build_opts *o,
		 struct kernel_artifact *a)
{
	static const char *const dirs[] = { "locks", "src", "artifacts", "logs", NULL };
	char lockname[128], d[PATH_MAX + 32];
	_cleanup_close_ int lk = -1;
	double t0 = clock_now_s();
	struct kctx c;
	int r = kctx_init(&c, v, o, a);

	if (r == 0 && !o->force && lookup(&c))
		goto out;
	for (unsigned i = 0; r == 0 && dirs[i]; i++) {
		snprintf(d, sizeof(d), "%s/%s", c.cache, dirs[i]);
		if ((r = fs_mkdir_p(d, 0755)) < 0)
			kctx_fail(&c, KERNEL_FAIL_LAB, r, "cannot create %s: %s (set "
				  "LAB_KERNEL_CACHE or --cache)", d, strerror(-r));
	}
	/* Older labs kept O= trees in obj/: nothing reads them now, and they are gigabytes. */
	snprintf(d, sizeof(d), "%s/obj", c.cache);
	if (r == 0 && fs_exists(d)) {
		kctx_progress(&c, "removing %s: build trees of an older lab (they now live in "
			      "their source tree, src/*/%sVARIANT)", d, KERNEL_OBJ_PREFIX);
		fs_rm_rf(d);
	}
	snprintf(lockname, sizeof(lockname), "obj-%s", v->name);
	if (r == 0)
		r = take_lock(&c, lockname, &lk);
	/* Another lab may have built it while we waited for the lock. */
	if (r == 0 && !(!o->force && lookup(&c)))
		r = configure_and_build(&c, t0);
	a->build_s = a->cached ? 0 : clock_now_s() - t0;
out:
	kctx_free(&c);
	return r;
}
