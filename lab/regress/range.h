/* A git range as the changed side of `lab ab`: BASE..HEAD of a tree becomes one patch, the
 * diff from their merge base to HEAD, written under STATE/ab/.  When HEAD is the checkout's
 * (the range says HEAD or ends in ".."), the tree's uncommitted changes to tracked files are
 * part of it, as a snapshot commit (`git stash create`) whose name the patch's file carries,
 * so the report says what was measured and the snapshot can be looked at afterwards. */
#pragma once
#include <limits.h>

#include "util/error.h"

struct abrange {
	char base[65], head[65];  /* the range's ends, resolved */
	char merge_base[65];      /* where the diff starts */
	char snapshot[65];        /* the uncommitted changes' commit, "" when none were taken */
	int dirty_unmeasured;     /* the tree has uncommitted changes the range leaves out */
	char head_subject[200];
	char patch[PATH_MAX];     /* STATE/ab/MB12..HEAD12[-snapshot-SNAP12].patch */
};

/* 1 when arg is a range ("A..B" or "A.."), 0 when not. */
int abrange_is_range(const char *arg);
/* The patch of range in repo into r->patch.  -EINVAL with err for a tree that is not a git
 * repository, a ref that names no commit, or a range that changes nothing. */
int abrange_patch(const char *repo, const char *range, const char *state_dir, struct abrange *r,
		  struct lab_error *err);
