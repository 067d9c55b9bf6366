/* A bundle read back (run/bundle.h): extracted by util/archive.h's reader, which refuses
 * unsafe names, links, devices, huge or truncated archives, then every file checked against
 * the manifest before anything in it is read as a job. */
#define _XOPEN_SOURCE 700
#include "run/bundle.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/runreport.h"
#include "util/archive.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"

/* What extraction produced: nftw's callback has no user pointer, so one walk at a time. */
static struct walk {
	size_t root_len, n;
	char *names[BUNDLE_MAX_MEMBERS + 1];
	char (*sha)[65];
	int error;
} walk;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	if (type == FTW_D || type == FTW_DP)
		return 0;
	if (type != FTW_F) {
		walk.error = -EINVAL;
		return 1;
	}
	if (strlen(path) <= walk.root_len + 1 || !strcmp(path + walk.root_len + 1, BUNDLE_MANIFEST))
		return 0;
	if (walk.n > BUNDLE_MAX_MEMBERS) {
		walk.error = -E2BIG;
		return 1;
	}
	if (!(walk.names[walk.n] = strdup(path + walk.root_len + 1)) ||
	    (walk.error = sha256_file_hex(path, walk.sha[walk.n])) < 0) {
		walk.error = walk.error ? walk.error : -ENOMEM;
		return 1;
	}
	walk.n++;
	return 0;
}

static void walk_free(void)
{
	for (size_t i = 0; i < walk.n; i++)
		free(walk.names[i]);
	free(walk.sha);
	memset(&walk, 0, sizeof(walk));
}

/* The files under dir against the manifest. */
static int check_tree(const char *dir, const struct bundle_manifest *m, struct lab_error *err)
{
	int r;

	memset(&walk, 0, sizeof(walk));
	walk.root_len = strlen(dir);
	if (!(walk.sha = calloc(BUNDLE_MAX_MEMBERS + 1, sizeof(*walk.sha))))
		return -ENOMEM;
	if (nftw(dir, walk_one, 16, FTW_PHYS) < 0 || walk.error) {
		r = walk.error == -E2BIG ? error_set(err, "", "more than %u files",
						      BUNDLE_MAX_MEMBERS)
		    : walk.error ? error_set(err, "", "cannot read what was extracted: %s",
					     strerror(-walk.error))
				 : error_set(err, "", "cannot walk %s: %s", dir, strerror(errno));
		walk_free();
		return r;
	}
	r = bundle_manifest_check(m, walk.names, (const char (*)[65])walk.sha, walk.n, err);
	walk_free();
	return r;
}

static int load_manifest(const char *dir, struct bundle_manifest *m, struct lab_error *err)
{
	_cleanup_free_ char *path = fs_join(dir, BUNDLE_MANIFEST);
	_cleanup_json_ json_t *j = NULL;
	struct lab_error in = { 0 };
	int r;

	if (!path)
		return -ENOMEM;
	if ((r = jsonio_load_file(path, BUNDLE_MANIFEST_MAX, &j, &in)) < 0)
		return error_set(err, BUNDLE_MANIFEST, r == -ENOENT ? "missing: not a bundle of "
				 "this lab" : "%s", in.msg);
	if ((r = bundle_manifest_from_json(j, m, &in)) < 0)
		return error_set(err, BUNDLE_MANIFEST, "%s%s%s", in.path, in.path[0] ? ": " : "",
				 in.msg);
	if (!bundle_manifest_find(m, "report.json") || !bundle_manifest_find(m, "job.json"))
		return error_set(err, BUNDLE_MANIFEST, "lists no report.json or job.json");
	return 0;
}

int bundle_open(const char *path, const char *dir, struct bundle_manifest **m, json_t **report,
		struct lab_error *err)
{
	struct arc_limits lim = { .members = BUNDLE_MAX_MEMBERS + 1 };
	_cleanup_free_ char *rep = fs_join(dir, "report.json");
	struct bundle_manifest *man = bundle_manifest_new();
	int r;

	*m = NULL;
	*report = NULL;
	if (!man || !rep) {
		bundle_manifest_free(man);
		return -ENOMEM;
	}
	if ((r = arc_extract(path, dir, &lim, err)) < 0) {
		bundle_manifest_free(man);
		return r;
	}
	error_set_file(err, path);
	if ((r = load_manifest(dir, man, err)) < 0 || (r = check_tree(dir, man, err)) < 0 ||
	    (r = jsonio_load_file(rep, RUNREPORT_MAX_SIZE, report, err)) < 0) {
		error_set_file(err, path);
		bundle_manifest_free(man);
		fs_rm_rf(dir);
		return r == -ENOMEM ? r : -EINVAL;
	}
	*m = man;
	return 0;
}
