/* A git range as a patch for `lab ab`: see regress/range.h. */
#include "regress/range.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "regress/git.h"
#include "util/cleanup.h"
#include "util/fs.h"

int abrange_is_range(const char *arg)
{
	const char *dots = strstr(arg, "..");

	/* "A...B" (symmetric difference) is not a change from A to B; git refs hold no "..", so
	 * "../x" or "a/../b" is a path. */
	return dots && dots != arg && !strstr(arg, "...") && !strstr(arg, "../") &&
	       !strstr(arg, "/..");
}

/* "A..B" into its ends; an empty B is HEAD, as git reads it. */
static int split(const char *range, char *a, char *b, size_t len, int *head_is_checkout)
{
	const char *dots = strstr(range, "..");
	size_t na = (size_t)(dots - range);

	if (na >= len || strlen(dots + 2) >= len)
		return -ENAMETOOLONG;
	snprintf(a, len, "%.*s", (int)na, range);
	snprintf(b, len, "%s", dots[2] ? dots + 2 : "HEAD");
	*head_is_checkout = !strcmp(b, "HEAD");
	return 0;
}

static int resolve_ends(const char *repo, const char *a, const char *b, struct abrange *r,
			struct lab_error *err)
{
	int rc;

	if ((rc = bgit_check_repo(repo, err)) < 0 || (rc = bgit_resolve(repo, a, r->base, err)) < 0 ||
	    (rc = bgit_resolve(repo, b, r->head, err)) < 0)
		return rc;
	return bgit_merge_base(repo, r->base, r->head, r->merge_base, err);
}

int abrange_patch(const char *repo, const char *range, const char *state_dir, struct abrange *r,
		  struct lab_error *err)
{
	char a[256], b[256], snap[65], name[128];
	const char *to;
	_cleanup_free_ char *dir = NULL;
	int head_is_checkout, rc;

	memset(r, 0, sizeof(*r));
	if (split(range, a, b, sizeof(a), &head_is_checkout) < 0)
		return error_set(err, "", "%s: a ref is too long", range);
	if ((rc = resolve_ends(repo, a, b, r, err)) < 0)
		return rc;
	if ((rc = bgit_snapshot(repo, snap, err)) < 0)
		return rc;
	if (rc > 0 && head_is_checkout)
		snprintf(r->snapshot, sizeof(r->snapshot), "%s", snap);
	r->dirty_unmeasured = rc > 0 && !head_is_checkout;
	to = r->snapshot[0] ? r->snapshot : r->head;
	bgit_subject(repo, r->head, r->head_subject, sizeof(r->head_subject));
	/* No "+" in the name: lab run --kernel VARIANT+PATCH splits on it. */
	snprintf(name, sizeof(name), "%.12s..%.12s%s%.12s.patch", r->merge_base, r->head,
		 r->snapshot[0] ? "-snapshot-" : "", r->snapshot);
	if (!(dir = fs_join(state_dir, "ab")) || fs_mkdir_p(dir, 0755) < 0)
		return error_set(err, "", "cannot create %s/ab", state_dir);
	if (snprintf(r->patch, sizeof(r->patch), "%s/%s", dir, name) >= (int)sizeof(r->patch))
		return error_set(err, "", "%s/ab: path too long", state_dir);
	if ((rc = bgit_diff(repo, r->merge_base, to, r->patch, err)) < 0)
		return rc;
	if (rc == 0)
		return error_set(err, "", "%s changes nothing in %s (no commits%s)", range, repo,
				 head_is_checkout ? " and no uncommitted changes" : "");
	return 0;
}
