/* Finds report.json files named on the command line and parses them (see report_files.h). */
#include "cli/report_files.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/series.h"
#include "core/runreport.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

static int push(struct report_files *f, char *path, struct lab_error *err)
{
	if (!path)
		return -ENOMEM;
	if (f->n >= REPORT_MAX_FILES) {
		error_set(err, "", "more than %d report files", REPORT_MAX_FILES);
		free(path);
		return -E2BIG;
	}
	if (f->n == f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 16;
		char **np = realloc(f->path, ncap * sizeof(*np));

		if (!np) {
			free(path);
			return -ENOMEM;
		}
		f->path = np;
		json_t **nd = realloc(f->doc, ncap * sizeof(*nd));

		if (!nd) {
			free(path);
			return -ENOMEM;
		}
		f->doc = nd;
		f->cap = ncap;
	}
	f->doc[f->n] = NULL;
	f->path[f->n++] = path;
	return 0;
}

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* DIR/NAME/report.json for each subdirectory NAME, in name order. */
static int add_children(struct report_files *f, const char *dir, struct lab_error *err)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, alphasort), r = 0;
	size_t before = f->n;

	if (n < 0) {
		int e = errno;

		error_set_file(err, dir);
		error_set(err, "", "cannot read the directory: %s", strerror(e));
		return -e;
	}
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *sub = NULL;

		if (r == 0 && ents[i]->d_name[0] != '.' &&
		    (sub = fs_join(dir, ents[i]->d_name)) && is_dir(sub)) {
			char *rep = fs_join(sub, "report.json");

			if (rep && fs_exists(rep))
				r = push(f, rep, err);
			else
				free(rep);
		}
		free(ents[i]);
	}
	free(ents);
	if (r == 0 && f->n == before) {
		error_set_file(err, dir);
		error_set(err, "", "no report.json in it or in its subdirectories");
		return -ENOENT;
	}
	return r;
}

int report_files_add(struct report_files *f, const char *arg, struct lab_error *err)
{
	_cleanup_free_ char *rep = NULL;

	if (!is_dir(arg)) {
		if (!fs_exists(arg)) {
			error_set_file(err, arg);
			error_set(err, "", "no such file or directory");
			return -ENOENT;
		}
		return push(f, strdup(arg), err);
	}
	rep = fs_join(arg, "report.json");
	if (!rep)
		return -ENOMEM;
	if (fs_exists(rep))
		return push(f, TAKE_PTR(rep), err);
	return add_children(f, arg, err);
}

int report_files_read(struct report_files *f, struct lab_error *err)
{
	for (size_t i = 0; i < f->n; i++) {
		int r;

		if (f->doc[i])
			continue;
		r = jsonio_load_file(f->path[i], RUNREPORT_MAX_SIZE, &f->doc[i], err);
		if (r < 0)
			return r;
	}
	return 0;
}

void report_files_free(struct report_files *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->path[i]);
		json_decref(f->doc[i]);
	}
	free(f->path);
	free(f->doc);
	memset(f, 0, sizeof(*f));
}

/* Two sides: every run of A's reports is variant "A"'s, every run of B's "B"'s.  The labels
 * are the kernels' own when each side has one and they differ, else "A (...)", "B (...)". */
int report_files_sides(struct report_files *f, size_t na, struct series_set *s,
		       struct lab_error *err)
{
	char la[200], lb[200], va[256], vb[256];
	unsigned ca, cb;
	int r;

	series_labels(f->doc, na, la, sizeof(la), &ca);
	series_labels(f->doc + na, f->n - na, lb, sizeof(lb), &cb);
	if (ca == 1 && cb == 1 && strcmp(la, lb)) {
		snprintf(va, sizeof(va), "%s", la);
		snprintf(vb, sizeof(vb), "%s", lb);
	} else {
		snprintf(va, sizeof(va), "A (%s)", la);
		snprintf(vb, sizeof(vb), "B (%s)", lb);
	}
	for (size_t i = 0; i < f->n; i++)
		if ((r = series_add_report(s, f->doc[i], f->path[i], i < na ? va : vb, err)) < 0)
			return r;
	return 0;
}
