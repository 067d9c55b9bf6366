/* Kernel sources: their identity (what the cache key says about them), downloads (libcurl,
 * checked by sha256), patches, and the extracted, patched tree under src/SRCKEY of a Debian or
 * URL tarball (builder/kernel_source.h; a git source is a checkout: builder/kernel_git.c). */
#include "builder/kernel_source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/fetch.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/spawn.h"
#include "util/text.h"


/* Hashing a 150 MB tarball costs ~0.5 s: remember the hash per (path, size, mtime, inode), so
 * that a cache hit stays well under a second. */
static int tarball_sha256(struct kctx *c, const char *path, char out[65])
{
	_cleanup_free_ char *memo = NULL, *text = NULL, *dir = NULL;
	char key[65], want[512];
	struct stat st;
	int r;

	if (stat(path, &st) < 0)
		return -errno;
	snprintf(want, sizeof(want), "%s %lld %lld.%09ld %llu\n", path, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
	if ((r = sha256_hex(path, strlen(path), key)) < 0)
		return r;
	if (asprintf(&dir, "%s/srcid", c->cache) < 0 || asprintf(&memo, "%s/%s", dir, key) < 0)
		return -ENOMEM;
	if (fs_read_file(memo, 4096, &text, NULL) == 0 && strlen(text) == strlen(want) + 65 &&
	    !strncmp(text, want, strlen(want))) {
		snprintf(out, 65, "%.64s", text + strlen(want));
		return 0;
	}
	kctx_progress(c, "%s: hashing %s (once per tarball)", c->v->name, path);
	if ((r = sha256_file_hex(path, out)) < 0)
		return r;
	free(text);
	if (asprintf(&text, "%s%s\n", want, out) < 0)
		return -ENOMEM;
	if (fs_mkdir_p(dir, 0755) == 0)
		fs_write_atomic(memo, text, strlen(text));
	return 0;
}

static int git_commit(struct kctx *c, char out[41])
{
	char spec[300];
	char *argv[] = { "git", "-C", (char *)c->v->src.path, "rev-parse", "--verify", "-q",
			 spec, NULL };
	_cleanup_free_ char *o = NULL;
	int st = 0, r;

	snprintf(spec, sizeof(spec), "%s^{commit}", c->v->src.ref);
	r = spawn_capture(argv, 4096, 60, &o, &st);
	if (r < 0 || st != 0 || strlen(o) < 40 || strspn(o, "0123456789abcdef") < 40)
		return kctx_fail(c, KERNEL_FAIL_SOURCE, r < 0 ? r : -ENOENT, "source: %s has no "
				 "commit \"%s\"", c->v->src.path, c->v->src.ref);
	snprintf(out, 41, "%.40s", o);
	return 0;
}

int ksource_identity(struct kctx *c)
{
	const struct ksrc *s = &c->v->src;
	char sha[65], commit[41];
	int r;

	switch (s->type) {
	case KSRC_DEBIAN:
		if ((r = tarball_sha256(c, s->path, sha)) < 0)
			return kctx_fail(c, KERNEL_FAIL_SOURCE, r, "source: cannot read %s (apt-get "
					 "install %s): %s", s->path, s->package, strerror(-r));
		snprintf(c->source_id, sizeof(c->source_id), "debian:%s:sha256:%s", s->package, sha);
		break;
	case KSRC_GIT:
		if ((r = git_commit(c, commit)) < 0)
			return r;
		/* builder/kernel_git.c reads the commit back from here. */
		snprintf(c->source_id, sizeof(c->source_id), "git:%s", commit);
		break;
	case KSRC_URL:
		snprintf(c->source_id, sizeof(c->source_id), "tarball:sha256:%s", s->sha256);
		break;
	}
	snprintf(c->a->source_id, sizeof(c->a->source_id), "%s", c->source_id);
	return 0;
}

/* ---- downloads ------------------------------------------------------------------------------ */

/* A download kept under downloads/SHA256 (fetched once, shared by all variants). */
static int download(struct kctx *c, const char *url, const char *sha256, char *path,
		    size_t len, const char *what)
{
	char dir[PATH_MAX + 16], why[1024];
	int r;

	snprintf(dir, sizeof(dir), "%s/downloads", c->cache);
	snprintf(path, len, "%s/%s", dir, sha256);
	if (fs_exists(path))
		return 0;
	if ((r = fs_mkdir_p(dir, 0755)) < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot create %s", dir);
	kctx_progress(c, "%s: fetching %s", c->v->name, url);
	r = fetch_url(url, sha256, path, why, sizeof(why));
	if (r < 0)
		return kctx_fail(c, KERNEL_FAIL_SOURCE, r, "%s: %s", what, why);
	return 0;
}

/* A URL patch is known by its declared sha256 (checked when it is fetched), so computing
 * keys and looking up the cache never touches the network; it is fetched to apply it. */
int ksource_patches(struct kctx *c)
{
	for (unsigned i = 0; i < c->v->nr_patches; i++) {
		const struct kpatch *p = &c->v->patches[i];
		char what[64];
		int r;

		snprintf(what, sizeof(what), "patches[%u]", i);
		if (p->url[0]) {
			snprintf(c->patch_file[i], sizeof(c->patch_file[i]), "%s/downloads/%s",
				 c->cache, p->sha256);
			snprintf(c->patch_sha[i], sizeof(c->patch_sha[i]), "%s", p->sha256);
			continue;
		}
		snprintf(c->patch_file[i], sizeof(c->patch_file[i]), "%s", p->path);
		if ((r = sha256_file_hex(c->patch_file[i], c->patch_sha[i])) < 0)
			return kctx_fail(c, KERNEL_FAIL_SOURCE, r, "%s: cannot read %s: %s", what,
					 c->patch_file[i], strerror(-r));
		if (p->sha256[0] && strcmp(p->sha256, c->patch_sha[i]))
			return kctx_fail(c, KERNEL_FAIL_SOURCE, -EINVAL, "%s: %s has sha256 %s, "
					 "expected %s", what, c->patch_file[i], c->patch_sha[i],
					 p->sha256);
	}
	return 0;
}

/* ---- the tree -------------------------------------------------------------------------------- */

static int apply_from(struct kctx *c, const char *dir, unsigned from)
{
	for (unsigned i = from; i < c->v->nr_patches; i++) {
		/* --fuzz=0, as git am: a hunk whose context lines differ from the source is
		 * refused, never applied where it seems to fit (patch's default fuzz of 2 applies
		 * a patch written for another tree to the wrong code without a word). */
		char *argv[] = { "patch", "-p1", "--batch", "--forward", "--fuzz=0",
				 "--no-backup-if-mismatch", "-i", c->patch_file[i], NULL };
		char out[SPAWN_TAIL_MAX], file[256];
		const char *shown = c->v->patches[i].url[0] ? c->v->patches[i].url
							     : c->v->patches[i].path;
		int r;

		if (c->v->patches[i].url[0]) {
			char what[64], path[PATH_MAX + 96];

			snprintf(what, sizeof(what), "patches[%u]", i);
			r = download(c, c->v->patches[i].url, c->v->patches[i].sha256, path,
				     sizeof(path), what);
			if (r < 0)
				return r;
		}
		kctx_progress(c, "%s: applying %s", c->v->name, shown);
		r = kctx_run(c, argv, dir, out, sizeof(out));
		if (r == -EINTR)
			return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted");
		if (r < 0) {
			char hunk[64];

			kpatch_failing_file(out, file, sizeof(file));
			kpatch_failing_hunk(out, hunk, sizeof(hunk));
			if (file[0] != '(')
				return kctx_fail(c, KERNEL_FAIL_PATCH, -EINVAL, "patches[%u] %s does "
						 "not apply: %s fails%s%s%s", i, shown, file,
						 hunk[0] ? " (" : "", hunk, hunk[0] ? ")" : "");
			/* Not a hunk that failed: say what patch said (e.g. a malformed patch). */
			return kctx_fail(c, KERNEL_FAIL_PATCH, -EINVAL, "patches[%u] %s does not "
					 "apply: %s", i, shown, text_last_line(out));
		}
	}
	return 0;
}

static int extract(struct kctx *c, const char *dir);

int ksource_apply_patches(struct kctx *c, const char *dir)
{
	return apply_from(c, dir, 0);
}

/* ---- a tree made from another -----------------------------------------------------------------
 * A variant that is another's patches plus more (every `lab ab PATCH`, baseline + PATCH) starts
 * as hard links to that tree instead of a new extraction, and its O= tree can then start from
 * the other's objects (kernel.c, seed_obj): Kbuild recompiles what the extra patches touch,
 * seconds instead of minutes of ccache hits.  Hard links are safe because nothing writes a
 * source file in place: patch(1) writes a new file and renames it over the link, and Kbuild
 * writes only under O=.  Each tree records its source and patches (.numalab-patches: one
 * sha256 a line) and, when made from another, that tree's key (.numalab-parent). */
#define TREE_PATCHES ".numalab-patches"
#define TREE_PARENT ".numalab-parent"

/* Entries of a tree's top level that are the lab's, not the source's: its O= trees, its
 * markers, trees being made. */
static int lab_entry(const char *n)
{
	return !strncmp(n, KERNEL_OBJ_PREFIX, strlen(KERNEL_OBJ_PREFIX)) ||
	       !strncmp(n, ".numalab-", 9) || !strncmp(n, ".tmp-", 5);
}

/* The variant's first n patches, one sha256 a line. */
static char *patch_list(struct kctx *c, unsigned n)
{
	char *s = calloc(1, (size_t)n * 65 + 1);

	for (unsigned i = 0; s && i < n; i++) {
		memcpy(s + (size_t)i * 65, c->patch_sha[i], 64);
		s[(size_t)i * 65 + 64] = '\n';
	}
	return s;
}

/* A ready tree of the same source whose patches are a proper prefix of the variant's, the one
 * with the most: its key in parent, how many patches it has in *common.  -ENOENT if none. */
static int find_parent(struct kctx *c, char parent[65], unsigned *common)
{
	_cleanup_free_ char *mine = patch_list(c, c->v->nr_patches);
	char dir[PATH_MAX + 32];
	struct dirent *e;
	DIR *d;
	int best = -1;

	if (!mine)
		return -ENOMEM;
	snprintf(dir, sizeof(dir), "%s/src", c->cache);
	if (!(d = opendir(dir)))
		return -ENOENT;
	while ((e = readdir(d)) != NULL) {
		_cleanup_free_ char *id = NULL, *list = NULL;
		char path[PATH_MAX + 160];
		size_t len = 0;

		if (strlen(e->d_name) != 64 || !strcmp(e->d_name, c->srckey))
			continue;
		snprintf(path, sizeof(path), "%s/%s/.numalab-ready", dir, e->d_name);
		if (fs_read_file(path, 256, &id, NULL) < 0 || strcmp(id, c->source_id))
			continue;
		snprintf(path, sizeof(path), "%s/%s/" TREE_PATCHES, dir, e->d_name);
		if (fs_read_file(path, (size_t)c->v->nr_patches * 65 + 1, &list, &len) < 0 ||
		    len % 65 || len >= strlen(mine) || memcmp(list, mine, len) ||
		    (int)(len / 65) <= best)
			continue;
		best = (int)(len / 65);
		snprintf(parent, 65, "%s", e->d_name);
	}
	closedir(d);
	if (best < 0)
		return -ENOENT;
	*common = (unsigned)best;
	return 0;
}

/* Hard-link the parent tree's sources into stage: every top-level entry but its O= trees and
 * the lab's own files. */
static int link_tree(struct kctx *c, const char *from, const char *stage)
{
	struct dirent *e;
	DIR *d = opendir(from);
	int r = d ? 0 : -errno;

	while (r == 0 && (e = readdir(d)) != NULL) {
		char src[PATH_MAX + 300];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || lab_entry(e->d_name))
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, e->d_name);
		char *argv[] = { "cp", "-al", src, (char *)stage, NULL };
		char out[SPAWN_TAIL_MAX];

		if ((r = kctx_run(c, argv, NULL, out, sizeof(out))) == -EINTR)
			r = kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted");
		else if (r < 0)
			kctx_progress(c, "%s: cannot link %s into %s (%s): extracting instead",
				      c->v->name, src, stage, text_last_line(out));
	}
	if (d)
		closedir(d);
	return r;
}

/* Make the stage: from a parent tree when there is one, else from the tarball. */
static int make_tree(struct kctx *c, const char *stage)
{
	char parent[65], pdir[PATH_MAX + 96], mk[PATH_MAX + 128];
	unsigned common = 0;
	int r;

	if (find_parent(c, parent, &common) == 0) {
		snprintf(pdir, sizeof(pdir), "%s/src/%s", c->cache, parent);
		kctx_progress(c, "%s: linking the source tree of its first %u patch(es) (%.12s)",
			      c->v->name, common, parent);
		r = link_tree(c, pdir, stage);
		if (r == 0) {
			snprintf(mk, sizeof(mk), "%s/" TREE_PARENT, stage);
			if ((r = fs_write_atomic(mk, parent, strlen(parent))) < 0)
				return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot write %s", mk);
			return apply_from(c, stage, common);
		}
		/* Hard links refused (another file system, a limit): a tree of its own. */
		if (r == -EINTR || (r = fs_rm_rf(stage)) < 0 || (r = fs_mkdir_p(stage, 0755)) < 0)
			return r == -EINTR ? r
					   : kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot empty %s", stage);
	}
	if ((r = extract(c, stage)) < 0)
		return r;
	snprintf(mk, sizeof(mk), "%s/Makefile", stage);
	if (!fs_exists(mk))
		return kctx_fail(c, KERNEL_FAIL_SOURCE, -ENOENT, "the source has no top-level Makefile");
	return apply_from(c, stage, 0);
}

int ksource_tree_cheap(struct kctx *c)
{
	char ready[PATH_MAX + 160], parent[65];
	unsigned common;

	snprintf(ready, sizeof(ready), "%s/src/%s/.numalab-ready", c->cache, c->srckey);
	return fs_exists(ready) || find_parent(c, parent, &common) == 0;
}

int ksource_parent(struct kctx *c, char *dir, size_t len)
{
	_cleanup_free_ char *key = NULL, *path = fs_join(c->src_dir, TREE_PARENT);
	char ready[PATH_MAX + 160];

	if (!path)
		return -ENOMEM;
	if (fs_read_file(path, 65, &key, NULL) < 0 || strlen(key) != 64 || strchr(key, '/'))
		return -ENOENT;
	snprintf(dir, len, "%s/src/%s", c->cache, key);
	snprintf(ready, sizeof(ready), "%s/.numalab-ready", dir);
	return fs_exists(ready) ? 0 : -ENOENT;
}

/* Set the times of every file under the directory cdir to now where the same path under pdir
 * is not the same inode (pdir -1: no such directory there). */
static int freshen_dir(int cdir, int pdir, int top)
{
	int fd = dup(cdir), r = 0;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	while (r == 0 && (e = readdir(d)) != NULL) {
		struct stat cs, ps;
		const char *n = e->d_name;

		if (!strcmp(n, ".") || !strcmp(n, "..") || (top && lab_entry(n)))
			continue;
		if (fstatat(cdir, n, &cs, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			break;
		}
		int have = pdir >= 0 && fstatat(pdir, n, &ps, AT_SYMLINK_NOFOLLOW) == 0;

		if (S_ISDIR(cs.st_mode)) {
			int csub = openat(cdir, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			int psub = have && S_ISDIR(ps.st_mode)
					   ? openat(pdir, n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
							     O_CLOEXEC)
					   : -1;

			r = csub < 0 ? -errno : freshen_dir(csub, psub, 0);
			if (csub >= 0)
				close(csub);
			if (psub >= 0)
				close(psub);
		} else if (!have || cs.st_ino != ps.st_ino || cs.st_dev != ps.st_dev) {
			if (utimensat(cdir, n, NULL, AT_SYMLINK_NOFOLLOW) < 0)
				r = -errno;
		}
	}
	closedir(d);
	return r;
}

int ksource_freshen(struct kctx *c, const char *parent_dir)
{
	_cleanup_close_ int cdir = open(c->src_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int pdir = open(parent_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (cdir < 0 || pdir < 0)
		return -errno;
	return freshen_dir(cdir, pdir, 1);
}

static int extract(struct kctx *c, const char *dir)
{
	const struct ksrc *s = &c->v->src;
	char tarball[PATH_MAX + 96], out[SPAWN_TAIL_MAX];
	int r;

	snprintf(tarball, sizeof(tarball), "%s", s->path);
	if (s->type == KSRC_URL && (r = download(c, s->url, s->sha256, tarball, sizeof(tarball),
						  "source")) < 0)
		return r;
	kctx_progress(c, "%s: extracting %s", c->v->name, tarball);
	char *targv[] = { "tar", "-xf", tarball, "-C", (char *)dir, "--strip-components=1", NULL };

	r = kctx_run(c, targv, NULL, out, sizeof(out));
	if (r < 0)
		return kctx_fail(c, r == -EINTR ? KERNEL_FAIL_INTERRUPTED : KERNEL_FAIL_SOURCE, r,
				 "cannot extract %s: %s", tarball, out);
	return 0;
}

int ksource_tree(struct kctx *c)
{
	char lock[PATH_MAX + 32], ready[PATH_MAX + 128], stage[PATH_MAX + 128], mk[PATH_MAX + 128];
	_cleanup_close_ int fd = -1;
	int r;

	snprintf(c->src_dir, sizeof(c->src_dir), "%s/src/%s", c->cache, c->srckey);
	snprintf(ready, sizeof(ready), "%s/.numalab-ready", c->src_dir);
	if (fs_exists(ready))
		return 0;
	snprintf(lock, sizeof(lock), "%s/locks/src.lock", c->cache);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, -errno, "cannot lock %s", lock);
	if (fs_exists(ready))
		return 0; /* another lab made it while we waited */
	fs_rm_rf(c->src_dir);
	snprintf(stage, sizeof(stage), "%s/src/.tmp-%s-%ld", c->cache, c->srckey, (long)getpid());
	fs_rm_rf(stage);
	if ((r = fs_mkdir_p(stage, 0755)) < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot create %s", stage);
	r = make_tree(c, stage);
	_cleanup_free_ char *list = patch_list(c, c->v->nr_patches);

	snprintf(mk, sizeof(mk), "%s/" TREE_PATCHES, stage);
	if (r == 0 && (r = list ? fs_write_atomic(mk, list, strlen(list)) : -ENOMEM) < 0)
		kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot write %s", mk);
	snprintf(mk, sizeof(mk), "%s/.numalab-ready", stage);
	if (r == 0 && (r = fs_write_atomic(mk, c->source_id, strlen(c->source_id))) == 0 &&
	    rename(stage, c->src_dir) < 0)
		r = kctx_fail(c, KERNEL_FAIL_LAB, -errno, "cannot rename %s", stage);
	if (r < 0)
		fs_rm_rf(stage);
	return r;
}
