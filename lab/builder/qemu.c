/* Building the contention model's QEMU: find the source through apt, key the build, fetch,
 * patch, configure, build with progress, store by key (builder/qemu.h). */
#include "builder/qemu.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/qemusrc.h"
#include "util/cachedir.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fetch.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"
#include "util/spawn.h"

/* What the build is configured with (part of the key).  --disable-relocatable: otherwise a
 * binary outside its install prefix looks for firmware under itself and misses pvh.bin and
 * kvmvapic.bin; the firmware is Debian's, where Debian's QEMU finds it.
 * --disable-debug-info: the build is most of a cold `make check`, and -g costs compile and
 * link time while gcc emits the same code with or without it (the model's figures do not
 * depend on it).  --enable-plugins: the NUMA cost model and the lock counts are TCG plugins
 * (--without-default-features turns plugins off); it costs the plain model little (qemuafl
 * measured 2 %, AFLplusplus/qemuafl PR 56). */
static const char *const configure_args[] = {
	"--target-list=x86_64-softmmu", "--python=/usr/bin/python3", "--prefix=/usr",
	"--disable-docs", "--disable-download", "--disable-install-blobs",
	"--without-default-features", "--enable-tcg", "--enable-kvm", "--disable-werror",
	"--disable-relocatable", "--disable-debug-info", "--enable-plugins",
	"--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu",
};
#define NR_CONFIGURE (sizeof(configure_args) / sizeof(configure_args[0]))

struct qctx {
	const struct qemu_build_opts *o;
	char cache[PATH_MAX], patch_dir[PATH_MAX];
	char *why;
	size_t why_len;
	struct qemusrc_file orig;
	char patch_path[QEMUSRC_MAX_PATCHES][PATH_MAX];
	char patch_sum[QEMUSRC_MAX_PATCHES][65];
	unsigned nr_patches;
	char compiler[256];
	char log[PATH_MAX + 90];  /* the build's log: logs/KEY.log */
	double t0;
	unsigned steps_done, steps;
};

__attribute__((format(printf, 3, 4))) static int fail(struct qctx *c, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, c->why_len, fmt, ap);
	va_end(ap);
	return r;
}

__attribute__((format(printf, 2, 3))) static void progress(struct qctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	progress_vemit(c->o->progress, c->o->progress_ud, fmt, ap);
	va_end(ap);
}

void qemu_cache_dir(const char *opt, char *buf, size_t len)
{
	cachedir_pick(opt, "LAB_QEMU_CACHE", "qemu", buf, len);
}

/* First line of a short command's output into out; -EIO when it fails. */
static int first_line(char *const argv[], char *out, size_t len)
{
	_cleanup_free_ char *text = NULL;
	int status = 0, r = spawn_capture(argv, 64 * 1024, 60, &text, &status);

	if (r < 0)
		return r;
	if (status != 0 || !text || !text[0])
		return -EIO;
	snprintf(out, len, "%.*s", (int)strcspn(text, "\n"), text);
	return 0;
}

static int find_source(struct qctx *c, struct qemu_build *b)
{
	char *ver[] = {"dpkg-query", "-W", "-f=${Version}", "qemu-system-x86", NULL};
	_cleanup_free_ char *spec = NULL, *text = NULL;
	int status = 0, r;

	if (first_line(ver, b->version, sizeof(b->version)) < 0)
		return fail(c, -ENOENT, "qemu-system-x86 is not installed (make deps)");
	if (asprintf(&spec, "qemu=%s", b->version) < 0)
		return -ENOMEM;
	char *uris[] = {"apt-get", "--print-uris", "source", spec, NULL};
	r = spawn_capture(uris, 256 * 1024, 120, &text, &status);
	if (r < 0)
		return fail(c, r, "cannot run apt-get: %s", strerror(-r));
	r = status == 0 ? qemusrc_parse_uris(text, &c->orig) : -ENOENT;
	if (r == -ENOENT)
		return fail(c, r, "apt knows no source of qemu %s: the lab needs a deb-src entry for "
			    "bookworm-backports (make deps writes one) and `apt-get update`",
			    b->version);
	if (r < 0)
		return fail(c, r, "apt-get --print-uris source %s: unexpected output", spec);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_patch(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 6 && !strcmp(d->d_name + n - 6, ".patch");
}

/* The .patch files of images/qemu in name order, with their sha256. */
static int find_patches(struct qctx *c)
{
	struct dirent **list = NULL;
	int n = scandir(c->patch_dir, &list, is_patch, by_name), r = 0;

	if (n < 0)
		return fail(c, -errno, "cannot read %s: %s", c->patch_dir, strerror(errno));
	if (n == 0 || n > QEMUSRC_MAX_PATCHES)
		r = fail(c, -EINVAL, "%s: %d patches (1..%d expected)", c->patch_dir, n,
			 QEMUSRC_MAX_PATCHES);
	for (int i = 0; i < n; i++) {
		if (r == 0) {
			snprintf(c->patch_path[i], sizeof(c->patch_path[i]), "%s/%s", c->patch_dir,
				 list[i]->d_name);
			r = sha256_file_hex(c->patch_path[i], c->patch_sum[i]);
			if (r < 0)
				r = fail(c, r, "cannot read %s", c->patch_path[i]);
		}
		free(list[i]);
	}
	free(list);
	c->nr_patches = r == 0 ? (unsigned)n : 0;
	return r;
}

static int compute_key(struct qctx *c, struct qemu_build *b)
{
	char *cc[] = {"cc", "--version", NULL};
	const char *sums[QEMUSRC_MAX_PATCHES];
	struct qemusrc_input in = {
		.version = b->version, .orig_sha256 = c->orig.sha256, .patch_sha256 = sums,
		.nr_patches = c->nr_patches, .configure = configure_args,
		.nr_configure = NR_CONFIGURE, .compiler = c->compiler,
	};

	if (first_line(cc, c->compiler, sizeof(c->compiler)) < 0)
		return fail(c, -ENOENT, "no C compiler (cc --version failed): make deps");
	for (unsigned i = 0; i < c->nr_patches; i++)
		sums[i] = c->patch_sum[i];
	return qemusrc_key(&in, b->key) < 0 ? fail(c, -EINVAL, "cannot key the build") : 0;
}

/* ninja's "[n/N] ..." lines: percent and ETA, at most one progress line per 5 %. */
static void on_line(void *ud, const char *line)
{
	struct qctx *c = ud;
	unsigned n, total, last = c->steps ? c->steps_done * 20 / c->steps : 0;
	double el, eta;

	if (sscanf(line, "[%u/%u]", &n, &total) != 2 || total == 0 || n > total)
		return;
	c->steps_done = n;
	c->steps = total;
	if (n * 20 / total == last && n != total)
		return;
	el = clock_now_s() - c->t0;
	eta = n ? el * (total - n) / n : 0;
	progress(c, "qemu: building %3u%% (%u/%u), %.0f s elapsed, ETA %.0f s", n * 100 / total, n,
		 total, el, eta);
}

static int run_step(struct qctx *c, const char *what, char *const argv[], const char *cwd,
		    int log_fd)
{
	struct spawn_job j = {
		.argv = argv, .cwd = cwd, .nice = 10, .log_fd = log_fd, .line = on_line, .ud = c,
		.interrupt = c->o->interrupt,
	};
	int status = 0, r = spawn_run(&j, &status);

	if (r == -EINTR)
		return fail(c, r, "qemu build interrupted (%s)", what);
	if (r < 0 || status != 0)
		return fail(c, r < 0 ? r : -EIO, "qemu build: %s failed (exit %d); log: %s", what,
			    status, c->log);
	return 0;
}

/* The one directory the tarball unpacked into (qemu-10.0.2). */
static int source_dir(struct qctx *c, const char *dir, char *out, size_t len)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, by_name), found = 0;

	for (int i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.' && !found++)
			snprintf(out, len, "%s/%s", dir, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return found == 1 ? 0 : fail(c, -EIO, "%s: the source tarball did not unpack into one "
				     "directory", dir);
}

static int build_meta(struct qctx *c, const struct qemu_build *b, const char *path)
{
	_cleanup_json_ json_t *m = json_pack("{s:s,s:s,s:{s:s,s:s},s:[],s:[],s:s,s:f}", "key",
					     b->key, "version", b->version, "orig", "url",
					     c->orig.url, "sha256", c->orig.sha256, "patches",
					     "configure", "compiler", c->compiler, "build_s",
					     b->build_s);
	json_t *p = m ? json_object_get(m, "patches") : NULL;
	json_t *a = m ? json_object_get(m, "configure") : NULL;

	if (!m)
		return -ENOMEM;
	for (unsigned i = 0; i < c->nr_patches; i++)
		json_array_append_new(p, json_pack("{s:s,s:s}", "file",
						   strrchr(c->patch_path[i], '/') + 1, "sha256",
						   c->patch_sum[i]));
	for (size_t i = 0; i < NR_CONFIGURE; i++)
		json_array_append_new(a, json_string(configure_args[i]));
	return jsonio_write_file(path, m);
}

static int build(struct qctx *c, struct qemu_build *b, const char *art)
{
	char dl[PATH_MAX + 80], work[PATH_MAX + 80], src[PATH_MAX + 200], bdir[PATH_MAX + 220];
	char *logp = c->log, tmp[PATH_MAX + 16], jobs[16], bin[PATH_MAX + 260];
	char why[1024];
	_cleanup_close_ int log_fd = -1;
	int r;

	snprintf(dl, sizeof(dl), "%s/downloads/%s", c->cache, c->orig.sha256);
	snprintf(work, sizeof(work), "%s/build/%s", c->cache, b->key);
	snprintf(c->log, sizeof(c->log), "%s/logs/%s.log", c->cache, b->key);
	if (!fs_exists(dl)) {
		progress(c, "qemu: fetching %s (%llu MB)", c->orig.name, c->orig.size >> 20);
		if ((r = fetch_url(c->orig.url, c->orig.sha256, dl, why, sizeof(why))) < 0)
			return fail(c, r, "qemu source: %s", why);
	}
	log_fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0)
		return fail(c, -errno, "cannot create %s: %s", logp, strerror(errno));
	fs_rm_rf(work);
	if ((r = fs_mkdir_p(work, 0755)) < 0)
		return fail(c, r, "cannot create %s", work);
	progress(c, "qemu: unpacking and patching %s", c->orig.name);
	char *untar[] = {"tar", "-xf", dl, "-C", work, NULL};
	if ((r = run_step(c, "unpacking", untar, NULL, log_fd)) < 0 ||
	    (r = source_dir(c, work, src, sizeof(src))) < 0)
		return r;
	for (unsigned i = 0; i < c->nr_patches; i++) {
		char *patch[] = {"patch", "-p1", "-s", "-i", c->patch_path[i], NULL};
		if ((r = run_step(c, c->patch_path[i], patch, src, log_fd)) < 0)
			return r;
	}
	snprintf(bdir, sizeof(bdir), "%s/build", src);
	if ((r = fs_mkdir_p(bdir, 0755)) < 0)
		return fail(c, r, "cannot create %s", bdir);
	char *conf[NR_CONFIGURE + 2] = {"../configure"};
	for (size_t i = 0; i < NR_CONFIGURE; i++)
		conf[i + 1] = (char *)configure_args[i];
	progress(c, "qemu: configuring (x86_64-softmmu; log %s)", logp);
	if ((r = run_step(c, "configure", conf, bdir, log_fd)) < 0)
		return r;
	snprintf(jobs, sizeof(jobs), "%u", c->o->jobs ? c->o->jobs
					      : (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	char *ninja[] = {"ninja", "-j", jobs, "qemu-system-x86_64", NULL};
	if ((r = run_step(c, "ninja", ninja, bdir, log_fd)) < 0)
		return r;
	b->build_s = clock_now_s() - c->t0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", art);
	fs_rm_rf(tmp);
	snprintf(bin, sizeof(bin), "%s/qemu-system-x86_64", bdir);
	snprintf(b->binary, sizeof(b->binary), "%s/qemu-system-x86_64", tmp);
	if ((r = fs_mkdir_p(tmp, 0755)) < 0 || rename(bin, b->binary) < 0)
		return fail(c, r < 0 ? r : -errno, "cannot store the build in %s", tmp);
	snprintf(b->binary, sizeof(b->binary), "%s/build.json", tmp);
	if ((r = build_meta(c, b, b->binary)) < 0 || rename(tmp, art) < 0)
		return fail(c, r < 0 ? r : -errno, "cannot store the build in %s", art);
	fs_rm_rf(work); /* about 1 GB; a rebuild only happens when an input changed */
	return 0;
}

static void say_waiting(void *ud)
{
	progress(ud, "qemu: waiting for another build of it to finish");
}

static int take_lock(struct qctx *c, const char *key, int *fd)
{
	char path[PATH_MAX + 96];

	int r;

	snprintf(path, sizeof(path), "%s/locks/%s.lock", c->cache, key);
	r = fs_lock_wait(path, c->o->interrupt, say_waiting, c, fd);
	if (r == -EINTR)
		return fail(c, r, "interrupted");
	return r < 0 ? fail(c, r, "cannot open %s: %s", path, strerror(-r)) : 0;
}

int qemu_build_ensure(const struct qemu_build_opts *o, struct qemu_build *out, char *why,
		      size_t len)
{
	struct qctx c = { .o = o, .why = why, .why_len = len, .t0 = clock_now_s() };
	char art[PATH_MAX + 96], dirs[PATH_MAX + 16];
	_cleanup_close_ int lock = -1;
	int r;

	memset(out, 0, sizeof(*out));
	why[0] = '\0';
	qemu_cache_dir(o->cache, c.cache, sizeof(c.cache));
	if (o->patch_dir)
		snprintf(c.patch_dir, sizeof(c.patch_dir), "%s", o->patch_dir);
	else if (checkout_find("images/qemu", c.patch_dir, sizeof(c.patch_dir)) < 0)
		return fail(&c, -ENOENT, "images/qemu not found (run from the lab's checkout)");
	if ((r = find_source(&c, out)) < 0 || (r = find_patches(&c)) < 0 ||
	    (r = compute_key(&c, out)) < 0)
		return r;
	snprintf(art, sizeof(art), "%s/artifacts/%s", c.cache, out->key);
	snprintf(out->binary, sizeof(out->binary), "%s/qemu-system-x86_64", art);
	if (!o->force && access(out->binary, X_OK) == 0)
		return out->cached = 1, 0;
	if (o->offline)
		return fail(&c, -ENOENT, "the contention model's QEMU (key %.16s) is not built: lab "
			    "qemu build", out->key);
	static const char *const sub[] = {"artifacts", "downloads", "build", "logs", "locks"};
	for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
		snprintf(dirs, sizeof(dirs), "%s/%s", c.cache, sub[i]);
		if ((r = fs_mkdir_p(dirs, 0755)) < 0)
			return fail(&c, r, "cannot create %s: %s (set LAB_QEMU_CACHE or --cache)",
				    dirs, strerror(-r));
	}
	if ((r = take_lock(&c, out->key, &lock)) < 0)
		return r;
	if (!o->force && access(out->binary, X_OK) == 0) /* built while we waited */
		return out->cached = 1, 0;
	if (o->force)
		fs_rm_rf(art);
	r = build(&c, out, art);
	snprintf(out->binary, sizeof(out->binary), "%s/qemu-system-x86_64", art);
	return r;
}
