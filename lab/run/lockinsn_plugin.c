/* The lock-instruction counter around one boot (run/lockinsn_plugin.h). */
#include "run/lockinsn_plugin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lockinsn.h"
#include "run/tcgplugin.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"

int lockinsn_prepare(const char *run_dir, const char *kernel, const char *runners_dir,
		     char *plugin, size_t len, char *why, size_t why_len)
{
	struct tcgplugin_files f;
	int r;

	plugin[0] = '\0';
	r = tcgplugin_files(run_dir, runners_dir, "lockinsn", "the lock-instruction counter", &f,
			    why, why_len);
	if (r < 0)
		return r;
	/* The plugin finds the spinlock entry points by name. */
	r = tcgplugin_write_map(&f, kernel, "lock_insns", "_raw_spin_lock", NULL, why, why_len);
	if (r == 0 && (size_t)snprintf(plugin, len, "file=%s,map=%s,out=%s", f.so, f.map, f.out) >=
			      len) {
		plugin[0] = '\0';
		snprintf(why, why_len, "the plugin's paths are too long: %s", f.dir);
		r = -ENAMETOOLONG;
	}
	tcgplugin_files_free(&f);
	return r;
}

int lockinsn_collect(const char *run_dir, json_t *run, char *why, size_t why_len)
{
	_cleanup_free_ char *path = fs_join(run_dir, "lockinsn.json");
	_cleanup_free_ char *text = NULL;
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	size_t n = 0;
	int r;

	if (!path)
		return -ENOMEM;
	r = tcgplugin_read_out(run_dir, "lockinsn", "the lock-instruction counter",
			       LOCKINSN_MAX_BYTES, &text, &n, why, why_len);
	if (r < 0)
		return r;
	if ((r = lockinsn_parse(text, n, &j, &err)) < 0) {
		error_set_file(&err, path);
		error_format(&err, why, why_len);
		return r;
	}
	r = lockinsn_attach(run, j);
	if (r < 0)
		snprintf(why, why_len, "out of memory");
	return r;
}
