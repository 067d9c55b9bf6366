/* What every QEMU TCG plugin of the lab needs around a boot (run/lockinsn_plugin.h,
 * run/numacost_plugin.h): its .so beside the runners, the run directory's absolute path, the
 * files it reads and writes there, the kernel's symbol map, and nm's text of a binary. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

/* Absolute paths, each malloc'd: QEMU gets them in one -plugin value, which has no quoting,
 * so none may hold a comma. */
struct tcgplugin_files {
	char *so;  /* runners_dir/../plugin/NAME.so (build/ or PREFIX/lib/numalab/) */
	char *dir; /* the run directory, created */
	char *map; /* dir/NAME.map: the kernel's symbols (tcgplugin_write_map) */
	char *out; /* dir/NAME.json: what the plugin writes at QEMU's exit, removed here so that
		    * an earlier run's is never read as this one's */
};

/* f for plugin NAME (what: the plugin in words, for why).  0, or a negative errno with why
 * set: the .so missing (make builds it), the directory not made, a comma in a path. */
int tcgplugin_files(const char *run_dir, const char *runners_dir, const char *name,
		    const char *what, struct tcgplugin_files *f, char *why, size_t why_len);
void tcgplugin_files_free(struct tcgplugin_files *f);

/* The output of `nm OPTION --defined-only FILE` (OPTION "-n": sorted by address, "-D": the
 * dynamic table) into *out, caller frees.  0, -errno, or -EIO when nm failed. */
int tcgplugin_nm(const char *option, const char *file, char **out);

/* f->map from the symbols of kernel (a vmlinux), as `nm -n` lists them.  need: a symbol the
 * plugin cannot work without; when nm cannot read the kernel or lacks it, a negative errno
 * with why naming who (the job's key) and what it needs.  need NULL: the map is optional to
 * the plugin, and a kernel without symbols gets an empty one, *empty (may be NULL) set to 1.
 * A map that cannot be written: a negative errno with why set. */
int tcgplugin_write_map(const struct tcgplugin_files *f, const char *kernel, const char *who,
			const char *need, int *empty, char *why, size_t why_len);

/* After the boot: removes run_dir/NAME.map (megabytes, and the kernel's own: no part of the
 * run's record) and reads run_dir/NAME.json, at most max bytes, into *text (caller frees)
 * and *len.  0, or a negative errno with why set: what wrote no file (QEMU ended without
 * exiting?) or more than max bytes. */
int tcgplugin_read_out(const char *run_dir, const char *name, const char *what, size_t max,
		       char **text, size_t *len, char *why, size_t why_len);

/* A plugin that needs only the kernel's map: f for NAME, the map (need: as
 * tcgplugin_write_map's, who the job's key), and plugin filled with
 * "file=...,map=...,out=..." (len bytes).  0, or a negative errno with why set. */
int tcgplugin_prepare_mapped(const char *run_dir, const char *runners_dir, const char *name,
			     const char *what, const char *kernel, const char *who,
			     const char *need, char *plugin, size_t len, char *why,
			     size_t why_len);

/* After the boot: NAME's output (tcgplugin_read_out, at most max bytes), checked by parse and
 * joined to run's results by attach.  attach's count, or a negative errno with why set (a
 * parse error names the file and the JSON path). */
int tcgplugin_collect(const char *run_dir, const char *name, const char *what, size_t max,
		      int (*parse)(const char *text, size_t len, json_t **out,
				   struct lab_error *err),
		      int (*attach)(json_t *run, const json_t *plugin), json_t *run, char *why,
		      size_t why_len);
