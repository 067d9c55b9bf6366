/* What every QEMU TCG plugin of the lab needs around a boot (run/tcgplugin.h). */
#include "run/tcgplugin.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/fs.h"
#include "util/spawn.h"

#define NM_MAX_BYTES (256u << 20) /* a vmlinux's symbols: a few MiB; QEMU's dynamic table less */
#define NM_TIMEOUT_S 120

void tcgplugin_files_free(struct tcgplugin_files *f)
{
	free(f->so);
	free(f->dir);
	free(f->map);
	free(f->out);
	memset(f, 0, sizeof(*f));
}

static int files_find(const char *run_dir, const char *runners_dir, const char *name,
		      const char *what, struct tcgplugin_files *f, char *why, size_t why_len)
{
	_cleanup_free_ char *rel = NULL;
	char base[64];
	int r;

	snprintf(base, sizeof(base), "../plugin/%s.so", name);
	if (!(rel = fs_join(runners_dir, base)))
		return -ENOMEM;
	f->so = realpath(rel, NULL);
	if (!f->so) {
		snprintf(why, why_len, "%s %s is missing (make builds it)", what, rel);
		return -ENOENT;
	}
	if ((r = fs_mkdir_p(run_dir, 0755)) < 0 || !(f->dir = realpath(run_dir, NULL))) {
		snprintf(why, why_len, "cannot create %s", run_dir);
		return r < 0 ? r : -errno;
	}
	snprintf(base, sizeof(base), "%s.map", name);
	f->map = fs_join(f->dir, base);
	snprintf(base, sizeof(base), "%s.json", name);
	f->out = fs_join(f->dir, base);
	if (!f->map || !f->out)
		return -ENOMEM;
	if (strchr(f->so, ',') || strchr(f->dir, ',')) {
		snprintf(why, why_len, "paths with commas cannot be QEMU plugin arguments: %s",
			 strchr(f->so, ',') ? f->so : f->dir);
		return -EINVAL;
	}
	unlink(f->out);
	return 0;
}

int tcgplugin_files(const char *run_dir, const char *runners_dir, const char *name,
		    const char *what, struct tcgplugin_files *f, char *why, size_t why_len)
{
	int r;

	memset(f, 0, sizeof(*f));
	r = files_find(run_dir, runners_dir, name, what, f, why, why_len);
	if (r < 0)
		tcgplugin_files_free(f);
	return r;
}

int tcgplugin_nm(const char *option, const char *file, char **out)
{
	char *const argv[] = {"nm", (char *)option, "--defined-only", (char *)file, NULL};
	int status = 0, r;

	*out = NULL;
	r = spawn_capture(argv, NM_MAX_BYTES, NM_TIMEOUT_S, out, &status);
	if (r == 0 && (status != 0 || !*out)) {
		free(*out);
		*out = NULL;
		r = -EIO;
	}
	return r;
}

/* " NAME\n" in nm's text: the plugin's symbol, defined. */
static int nm_lists(const char *text, const char *name)
{
	char line[128];

	snprintf(line, sizeof(line), " %s\n", name);
	return strstr(text, line) != NULL;
}

int tcgplugin_write_map(const struct tcgplugin_files *f, const char *kernel, const char *who,
			const char *need, int *empty, char *why, size_t why_len)
{
	_cleanup_free_ char *text = NULL;
	int r = tcgplugin_nm("-n", kernel, &text);

	if (empty)
		*empty = 0;
	if (need && (r < 0 || !nm_lists(text, need))) {
		snprintf(why, why_len, "%s needs a kernel the lab built (a vmlinux with its "
			 "symbols, %s among them): nm %s %s", who, need, kernel,
			 r == -EIO ? "failed" : r < 0 ? strerror(-r) : "found none");
		return r < 0 && r != -EIO ? r : -ENOENT;
	}
	if (r < 0) {
		free(text);
		text = NULL;
		if (empty)
			*empty = 1;
	}
	r = fs_write_atomic(f->map, text ? text : "", text ? strlen(text) : 0);
	if (r < 0)
		snprintf(why, why_len, "cannot write %s: %s", f->map, strerror(-r));
	return r;
}

int tcgplugin_read_out(const char *run_dir, const char *name, const char *what, size_t max,
		       char **text, size_t *len, char *why, size_t why_len)
{
	_cleanup_free_ char *map = NULL, *out = NULL;
	char base[64];
	int r;

	snprintf(base, sizeof(base), "%s.map", name);
	map = fs_join(run_dir, base);
	snprintf(base, sizeof(base), "%s.json", name);
	out = fs_join(run_dir, base);
	if (!map || !out)
		return -ENOMEM;
	unlink(map);
	r = fs_read_file(out, max, text, len);
	if (r == -EFBIG)
		snprintf(why, why_len, "%s wrote more than %zu bytes to %s", what, max, out);
	else if (r < 0)
		snprintf(why, why_len, "%s wrote no %s (%s): did QEMU end without exiting?", what,
			 out, strerror(-r));
	return r;
}

int tcgplugin_prepare_mapped(const char *run_dir, const char *runners_dir, const char *name,
			     const char *what, const char *kernel, const char *who,
			     const char *need, char *plugin, size_t len, char *why,
			     size_t why_len)
{
	struct tcgplugin_files f;
	int r;

	plugin[0] = '\0';
	r = tcgplugin_files(run_dir, runners_dir, name, what, &f, why, why_len);
	if (r < 0)
		return r;
	r = tcgplugin_write_map(&f, kernel, who, need, NULL, why, why_len);
	if (r == 0 && (size_t)snprintf(plugin, len, "file=%s,map=%s,out=%s", f.so, f.map, f.out) >=
			      len) {
		plugin[0] = '\0';
		snprintf(why, why_len, "the plugin's paths are too long: %s", f.dir);
		r = -ENAMETOOLONG;
	}
	tcgplugin_files_free(&f);
	return r;
}

int tcgplugin_collect(const char *run_dir, const char *name, const char *what, size_t max,
		      int (*parse)(const char *text, size_t len, json_t **out,
				   struct lab_error *err),
		      int (*attach)(json_t *run, const json_t *plugin), json_t *run, char *why,
		      size_t why_len)
{
	_cleanup_free_ char *text = NULL, *path = NULL;
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	char base[64];
	size_t n = 0;
	int r;

	snprintf(base, sizeof(base), "%s.json", name);
	if (!(path = fs_join(run_dir, base)))
		return -ENOMEM;
	r = tcgplugin_read_out(run_dir, name, what, max, &text, &n, why, why_len);
	if (r < 0)
		return r;
	if ((r = parse(text, n, &j, &err)) < 0) {
		error_set_file(&err, path);
		error_format(&err, why, why_len);
		return r;
	}
	r = attach(run, j);
	if (r < 0)
		snprintf(why, why_len, "out of memory");
	return r;
}
