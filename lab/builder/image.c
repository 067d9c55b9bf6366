#include "builder/image.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/cachedir.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/progress.h"
#include "util/sha256.h"
#include "util/spawn.h"

#define RECIPE_MAX (1u << 20)
#define FILE_MAX (256u << 20)
#define PROGRAM_MAX (64u << 20)
#define MMDEBSTRAP_OUT_MAX (4u << 20)
#define MMDEBSTRAP_TIMEOUT_S 3600.0

/* Everything image_resolve learnt, kept for the build. */
struct image_ctx {
	const struct image_opts *o;
	struct image_info *info;
	struct img_recipe r;
	char cache[PATH_MAX];
	char **file_paths;              /* host path of each recipe file */
	char (*file_sha)[65];
	unsigned nr_programs;
	char (*program_names)[256];
	char (*program_sha)[65];
};

static void progress(const struct image_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void progress(const struct image_opts *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	progress_vemit(o->progress, o->progress_ud, fmt, ap);
	va_end(ap);
}

void image_cache_dir(char *buf, size_t len)
{
	cachedir_pick(NULL, "LAB_IMAGE_CACHE", "images", buf, len);
}

int image_recipe_path(const char *ref, const char *base_dir, char *out, size_t len,
		      struct lab_error *err)
{
	char rel[PATH_MAX];
	size_t n = strlen(ref);

	if (strchr(ref, '/') || (n > 5 && !strcmp(ref + n - 5, ".json"))) {
		if (ref[0] == '/' || !base_dir)
			snprintf(out, len, "%s", ref);
		else
			snprintf(out, len, "%s/%s", base_dir, ref);
		if (access(out, R_OK) == 0)
			return 0;
		error_set(err, "", "cannot read recipe %s: %s", out, strerror(errno));
		return -ENOENT;
	}
	snprintf(rel, sizeof(rel), "images/%s.json", ref);
	if (checkout_find(rel, out, len) == 0)
		return 0;
	error_set(err, "", "no recipe \"%s\": looked for images/%s.json under $LAB_ROOT, the "
		  "lab's checkout and the current directory", ref, ref);
	return -ENOENT;
}

static void ctx_free(struct image_ctx *c)
{
	for (unsigned i = 0; c->file_paths && i < c->r.nr_files; i++)
		free(c->file_paths[i]);
	free(c->file_paths);
	free(c->file_sha);
	free(c->program_names);
	free(c->program_sha);
	img_recipe_free(&c->r);
}

static int load_recipe(struct image_ctx *c, const char *path, struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL;
	const char *base = strrchr(path, '/');
	char name[256];
	size_t n;
	int r;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	snprintf(name, sizeof(name), "%.*s", (int)n, base);
	r = jsonio_load_file(path, RECIPE_MAX, &j, err);
	if (r < 0)
		return r;
	return img_recipe_from_json(j, name, &c->r, err);
}

/* Each recipe file, read and hashed: a missing one is the recipe's error. */
static int hash_files(struct image_ctx *c, const char *recipe_path, struct lab_error *err)
{
	_cleanup_free_ char *dir = fs_dirname(recipe_path);
	unsigned n = c->r.nr_files;

	c->file_paths = calloc(n + 1, sizeof(char *));
	c->file_sha = calloc(n + 1, sizeof(*c->file_sha));
	if (!dir || !c->file_paths || !c->file_sha)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		_cleanup_free_ char *data = NULL;
		char p[64];
		size_t len;
		int r;

		c->file_paths[i] = fs_join(dir, c->r.files[i].src);
		if (!c->file_paths[i])
			return -ENOMEM;
		snprintf(p, sizeof(p), "files[%u].src", i);
		r = fs_read_file(c->file_paths[i], FILE_MAX, &data, &len);
		if (r < 0)
			return error_set(err, p, "cannot read %s: %s", c->file_paths[i],
					 r == -EFBIG ? "larger than 256 MiB" : strerror(-r));
		r = sha256_hex(data, len, c->file_sha[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int filter_regular(const struct dirent *d)
{
	return d->d_name[0] != '.' && (d->d_type == DT_REG || d->d_type == DT_UNKNOWN);
}

static int hash_programs(struct image_ctx *c, struct lab_error *err)
{
	struct dirent **ents = NULL;
	int n = scandir(c->o->runners_dir, &ents, filter_regular, alphasort), r = 0, agent = 0;

	/* A lab-side problem (not the recipe's): -EIO, so that it is not reported as bad input. */
	if (n < 0)
		return error_set(err, "", "cannot read the runners in %s: %s (run make)",
				 c->o->runners_dir, strerror(errno)), -EIO;
	c->program_names = calloc((size_t)n + 1, sizeof(*c->program_names));
	c->program_sha = calloc((size_t)n + 1, sizeof(*c->program_sha));
	for (int i = 0; i < n; i++) {
		_cleanup_free_ char *path = fs_join(c->o->runners_dir, ents[i]->d_name);
		_cleanup_free_ char *data = NULL;
		size_t len;

		if (r == 0 && (!c->program_names || !c->program_sha || !path))
			r = -ENOMEM;
		if (r == 0 && (r = fs_read_file(path, PROGRAM_MAX, &data, &len)) == 0) {
			snprintf(c->program_names[c->nr_programs], 256, "%s", ents[i]->d_name);
			r = img_program_digest(data, len, c->program_sha[c->nr_programs++]);
			agent |= !strcmp(ents[i]->d_name, "agent");
		}
		free(ents[i]);
	}
	free(ents);
	if (r == 0 && !agent)
		r = -ENOENT;
	if (r < 0)
		error_set(err, "", "cannot read the agent and runners in %s: %s (run make)",
			  c->o->runners_dir, strerror(-r));
	return r < 0 ? -EIO : 0;
}

static int compute_key(struct image_ctx *c)
{
	struct img_input *files = calloc(c->r.nr_files + 1, sizeof(*files));
	struct img_input *progs = calloc(c->nr_programs + 1, sizeof(*progs));
	_cleanup_free_ char *text = NULL;
	int r = -ENOMEM;

	if (files && progs) {
		for (unsigned i = 0; i < c->r.nr_files; i++)
			files[i] = (struct img_input){ c->r.files[i].dest, c->file_sha[i],
						       c->r.files[i].mode };
		for (unsigned i = 0; i < c->nr_programs; i++)
			progs[i] = (struct img_input){ c->program_names[i], c->program_sha[i], 0 };
		text = img_key_text(&c->r, files, progs, c->nr_programs);
		if (text)
			r = sha256_hex(text, strlen(text), c->info->key);
	}
	free(files);
	free(progs);
	return r;
}

static int resolve(struct image_ctx *c, const char *recipe_path, struct lab_error *err)
{
	struct image_info *info = c->info;
	char entry[128];
	int r;

	memset(info, 0, sizeof(*info));
	snprintf(info->recipe_path, sizeof(info->recipe_path), "%s", recipe_path);
	if (c->o->cache_dir)
		snprintf(c->cache, sizeof(c->cache), "%s", c->o->cache_dir);
	else
		image_cache_dir(c->cache, sizeof(c->cache));
	if ((r = load_recipe(c, recipe_path, err)) < 0 ||
	    (r = hash_files(c, recipe_path, err)) < 0)
		return r;
	error_set_file(err, "");
	if ((r = hash_programs(c, err)) < 0 || (r = compute_key(c)) < 0)
		return r;
	snprintf(info->name, sizeof(info->name), "%s", c->r.name);
	img_entry_name(&c->r, info->key, entry, sizeof(entry));
	snprintf(info->dir, sizeof(info->dir), "%s/%s", c->cache, entry);
	snprintf(info->disk, sizeof(info->disk), "%s/%s", info->dir, IMAGE_DISK);
	for (unsigned i = 0; i < c->r.nr_packages; i++)
		info->has_perf |= !strncmp(c->r.packages[i], "linux-perf", 10);
	return 0;
}

int image_resolve(const char *recipe_path, const struct image_opts *o, struct image_info *info,
		  struct lab_error *err)
{
	struct image_ctx c = { .o = o, .info = info };
	int r = resolve(&c, recipe_path, err);

	ctx_free(&c);
	return r;
}

/* 1 when the disk matches the sha256 its meta.json records (or records none: an image built
 * before it was recorded), else 0: a base truncated or altered is never booted. */
static int disk_intact(const char *meta, const char *disk)
{
	_cleanup_json_ json_t *m = NULL;
	const char *want;
	char got[65];

	if (jsonio_load_file(meta, RECIPE_MAX, &m, NULL) < 0)
		return 0;
	want = json_string_value(json_object_get(m, "disk_sha256"));
	if (!want)
		return 1;
	return sha256_file_hex(disk, got) == 0 && !strcmp(got, want);
}

/* The entry's files are there (no hash: the base is read once per run, in image_ensure). */
static int entry_present(const struct image_info *info)
{
	char meta[PATH_MAX + 16];

	snprintf(meta, sizeof(meta), "%s/meta.json", info->dir);
	return fs_exists(info->disk) && fs_exists(meta);
}

/* 1 when the cache has the image whole; 0 when not, *damaged set when it has one whose disk
 * no longer matches its hash. */
static int entry_complete_why(const struct image_info *info, int *damaged)
{
	char meta[PATH_MAX + 16];

	*damaged = 0;
	if (!entry_present(info))
		return 0;
	snprintf(meta, sizeof(meta), "%s/meta.json", info->dir);
	*damaged = !disk_intact(meta, info->disk);
	return !*damaged;
}

static int entry_complete(const struct image_info *info)
{
	int damaged;

	return entry_complete_why(info, &damaged);
}

/* The base disk's hash into the meta text, once the disk is final. */
static char *meta_with_disk(const char *text, const char *disk)
{
	_cleanup_json_ json_t *m = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	char sha[65];

	if (!m || sha256_file_hex(disk, sha) < 0 ||
	    json_object_set_new(m, "disk_sha256", json_string(sha)) < 0)
		return NULL;
	return jsonio_dumps(m);
}

guestfs_h *image_guestfs(int kvm, char *err, size_t len)
{
	char *tcg[] = { "force_tcg", NULL }, *none[] = { NULL };
	guestfs_h *g;

	if (gfs_load(err, len) < 0)
		return NULL;
	g = guestfs_create();
	if (!g) {
		snprintf(err, len, "cannot create a libguestfs handle");
		return NULL;
	}
	guestfs_set_error_handler(g, NULL, NULL);
	/* The direct backend runs QEMU itself (no libvirtd here).  libguestfs would pick KVM
	 * whenever /dev/kvm opens, and on hosts where KVM guests hang its appliance hangs too. */
	if (guestfs_set_backend(g, "direct") < 0 ||
	    guestfs_set_backend_settings(g, kvm ? none : tcg) < 0) {
		snprintf(err, len, "libguestfs: %s", guestfs_last_error(g));
		guestfs_close(g);
		return NULL;
	}
	return g;
}

/* ---- building ---------------------------------------------------------------------------- */

static int run_mmdebstrap(struct image_ctx *c, const char *tar, int simulate, const char *log,
			  struct lab_error *err)
{
	char **argv = img_mmdebstrap_argv(&c->r, tar, simulate);
	_cleanup_free_ char *out = NULL;
	int status = 0, r;

	if (!argv)
		return -ENOMEM;
	r = spawn_capture(argv, MMDEBSTRAP_OUT_MAX, MMDEBSTRAP_TIMEOUT_S, &out, &status);
	img_argv_free(argv);
	if (r < 0) {
		error_set(err, "", "cannot run mmdebstrap: %s%s", strerror(-r),
			  r == -ENOENT ? " (install it: make deps)" : "");
		return r;
	}
	if (log)
		fs_write_atomic(log, out, strlen(out));
	if (status == 0)
		return 0;
	/* A package, suite or mirror problem is the recipe's: name it and its JSON path. */
	error_set_file(err, c->info->recipe_path);
	return img_mmdebstrap_error(&c->r, out, status, err);
}

static int gfs_fail(guestfs_h *g, const char *what, struct lab_error *err)
{
	const char *m = guestfs_last_error(g);

	error_set(err, "", "libguestfs: %s: %s", what, m ? m : "failed");
	return -EIO;
}

static int upload(guestfs_h *g, const char *src, const char *dest, unsigned mode,
		  struct lab_error *err)
{
	_cleanup_free_ char *dir = fs_dirname(dest);

	if (!dir)
		return -ENOMEM;
	if (guestfs_mkdir_p(g, dir) < 0 || guestfs_upload(g, src, dest) < 0 ||
	    guestfs_chmod(g, (int)mode, dest) < 0)
		return gfs_fail(g, dest, err);
	return 0;
}

/* The lab's programs: the agent as /numalab/agent and the image's init, runners in bin/. */
static int upload_lab(struct image_ctx *c, guestfs_h *g, struct lab_error *err)
{
	int r = 0;

	for (unsigned i = 0; r == 0 && i < c->nr_programs; i++) {
		_cleanup_free_ char *src = fs_join(c->o->runners_dir, c->program_names[i]);
		char dest[PATH_MAX];

		if (!src)
			return -ENOMEM;
		if (!strcmp(c->program_names[i], "agent"))
			snprintf(dest, sizeof(dest), "%s", IMG_AGENT_PATH);
		else
			snprintf(dest, sizeof(dest), "%s/%s", IMG_BIN_DIR, c->program_names[i]);
		r = upload(g, src, dest, 0755, err);
	}
	if (r == 0 && guestfs_ln_sf(g, IMG_AGENT_PATH, IMG_INIT_PATH) < 0)
		r = gfs_fail(g, "link " IMG_INIT_PATH, err);
	return r;
}

static int fill_disk(struct image_ctx *c, guestfs_h *g, const char *tar, const char *meta,
		     struct lab_error *err)
{
	int r;

	if (guestfs_part_disk(g, "/dev/sda", "mbr") < 0)
		return gfs_fail(g, "partition /dev/sda", err);
	if (guestfs_mkfs(g, "ext4", "/dev/sda1") < 0 ||
	    guestfs_set_label(g, "/dev/sda1", "numalab-root") < 0)
		return gfs_fail(g, "mkfs.ext4 /dev/sda1", err);
	if (guestfs_mount(g, "/dev/sda1", "/") < 0)
		return gfs_fail(g, "mount /dev/sda1", err);
	progress(c->o, "image %s: unpacking the root file system onto the disk", c->r.name);
	if (guestfs_tar_in_opts(g, tar, "/", GUESTFS_TAR_IN_OPTS_XATTRS, 1, -1) < 0)
		return gfs_fail(g, "unpack the root file system", err);
	if ((r = upload_lab(c, g, err)) < 0)
		return r;
	for (unsigned i = 0; i < c->r.nr_files; i++)
		if ((r = upload(g, c->file_paths[i], c->r.files[i].dest, c->r.files[i].mode,
				err)) < 0)
			return r;
	if (guestfs_write(g, IMG_LAB_DIR "/image.json", meta, strlen(meta)) < 0)
		return gfs_fail(g, IMG_LAB_DIR "/image.json", err);
	/* Flush everything to the qcow2 before it is called done. */
	if (guestfs_umount_all(g) < 0 || guestfs_shutdown(g) < 0)
		return gfs_fail(g, "finish the disk", err);
	return 0;
}

static int make_disk(struct image_ctx *c, const char *tar, const char *disk, const char *meta,
		     struct lab_error *err)
{
	char msg[512];
	guestfs_h *g = image_guestfs(c->o->kvm, msg, sizeof(msg));
	int r;

	if (!g)
		return error_set(err, "", "%s", msg), -EIO;
	if (guestfs_disk_create(g, disk, "qcow2", (int64_t)c->r.size_mib << 20, -1) < 0 ||
	    guestfs_add_drive_opts(g, disk, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2", -1) < 0) {
		r = gfs_fail(g, "create the disk", err);
	} else {
		progress(c->o, "image %s: starting the libguestfs appliance (%s)",
			 c->r.name, c->o->kvm ? "KVM" : "TCG, ~20 s");
		r = guestfs_launch(g) < 0 ? gfs_fail(g, "launch the appliance", err)
					  : fill_disk(c, g, tar, meta, err);
	}
	guestfs_close(g);
	return r;
}

static json_t *inputs_json(const struct image_ctx *c)
{
	json_t *files = json_array(), *progs = json_array();

	for (unsigned i = 0; files && i < c->r.nr_files; i++)
		json_array_append_new(files, json_pack("{s:s,s:s,s:s}", "dest", c->r.files[i].dest,
						       "src", c->file_paths[i], "sha256",
						       c->file_sha[i]));
	for (unsigned i = 0; progs && i < c->nr_programs; i++)
		json_array_append_new(progs, json_pack("{s:s,s:s}", "name", c->program_names[i],
						       "digest", c->program_sha[i]));
	return json_pack("{s:o,s:o}", "files", files, "programs", progs);
}

static char *meta_text(const struct image_ctx *c)
{
	char when[32];
	time_t t = time(NULL);
	struct tm tm;
	_cleanup_json_ json_t *m = NULL;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	m = json_pack("{s:s,s:s,s:s,s:o,s:s,s:o,s:s,s:s,s:s}", "schema", IMG_BUILDER_VERSION,
		      "name", c->r.name, "key", c->info->key, "recipe", img_recipe_to_json(&c->r),
		      "recipe_file", c->info->recipe_path, "inputs", inputs_json(c), "built", when,
		      "accel", c->o->kvm ? "kvm" : "tcg", "disk", IMAGE_DISK);
	return m ? jsonio_dumps(m) : NULL;
}

static int build_into(struct image_ctx *c, const char *tmp, struct lab_error *err)
{
	_cleanup_free_ char *tar = fs_join(tmp, "rootfs.tar"), *disk = fs_join(tmp, IMAGE_DISK);
	_cleanup_free_ char *log = fs_join(tmp, "build.log"), *meta = fs_join(tmp, "meta.json");
	_cleanup_free_ char *text = meta_text(c), *final = NULL;
	double t0 = clock_now_s();
	int r;

	if (!tar || !disk || !log || !meta || !text)
		return -ENOMEM;
	progress(c->o, "image %s: mmdebstrap %s, %u package(s) from %s", c->r.name, c->r.suite,
		 c->r.nr_packages, c->r.mirror);
	if ((r = run_mmdebstrap(c, tar, 0, log, err)) < 0)
		return r;
	r = make_disk(c, tar, disk, text, err);
	unlink(tar);
	if (r < 0)
		return r;
	c->info->build_s = clock_now_s() - t0;
	/* mkdtemp made the directory 0700; the base is never written again. */
	final = meta_with_disk(text, disk);
	if (!final)
		r = -ENOMEM;
	if (r < 0 || chmod(tmp, 0755) < 0 || chmod(disk, 0444) < 0 ||
	    (r = fs_write_atomic(meta, final, strlen(final))) < 0) {
		r = r < 0 ? r : -errno;
		error_set(err, "", "cannot finish %s: %s", tmp, strerror(-r));
	}
	return r;
}

/* Leftovers of builds that were killed: only ever called under the cache lock. */
static void remove_stale(const char *cache)
{
	DIR *d = opendir(cache);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[PATH_MAX];

		if (strncmp(de->d_name, ".tmp-", 5) && strncmp(de->d_name, ".old-", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s", cache, de->d_name);
		fs_rm_rf(path);
	}
	if (d)
		closedir(d);
}

static int install(struct image_ctx *c, const char *tmp, struct lab_error *err)
{
	char old[PATH_MAX + 32];
	int moved = 0;

	snprintf(old, sizeof(old), "%s/.old-%s", c->cache, strrchr(c->info->dir, '/') + 1);
	if (fs_exists(c->info->dir)) {
		if (rename(c->info->dir, old) < 0)
			return error_set(err, "", "cannot replace %s: %s", c->info->dir,
					 strerror(errno)), -errno;
		moved = 1;
	}
	if (rename(tmp, c->info->dir) < 0) {
		int e = errno;

		error_set(err, "", "cannot move the image into %s: %s", c->info->dir, strerror(e));
		return -e;
	}
	if (moved)
		fs_rm_rf(old);
	return 0;
}

static int lock_cache(struct image_ctx *c, struct lab_error *err)
{
	char path[PATH_MAX + 8];
	int fd, r = fs_mkdir_p(c->cache, 0755);

	if (r < 0)
		return error_set(err, "", "cannot create the image cache %s: %s", c->cache,
				 strerror(-r)), r;
	snprintf(path, sizeof(path), "%s/.lock", c->cache);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return error_set(err, "", "cannot open %s: %s", path, strerror(errno)), -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		progress(c->o, "image %s: waiting for another build in %s", c->r.name, c->cache);
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
	}
	return fd;
}

static int build_locked(struct image_ctx *c, struct lab_error *err)
{
	char tmp[PATH_MAX + 64];
	int fd = lock_cache(c, err), r;

	if (fd < 0)
		return fd;
	/* Someone else may have built it while we waited. */
	if (!c->o->rebuild && entry_complete(c->info)) {
		close(fd);
		return 0;
	}
	remove_stale(c->cache);
	snprintf(tmp, sizeof(tmp), "%s/.tmp-%s-XXXXXX", c->cache, strrchr(c->info->dir, '/') + 1);
	if (!mkdtemp(tmp)) {
		r = -errno;
		error_set(err, "", "cannot create a build directory in %s: %s", c->cache,
			  strerror(-r));
	} else {
		r = build_into(c, tmp, err);
		if (r == 0)
			r = install(c, tmp, err);
		if (r < 0)
			fs_rm_rf(tmp);
	}
	close(fd);
	c->info->built = r == 0;
	return r;
}

int image_precheck(const char *recipe_path, const struct image_opts *o,
		   struct image_info *info, struct lab_error *err)
{
	struct image_ctx c = { .o = o, .info = info };
	int r = resolve(&c, recipe_path, err);

	/* Presence only: the simulation checks a package list no build has tried yet, and
	 * image_ensure verifies the base's hash right after (hashing a few hundred MiB twice
	 * per run bought nothing).  A damaged entry's list was built once already. */
	if (r == 0 && (o->rebuild || !entry_present(info))) {
		progress(o, "image %s: not in the cache; checking its package list "
			 "(mmdebstrap --simulate)", c.r.name);
		r = run_mmdebstrap(&c, "/dev/null", 1, NULL, err);
	}
	ctx_free(&c);
	return r;
}

int image_ensure(const char *recipe_path, const struct image_opts *o, struct image_info *info,
		 struct lab_error *err)
{
	struct image_ctx c = { .o = o, .info = info };
	int damaged = 0, r = resolve(&c, recipe_path, err);

	if (r == 0 && (o->rebuild || !entry_complete_why(info, &damaged))) {
		if (damaged)
			progress(o, "image %s: the cached %s does not match its recorded sha256 "
				 "(truncated or altered); rebuilding it", c.r.name, info->disk);
		else
			progress(o, "image %s: not in the cache (%s), building it", c.r.name,
				 c.cache);
		r = build_locked(&c, err);
	}
	ctx_free(&c);
	return r;
}

static int entry_dir(const struct dirent *d)
{
	return d->d_name[0] != '.' && (d->d_type == DT_DIR || d->d_type == DT_UNKNOWN);
}

int image_list(const char *cache_dir, json_t **out)
{
	struct dirent **ents = NULL;
	json_t *list = json_array();
	int n = scandir(cache_dir, &ents, entry_dir, alphasort);

	if (!list)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		char dir[PATH_MAX], path[PATH_MAX + 16];
		json_t *meta = NULL;
		struct stat st;

		snprintf(dir, sizeof(dir), "%s/%s", cache_dir, ents[i]->d_name);
		snprintf(path, sizeof(path), "%s/meta.json", dir);
		if (jsonio_load_file(path, RECIPE_MAX, &meta, NULL) == 0 && json_is_object(meta)) {
			snprintf(path, sizeof(path), "%s/%s", dir, IMAGE_DISK);
			json_object_set_new(meta, "dir", json_string(dir));
			json_object_set_new(meta, "disk_bytes",
					    json_integer(stat(path, &st) == 0
							 ? (json_int_t)st.st_blocks * 512 : -1));
			json_array_append_new(list, meta);
		} else {
			json_decref(meta);
		}
		free(ents[i]);
	}
	free(ents);
	*out = list;
	return 0;
}
