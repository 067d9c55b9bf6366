/* The git side of `lab bisect` and `lab ab`: the repository, its refs and the first-parent
 * list of commits between the ends, the reverse diff that reverts a culprit, the diff of a
 * range and a snapshot of a tree's uncommitted changes.  Every git runs from an argv array;
 * the repository is only read (a snapshot, `git stash create`, adds an unreferenced commit
 * object and touches no ref, index or file). */
#pragma once
#include <stddef.h>

#include "core/bisect.h"
#include "util/error.h"

/* Most bytes of `git log` output read (subjects of BISECT_MAX_COMMITS commits). */
#define BGIT_LOG_MAX (64u << 20)
/* Largest revert patch written. */
#define BGIT_PATCH_MAX (64u << 20)

/* -EINVAL with err ("source.git: /x is not a git repository") unless repo is one. */
int bgit_check_repo(const char *repo, struct lab_error *err);
/* The full commit name of ref (40 hex) into sha.  -EINVAL with err when ref names no commit. */
int bgit_resolve(const char *repo, const char *ref, char sha[65], struct lab_error *err);
/* The subject line of commit into buf ("" when git cannot tell). */
void bgit_subject(const char *repo, const char *commit, char *buf, size_t len);
/* 1 when a is an ancestor of b (or a == b), 0 when not, a negative errno when git fails. */
int bgit_is_ancestor(const char *repo, const char *a, const char *b);

/* The commits of a bisection from good to bad, oldest first: good, then `git log
 * --first-parent --reverse good..bad`.  *out points into *buf (both the caller's to free).
 * -EINVAL with err when bad is not a descendant of good or there are too many commits. */
int bgit_commits(const char *repo, const char *good, const char *bad,
		 struct bisect_commit_in **out, size_t *n, char **buf, struct lab_error *err);

/* Write the reverse diff of commit (its first parent against it: applying it reverts the
 * commit) to path.  -EINVAL with err for a root commit or when git fails. */
int bgit_revert_patch(const char *repo, const char *commit, const char *path,
		      struct lab_error *err);

/* `git diff from to` (binary, no renames) into path: 1 when it changes something, 0 when the
 * diff is empty; -EINVAL with err when git fails. */
int bgit_diff(const char *repo, const char *from, const char *to, const char *path,
	      struct lab_error *err);
/* The best common ancestor of a and b (40 hex) into sha. */
int bgit_merge_base(const char *repo, const char *a, const char *b, char sha[65],
		    struct lab_error *err);
/* A commit of the tree's uncommitted changes to tracked files (`git stash create`) into sha:
 * 1 when there are some, 0 (sha "") when the tree is clean. */
int bgit_snapshot(const char *repo, char sha[65], struct lab_error *err);
