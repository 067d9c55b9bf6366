/* git queries of `lab bisect`: see regress/git.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "regress/git.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/spawn.h"
#include "util/text.h"

#define GIT_TIMEOUT_S 600

/* git -C repo ARGS...; *out its output (stdout and stderr), *status its exit code. */
static int git(const char *repo, const char *const *args, size_t max, char **out, int *status)
{
	const char *argv[16] = { "git", "-C", repo };
	size_t n = 3;

	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return spawn_capture((char *const *)argv, max, GIT_TIMEOUT_S, out, status);
}

int bgit_check_repo(const char *repo, struct lab_error *err)
{
	const char *args[] = { "rev-parse", "--git-dir", NULL };
	_cleanup_free_ char *out = NULL;
	int st = 0, r;

	if (!fs_exists(repo))
		return error_set(err, "source.git", "%s does not exist", repo);
	r = git(repo, args, 4096, &out, &st);
	if (r < 0 || st != 0)
		return error_set(err, "source.git", "%s is not a git repository%s%s", repo,
				 r < 0 ? "" : ": ", r < 0 ? strerror(-r) : text_last_line(out));
	return 0;
}

static int is_hex(const char *s, size_t n)
{
	return strlen(s) >= n && strspn(s, "0123456789abcdef") >= n;
}

int bgit_resolve(const char *repo, const char *ref, char sha[65], struct lab_error *err)
{
	char spec[300];
	const char *args[] = { "rev-parse", "--verify", "-q", "--end-of-options", spec, NULL };
	_cleanup_free_ char *out = NULL;
	int st = 0, r;

	if (!ref[0] || ref[0] == '-' || strlen(ref) > 255)
		return error_set(err, "", "\"%s\" is not a ref", ref);
	snprintf(spec, sizeof(spec), "%s^{commit}", ref);
	r = git(repo, args, 4096, &out, &st);
	if (r < 0 || st != 0 || !is_hex(out, 40))
		return error_set(err, "", "%s has no commit \"%s\"", repo, ref);
	snprintf(sha, 65, "%.*s", (int)strspn(out, "0123456789abcdef"), out);
	return 0;
}

void bgit_subject(const char *repo, const char *commit, char *buf, size_t len)
{
	const char *args[] = { "log", "-1", "--no-color", "--format=%s", commit, NULL };
	_cleanup_free_ char *out = NULL;
	int st = 0;

	buf[0] = '\0';
	if (git(repo, args, 4096, &out, &st) == 0 && st == 0 && out) {
		out[strcspn(out, "\n")] = '\0';
		for (char *p = out; *p; p++)
			if ((unsigned char)*p < 0x20)
				*p = ' ';
		snprintf(buf, len, "%s", out);
	}
}

int bgit_is_ancestor(const char *repo, const char *a, const char *b)
{
	const char *args[] = { "merge-base", "--is-ancestor", a, b, NULL };
	_cleanup_free_ char *out = NULL;
	int st = 0, r = git(repo, args, 4096, &out, &st);

	if (r < 0)
		return r;
	return st == 0 ? 1 : st == 1 ? 0 : -EIO;
}

/* Split "SHA\x1fSUBJECT\n" lines into out[from..). */
static int split_log(char *text, struct bisect_commit_in *out, size_t from, size_t cap,
		     size_t *n, struct lab_error *err)
{
	size_t k = from;

	for (char *line = text, *next; line && *line; line = next) {
		char *us;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line)
			continue;
		us = strchr(line, '\x1f');
		if (!us || !is_hex(line, 40) || (size_t)(us - line) > 64)
			return error_set(err, "", "unexpected git log line: %.80s", line);
		if (k >= cap)
			return error_set(err, "", "more than %d commits between the ends: give a "
					 "narrower range", BISECT_MAX_COMMITS);
		*us = '\0';
		out[k++] = (struct bisect_commit_in){ .sha = line, .subject = us + 1 };
	}
	*n = k;
	return 0;
}

int bgit_commits(const char *repo, const char *good, const char *bad,
		 struct bisect_commit_in **out, size_t *n, char **buf, struct lab_error *err)
{
	char range[200];
	const char *args[] = { "log", "--first-parent", "--reverse", "--no-color",
			       "--format=%H%x1f%s", range, NULL };
	const char *gargs[] = { "log", "-1", "--no-color", "--format=%H%x1f%s", good, NULL };
	_cleanup_free_ char *head = NULL;
	struct bisect_commit_in *c = NULL;
	size_t cap = BISECT_MAX_COMMITS, k = 0;
	int st = 0, r;

	*out = NULL;
	*buf = NULL;
	*n = 0;
	if ((r = bgit_is_ancestor(repo, good, bad)) <= 0)
		return r < 0 ? error_set(err, "", "git merge-base failed in %s", repo)
			     : error_set(err, "", "the good end %.12s is not an ancestor of the bad "
					 "end %.12s: the ends are in the wrong order, or on "
					 "unrelated branches", good, bad);
	if (!strcmp(good, bad))
		return error_set(err, "", "the good and the bad end are the same commit %.12s",
				 good);
	snprintf(range, sizeof(range), "%s..%s", good, bad);
	if ((r = git(repo, gargs, 64 * 1024, &head, &st)) < 0 || st != 0 ||
	    (r = git(repo, args, BGIT_LOG_MAX, buf, &st)) < 0 || st != 0) {
		error_set(err, "", "git log %s failed in %s", range, repo);
		goto fail;
	}
	if (!(c = calloc(cap + 1, sizeof(*c)))) {
		r = -ENOMEM;
		goto fail;
	}
	/* The good end's line goes in front: keep its text alive in *buf's allocation. */
	size_t hl = strlen(head), bl = strlen(*buf);
	char *all = malloc(hl + bl + 2);

	if (!all) {
		r = -ENOMEM;
		goto fail;
	}
	memcpy(all, head, hl);
	all[hl] = '\n';
	memcpy(all + hl + 1, *buf, bl + 1);
	free(*buf);
	*buf = all;
	if ((r = split_log(all, c, 0, cap, &k, err)) < 0)
		goto fail;
	if (k < 2 || strcmp(c[0].sha, good) || strcmp(c[k - 1].sha, bad)) {
		/* bad reached from good only through a merge's second parent */
		r = error_set(err, "", "the bad end %.12s is not on the first-parent line from "
			      "the good end %.12s", bad, good);
		goto fail;
	}
	*out = c;
	*n = k;
	return 0;
fail:
	free(c);
	free(*buf);
	*buf = NULL;
	return r < 0 ? r : -EINVAL;
}

int bgit_diff(const char *repo, const char *from, const char *to, const char *path,
	      struct lab_error *err)
{
	const char *args[] = { "diff", "--no-color", "--no-ext-diff", "--no-renames", "--binary",
			       from, to, NULL };
	_cleanup_free_ char *out = NULL;
	int st = 0, r;

	r = git(repo, args, BGIT_PATCH_MAX, &out, &st);
	if (r < 0 || st != 0)
		return error_set(err, "", "git diff %.12s %.12s failed: %s", from, to,
				 r < 0 ? strerror(-r) : text_last_line(out));
	if (strlen(out) >= BGIT_PATCH_MAX - 1)
		return error_set(err, "", "the diff %.12s %.12s is larger than %u MiB", from, to,
				 BGIT_PATCH_MAX >> 20);
	if ((r = fs_write_atomic(path, out, strlen(out))) < 0)
		return error_set(err, "", "cannot write %s: %s", path, strerror(-r));
	return out[0] ? 1 : 0;
}

int bgit_revert_patch(const char *repo, const char *commit, const char *path,
		      struct lab_error *err)
{
	char parent[200], psha[65];
	int r;

	snprintf(parent, sizeof(parent), "%s^", commit);
	if (bgit_resolve(repo, parent, psha, NULL) < 0)
		return error_set(err, "", "%.12s has no parent to revert to", commit);
	r = bgit_diff(repo, commit, psha, path, err);
	return r < 0 ? r : 0;
}

int bgit_merge_base(const char *repo, const char *a, const char *b, char sha[65],
		    struct lab_error *err)
{
	const char *args[] = { "merge-base", a, b, NULL };
	_cleanup_free_ char *out = NULL;
	int st = 0, r = git(repo, args, 4096, &out, &st);

	if (r < 0 || st != 0 || !is_hex(out, 40))
		return error_set(err, "", "%.12s and %.12s have no common ancestor", a, b);
	snprintf(sha, 65, "%.40s", out);
	return 0;
}

int bgit_snapshot(const char *repo, char sha[65], struct lab_error *err)
{
	const char *args[] = { "stash", "create", "numalab: lab ab snapshot", NULL };
	_cleanup_free_ char *out = NULL;
	int st = 0, r = git(repo, args, 4096, &out, &st);

	sha[0] = '\0';
	if (r < 0 || st != 0)
		return error_set(err, "", "git stash create failed: %s",
				 r < 0 ? strerror(-r) : text_last_line(out));
	if (!out || !out[0])
		return 0; /* nothing uncommitted in tracked files */
	if (!is_hex(out, 40))
		return error_set(err, "", "git stash create said \"%s\"", text_last_line(out));
	snprintf(sha, 65, "%.40s", out);
	return 1;
}
