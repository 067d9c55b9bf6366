/* A run with "profile" (core/job.h): the instruction profile around one boot, a second QEMU
 * plugin beside the lock counter or the NUMA cost model (core/domain.h: plugin2).
 * Before: the kernel's symbol map (`nm -n` of its vmlinux) and the -plugin value.  After: the
 * plugin's counts joined to the run's results (core/profile.h). */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* The kernel command-line word the profile needs: symbols are the vmlinux's own addresses
 * only without KASLR. */
#define PROFILE_CMDLINE "nokaslr"

/* Writes run_dir/profile.map from kernel (a vmlinux with symbols) and fills plugin with
 * "file=...,map=...,out=run_dir/profile.json".  runners_dir: the plugin is its sibling
 * plugin/profile.so (build/ or PREFIX/lib/numalab/).  0, or a negative errno with why set. */
int profile_prepare(const char *run_dir, const char *kernel, const char *runners_dir,
		    char *plugin, size_t len, char *why, size_t why_len);

/* Reads run_dir/profile.json into run's results and removes the map.  Returns the number of
 * results that got a profile, or a negative errno with why set (the run keeps its figures). */
int profile_collect(const char *run_dir, json_t *run, char *why, size_t why_len);
