/* A run with "lock_insns" (core/job.h): the lock-instruction counter around one boot.
 * Before: the kernel's symbol map (`nm -n` of its vmlinux: the plugin finds the spinlock entry
 * points and names call sites by it) and the -plugin value for the domain (core/domain.h).
 * After: the plugin's counts joined to the run's results (core/lockinsn.h). */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* The kernel command-line word the counter needs: call sites and entry points are the
 * vmlinux's own addresses only without KASLR. */
#define LOCKINSN_CMDLINE "nokaslr"

/* Writes run_dir/lockinsn.map from kernel (a vmlinux with symbols) and fills plugin with
 * "file=...,map=...,out=run_dir/lockinsn.json".  runners_dir: the plugin is its sibling
 * plugin/lockinsn.so (build/ or PREFIX/lib/numalab/).  0, or a negative errno with why set. */
int lockinsn_prepare(const char *run_dir, const char *kernel, const char *runners_dir,
		     char *plugin, size_t len, char *why, size_t why_len);

/* Reads run_dir/lockinsn.json into run's results and removes the map.  Returns the number of
 * results that got counts, or a negative errno with why set (the run keeps its figures). */
int lockinsn_collect(const char *run_dir, json_t *run, char *why, size_t why_len);
