/* A git source's persistent checkout per variant (builder/kernel_git.h). */
#include "builder/kernel_git.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder/kernel_source.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/text.h"

#define GIT_MAX_ARGS 8

int kgit_key(struct kctx *c)
{
	_cleanup_free_ char *real = realpath(c->v->src.path, NULL), *text = NULL;
	char hex[65];
	int r;

	if (!real) {
		r = -errno;
		return kctx_fail(c, KERNEL_FAIL_SOURCE, r, "source: cannot resolve %s: %s",
				 c->v->src.path, strerror(-r));
	}
	/* The real path: the same repository named two ways shares one checkout. */
	if (asprintf(&text, "git-checkout\n%s\n%s", real, c->v->name) < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, -ENOMEM, "out of memory");
	if ((r = sha256_hex(text, strlen(text), hex)) < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, r, "sha256 failed");
	snprintf(c->tree_key, sizeof(c->tree_key), "git-%.16s", hex);
	return 0;
}

/* git on the checkout, its repository and work tree named outright: with only -C, a checkout
 * whose .git was lost would let git find an enclosing repository, and clean that one. */
static int git(struct kctx *c, const char *const args[], char *out, size_t len)
{
	char gd[PATH_MAX + 128], wt[PATH_MAX + 128];
	char *argv[GIT_MAX_ARGS + 4];
	unsigned n = 0;

	snprintf(gd, sizeof(gd), "--git-dir=%s/.git", c->src_dir);
	snprintf(wt, sizeof(wt), "--work-tree=%s", c->src_dir);
	argv[n++] = "git", argv[n++] = gd, argv[n++] = wt;
	for (unsigned i = 0; args[i] && i < GIT_MAX_ARGS; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	return kctx_run(c, argv, c->src_dir, out, len);
}

/* Made in src/.tmp-KEY-PID and renamed: a clone cut short is never taken for a checkout. */
static int clone(struct kctx *c, const char *repo)
{
	char tmp[PATH_MAX + 128], out[SPAWN_TAIL_MAX];
	char *argv[] = { "git", "clone", "--shared", "--no-checkout", "--quiet", "--",
			 (char *)repo, tmp, NULL };
	int r;

	snprintf(tmp, sizeof(tmp), "%s/src/.tmp-%s-%ld", c->cache, c->tree_key, (long)getpid());
	fs_rm_rf(tmp);
	kctx_progress(c, "%s: cloning %s into %s (sharing its objects, once per variant)",
		      c->v->name, repo, c->src_dir);
	r = kctx_run(c, argv, NULL, out, sizeof(out));
	if (r == 0 && rename(tmp, c->src_dir) < 0) {
		r = -errno;
		snprintf(out, sizeof(out), "cannot rename %s: %s", tmp, strerror(-r));
	}
	if (r < 0)
		fs_rm_rf(tmp);
	if (r == -EINTR)
		return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted");
	if (r < 0)
		return kctx_fail(c, KERNEL_FAIL_SOURCE, r, "git clone --shared %s: %s", repo,
				 text_last_line(out));
	return 0;
}

/* The checkout at commit and nothing else: --force makes the tracked files the commit's (it
 * undoes the previous build's patches too), clean drops untracked and ignored files (files
 * patches created, .orig/.rej).  git rewrites only files whose content or stat differs from
 * its index, so files no commit or patch touched keep their mtimes.  what says which step
 * failed, out what git said. */
static int move_to(struct kctx *c, const char *commit, char *what, size_t wlen, char *out,
		   size_t len)
{
	const char *const co[] = { "checkout", "-q", "--force", "--detach", commit, NULL };
	/* -e keeps the O= trees (O-VARIANT, kernel.h) that live in the checkout. */
	const char *const cl[] = { "clean", "-fdxq", "-e", "/" KERNEL_OBJ_PREFIX "*", NULL };
	char lock[PATH_MAX + 128];
	int r;

	/* A git killed mid-checkout leaves index.lock behind; nothing else can be using this
	 * checkout (the variant's obj lock is held), so it is stale. */
	snprintf(lock, sizeof(lock), "%s/.git/index.lock", c->src_dir);
	unlink(lock);
	snprintf(what, wlen, "git checkout %s in %s", commit, c->src_dir);
	if ((r = git(c, co, out, len)) < 0)
		return r;
	snprintf(what, wlen, "git clean in %s", c->src_dir);
	return git(c, cl, out, len);
}

int kgit_tree(struct kctx *c)
{
	const char *commit = c->source_id + 4; /* "git:COMMIT" (ksource_identity) */
	_cleanup_free_ char *repo = realpath(c->v->src.path, NULL);
	char head[PATH_MAX + 128], what[PATH_MAX + 256], out[SPAWN_TAIL_MAX];
	int r;

	if (strncmp(c->source_id, "git:", 4) || !c->tree_key[0])
		return kctx_fail(c, KERNEL_FAIL_LAB, -EINVAL, "no git source identity");
	if (!repo) {
		r = -errno;
		return kctx_fail(c, KERNEL_FAIL_SOURCE, r, "source: cannot resolve %s: %s",
				 c->v->src.path, strerror(-r));
	}
	snprintf(c->src_dir, sizeof(c->src_dir), "%s/src/%s", c->cache, c->tree_key);
	snprintf(head, sizeof(head), "%s/.git/HEAD", c->src_dir);
	if (!fs_exists(head)) {
		fs_rm_rf(c->src_dir);
		if ((r = clone(c, repo)) < 0)
			return r;
	}
	kctx_progress(c, "%s: checking out %.12s in %s", c->v->name, commit, c->src_dir);
	r = move_to(c, commit, what, sizeof(what), out, sizeof(out));
	if (r < 0 && r != -EINTR) {
		/* The commit exists (ksource_identity found it in the repository), so the checkout
		 * itself is damaged: start it again, at the cost of one full build. */
		kctx_progress(c, "%s: %s failed (%s); cloning again", c->v->name, what,
			      text_last_line(out));
		fs_rm_rf(c->src_dir);
		if ((r = clone(c, repo)) < 0)
			return r;
		r = move_to(c, commit, what, sizeof(what), out, sizeof(out));
	}
	if (r == -EINTR)
		return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted");
	if (r < 0)
		return kctx_fail(c, KERNEL_FAIL_SOURCE, r, "%s: %s", what, text_last_line(out));
	snprintf(head, sizeof(head), "%s/Makefile", c->src_dir);
	if (!fs_exists(head))
		return kctx_fail(c, KERNEL_FAIL_SOURCE, -ENOENT, "the source has no top-level "
				 "Makefile (commit %s)", commit);
	return ksource_apply_patches(c, c->src_dir);
}
