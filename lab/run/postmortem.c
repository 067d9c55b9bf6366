#include "run/postmortem.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder/image.h"
#include "core/collect.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"

/* What the agent keeps on the disk (runners/rt_disk.h). */
#define AGENT_OUT_GLOB "/numalab/out/*"
#define AGENT_RESULTS "/numalab/out/results.jsonl"

struct pm {
	const struct postmortem_opts *o;
	guestfs_h *g;
	json_t *files, *missing;
	size_t total;
	char base[PATH_MAX];
};

/* Names come from the guest's file system, as glob results: absolute, printable, no "." or ".."
 * components, so that joined under the run directory they stay inside it. */
static int guest_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n > 512 || s[0] != '/' || s[n - 1] == '/' || strstr(s, "//"))
		return 0;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	for (const char *c = s; c; c = strchr(c + 1, '/'))
		if (!strncmp(c, "/./", 3) || !strcmp(c, "/.") || !strncmp(c, "/../", 4) ||
		    !strcmp(c, "/.."))
			return 0;
	return 1;
}

static void add_missing(struct pm *p, const char *path, const char *why)
{
	char shown[160];

	/* An unsafe name is shown cut and with control characters replaced, never raw. */
	snprintf(shown, sizeof(shown), "%s", path);
	for (char *c = shown; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	json_array_append_new(p->missing, json_pack("{s:s,s:s}", "path", shown, "reason", why));
}

static int already(const struct pm *p, const char *path)
{
	size_t i;
	json_t *f;

	json_array_foreach(p->files, i, f)
		if (!strcmp(json_string_value(json_object_get(f, "path")), path))
			return 1;
	return 0;
}

static const char *gfs_why(struct pm *p)
{
	const char *m = guestfs_last_error(p->g);

	return m ? m : "libguestfs failed";
}

/* 1 when path is a regular file (symlinks followed inside the guest), else 0 with *why. */
static int regular_file(struct pm *p, const char *path, const char **why)
{
	int f = guestfs_is_file_opts(p->g, path, GUESTFS_IS_FILE_OPTS_FOLLOWSYMLINKS, 1, -1);

	if (f > 0)
		return 1;
	if (f < 0)
		*why = gfs_why(p);
	else if (guestfs_is_dir_opts(p->g, path, GUESTFS_IS_DIR_OPTS_FOLLOWSYMLINKS, 1, -1) > 0)
		*why = "a directory: list its files or a glob such as DIR/*";
	else if (guestfs_exists(p->g, path) > 0)
		*why = "not a regular file";
	else
		*why = "no such file";
	return 0;
}

/* Copies path; NULL when copied (or already), else why not. */
static const char *try_copy(struct pm *p, const char *path)
{
	char local[PATH_MAX + 600], rel[PATH_MAX + 600];
	_cleanup_free_ char *dir = NULL;
	const char *why = NULL;
	int64_t size;

	if (!guest_name_ok(path))
		return "unsafe file name";
	if (already(p, path))
		return NULL;
	if (json_array_size(p->files) >= POSTMORTEM_MAX_FILES)
		return "too many files";
	if (!regular_file(p, path, &why))
		return why;
	size = guestfs_filesize(p->g, path);
	if (size < 0)
		return gfs_why(p);
	if ((uint64_t)size > POSTMORTEM_MAX_FILE ||
	    p->total + (uint64_t)size > POSTMORTEM_MAX_TOTAL)
		return "too large (64 MiB per file, 256 MiB in all)";
	snprintf(local, sizeof(local), "%s%s", p->base, path);
	dir = fs_dirname(local);
	if (!dir || fs_mkdir_p(dir, 0755) < 0)
		return "cannot create its directory on the host";
	if (guestfs_download(p->g, path, local) < 0)
		return gfs_why(p);
	p->total += (uint64_t)size;
	snprintf(rel, sizeof(rel), "%s/%s%s", p->o->run_rel, POSTMORTEM_DIR, path);
	json_array_append_new(p->files, json_pack("{s:s,s:s,s:I}", "path", path, "file", rel,
						  "bytes", (json_int_t)size));
	return NULL;
}

static void copy_one(struct pm *p, const char *path)
{
	const char *why = try_copy(p, path);

	if (why)
		add_missing(p, path, why);
}

static void copy_pattern(struct pm *p, const char *pattern)
{
	char **list;

	if (!strpbrk(pattern, "*?[")) {
		copy_one(p, pattern);
		return;
	}
	list = guestfs_glob_expand(p->g, pattern);
	if (!list) {
		add_missing(p, pattern, gfs_why(p));
		return;
	}
	if (!list[0])
		add_missing(p, pattern, "matches nothing");
	for (char **s = list; *s; s++) {
		copy_one(p, *s);
		free(*s);
	}
	free(list);
}

/* The recovered results file read like the channel: how far the guest got on the disk. */
static json_t *results_summary(const struct pm *p)
{
	char path[PATH_MAX + 64];
	_cleanup_free_ char *text = NULL;
	struct guest_log log;
	size_t len, lines = 0, reported = 0, i;
	json_t *w, *out;

	snprintf(path, sizeof(path), "%s%s", p->base, AGENT_RESULTS);
	if (fs_read_file(path, COLLECT_MAX_TOTAL, &text, &len) < 0)
		return json_null();
	if (collect_init(&log, p->o->nr_workloads) < 0)
		return NULL;
	for (char *l = text, *nl; *l; l = nl + 1) {
		nl = strchr(l, '\n');
		if (!nl)
			break; /* a torn last line is not a result */
		lines += collect_line(&log, l, (size_t)(nl - l), 0) > 0;
	}
	json_array_foreach(log.workloads, i, w)
		reported += !json_is_null(w);
	out = json_pack("{s:s,s:I,s:b,s:I,s:b}", "file", AGENT_RESULTS, "lines",
			(json_int_t)lines, "hello", log.hello, "workloads_reported",
			(json_int_t)reported, "done", log.done);
	collect_free(&log);
	return out;
}

static int open_overlay(struct pm *p, char *err, size_t len, double *launch_s)
{
	double t0 = clock_now_s();

	p->g = image_guestfs(p->o->kvm, err, len);
	if (!p->g)
		return -EIO;
	/* readonly: libguestfs writes (the journal replay) to a layer of its own. */
	if (guestfs_add_drive_opts(p->g, p->o->overlay, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2",
				   GUESTFS_ADD_DRIVE_OPTS_READONLY, 1, -1) < 0 ||
	    guestfs_launch(p->g) < 0) {
		snprintf(err, len, "libguestfs: %s", gfs_why(p));
		return -EIO;
	}
	*launch_s = clock_now_s() - t0;
	/* A file system the crash left unrecoverable may still mount without its journal. */
	if (guestfs_mount_ro(p->g, "/dev/sda1", "/") < 0 &&
	    guestfs_mount_options(p->g, "ro,noload", "/dev/sda1", "/") < 0) {
		snprintf(err, len, "mount /dev/sda1: %s", gfs_why(p));
		return -EIO;
	}
	return 0;
}

json_t *postmortem_collect(const struct postmortem_opts *o)
{
	struct pm p = { .o = o, .files = json_array(), .missing = json_array() };
	char err[512] = "", rel[PATH_MAX + 16];
	double t0 = clock_now_s(), launch_s = -1;
	json_t *results = json_null();
	int r;

	if (!p.files || !p.missing) {
		json_decref(p.files);
		json_decref(p.missing);
		return NULL;
	}
	snprintf(p.base, sizeof(p.base), "%s/%s", o->run_dir, POSTMORTEM_DIR);
	snprintf(rel, sizeof(rel), "%s/%s", o->run_rel, POSTMORTEM_DIR);
	r = open_overlay(&p, err, sizeof(err), &launch_s);
	if (r == 0) {
		copy_pattern(&p, AGENT_OUT_GLOB);
		for (unsigned i = 0; i < o->nr_collect; i++)
			copy_pattern(&p, o->collect[i]);
		guestfs_umount_all(p.g);
		json_decref(results);
		results = results_summary(&p);
	}
	if (p.g)
		guestfs_close(p.g);
	return json_pack("{s:b,s:s*,s:o,s:f,s:s,s:o,s:o,s:o}", "ok", r == 0, "error",
			 err[0] ? err : NULL, "launch_s", launch_s < 0 ? json_null()
								   : json_real(launch_s),
			 "total_s", clock_now_s() - t0, "dir", rel, "files", p.files, "missing",
			 p.missing, "results", results ? results : json_null());
}
