/* The lock-instruction counter around one boot (run/lockinsn_plugin.h). */
#include "run/lockinsn_plugin.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/lockinsn.h"
#include "util/cleanup.h"
#include "util/error.h"
#include "util/fs.h"
#include "util/spawn.h"

#define NM_MAX_BYTES (256u << 20) /* a vmlinux's text symbols: a few MiB */
#define NM_TIMEOUT_S 120

/* The text symbols only: the plugin reads lines "ADDR T NAME". */
static int write_map(const char *kernel, const char *map, char *why, size_t len)
{
	char *const argv[] = {"nm", "-n", "--defined-only", (char *)kernel, NULL};
	_cleanup_free_ char *out = NULL;
	int status = 0, r;

	r = spawn_capture(argv, NM_MAX_BYTES, NM_TIMEOUT_S, &out, &status);
	if (r < 0 || status != 0 || !out || !strstr(out, " _raw_spin_lock\n")) {
		snprintf(why, len, "lock_insns needs a kernel the lab built (a vmlinux with its "
			 "symbols, _raw_spin_lock among them): nm %s %s", kernel,
			 r < 0 ? strerror(-r) : status ? "failed" : "found no _raw_spin_lock");
		return r < 0 ? r : -ENOENT;
	}
	r = fs_write_atomic(map, out, strlen(out));
	if (r < 0)
		snprintf(why, len, "cannot write %s: %s", map, strerror(-r));
	return r;
}

int lockinsn_prepare(const char *run_dir, const char *kernel, const char *runners_dir,
		     char *plugin, size_t len, char *why, size_t why_len)
{
	_cleanup_free_ char *rel = fs_join(runners_dir, "../plugin/lockinsn.so");
	_cleanup_free_ char *so = NULL, *dir = NULL, *map = NULL, *out = NULL;
	int r;

	plugin[0] = '\0';
	if (!rel)
		return -ENOMEM;
	so = realpath(rel, NULL);
	if (!so) {
		snprintf(why, why_len, "the lock-instruction counter %s is missing (make builds it)",
			 rel);
		return -ENOENT;
	}
	if ((r = fs_mkdir_p(run_dir, 0755)) < 0 || !(dir = realpath(run_dir, NULL))) {
		snprintf(why, why_len, "cannot create %s", run_dir);
		return r < 0 ? r : -errno;
	}
	map = fs_join(dir, "lockinsn.map");
	out = fs_join(dir, "lockinsn.json");
	if (!map || !out)
		return -ENOMEM;
	unlink(out); /* an earlier run's counts must not be read as this one's */
	if ((r = write_map(kernel, map, why, why_len)) < 0)
		return r;
	if ((size_t)snprintf(plugin, len, "file=%s,map=%s,out=%s", so, map, out) >= len ||
	    strchr(so, ',') || strchr(dir, ',')) {
		plugin[0] = '\0';
		snprintf(why, why_len, "paths with commas cannot be QEMU plugin arguments: %s", dir);
		return -EINVAL;
	}
	return 0;
}

int lockinsn_collect(const char *run_dir, json_t *run, char *why, size_t why_len)
{
	_cleanup_free_ char *map = fs_join(run_dir, "lockinsn.map");
	_cleanup_free_ char *path = fs_join(run_dir, "lockinsn.json");
	_cleanup_free_ char *text = NULL;
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	size_t n = 0;
	int r;

	if (!map || !path)
		return -ENOMEM;
	unlink(map); /* megabytes, and the kernel's own: not part of the run's record */
	r = fs_read_file(path, LOCKINSN_MAX_BYTES, &text, &n);
	if (r < 0) {
		snprintf(why, why_len, "the lock-instruction counter wrote no %s (%s): did QEMU "
			 "end without exiting?", path, strerror(-r));
		return r;
	}
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
