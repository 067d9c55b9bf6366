/* Guest disk images from recipes (images/NAME.json, lab/core/imgrecipe.h).
 *
 * Building: mmdebstrap makes the root file system as a tarball from Debian's archive; then the
 * libguestfs C API creates a qcow2, partitions it, makes ext4, unpacks the tarball, uploads
 * the agent (as /numalab/agent, also /sbin/init), the runners (/numalab/bin/) and the recipe's
 * files.  libguestfs boots an appliance for that under KVM or TCG as the host's verdict says
 * (lab/run/accel.h): where KVM guests hang, libguestfs would too.
 *
 * The cache ($LAB_IMAGE_CACHE, default /var/cache/numalab/images for
 * root, else ~/.cache/numalab/images: util/cachedir.h; outside any checkout so
 * that CI clones reuse it) has one directory per recipe name and key, NAME-KEY16/, holding
 * disk.qcow2 (read-only: runs boot throw-away overlays of it), meta.json and build.log.  The
 * key is the sha256 of the recipe and of every file and program that goes in.  A build runs
 * in .tmp-NAME-KEY16-XXXXXX and is renamed into place only when complete, under a lock, so a
 * failed or killed build never leaves anything a lookup would take. */
#pragma once
#include <jansson.h>
#include <limits.h>

#include "builder/guestfs.h"
#include "core/imgrecipe.h"
#include "util/error.h"
#include "util/progress.h"

#define IMAGE_DISK "disk.qcow2"

struct image_info {
	char name[64];
	char key[65];
	char dir[PATH_MAX];          /* the cache entry */
	char disk[PATH_MAX];         /* dir/disk.qcow2: the read-only base */
	char recipe_path[PATH_MAX];
	int built;                   /* this call built it (0: found in the cache) */
	double build_s;
	int has_perf;                /* the recipe installs linux-perf */
};

struct image_opts {
	const char *cache_dir;       /* NULL: image_cache_dir() */
	const char *runners_dir;     /* the agent and runners that go in */
	int kvm;                     /* the host's KVM verdict; 0 gives libguestfs force_tcg */
	int rebuild;                 /* build even when cached (replaces the entry) */
	progress_fn *progress;
	void *progress_ud;
};

/* $LAB_IMAGE_CACHE, else cachedir_default("images") (util/cachedir.h). */
void image_cache_dir(char *buf, size_t len);
/* A recipe reference -> file.  A path (contains '/' or ends in .json) is taken relative to
 * base_dir (NULL: the current directory); a name is images/NAME.json found as
 * util/checkout.h says ($LAB_ROOT, the lab binary's checkout, the current directory).
 * -ENOENT with err->msg saying where it looked. */
int image_recipe_path(const char *ref, const char *base_dir, char *out, size_t len,
		      struct lab_error *err);
/* Load and validate the recipe, read what goes in and compute the key and cache entry.
 * Errors in the recipe or its files are -EINVAL with err naming the recipe file and the JSON
 * path ("files[0].src: cannot read ..."). */
int image_resolve(const char *recipe_path, const struct image_opts *o, struct image_info *info,
		  struct lab_error *err);
/* image_resolve, and when the cache lacks the image, `mmdebstrap --simulate` (a few seconds):
 * an unknown package is found before anything is built or written, as an -EINVAL that names
 * its JSON path ("packages[3]: unknown package \"foo\" in bookworm (...)"). */
int image_precheck(const char *recipe_path, const struct image_opts *o,
		   struct image_info *info, struct lab_error *err);
/* image_resolve, then the cached entry, or a build when there is none.  Recipe problems that
 * only the build finds (an unknown package) are -EINVAL with a JSON path too; other failures
 * are a negative errno with err->msg saying why. */
int image_ensure(const char *recipe_path, const struct image_opts *o, struct image_info *info,
		 struct lab_error *err);
/* Every complete entry of the cache as an array of their meta.json objects. */
int image_list(const char *cache_dir, json_t **out);
/* A libguestfs handle the lab's way: the direct backend, force_tcg unless kvm, errors kept
 * for guestfs_last_error() instead of printed.  NULL with err set. */
guestfs_h *image_guestfs(int kvm, char *err, size_t len);
