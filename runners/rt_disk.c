#include "rt_disk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"
#include "util/fs.h"

#define NEWROOT "/newroot"
#define CONFIG_MAX (64 * 1024)
#define JOB_MAX (1024 * 1024)
#define MODULE_INIT_COMPRESSED 4 /* MODULE_INIT_COMPRESSED_FILE, Linux 5.17+ */

extern char **environ;

static int disk_log_fd = -1, disk_results_fd = -1;

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t len, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return saved ? -saved : -EINVAL;
}

struct stage1_cfg {
	json_t *root;
	const char *device, *fstype, *init;
	json_t *modules;
	double timeout_s;
};

/* The config comes from the lab, but it is still checked: a bad one must say so, not crash. */
static int cfg_load(struct stage1_cfg *c, char *err, size_t len)
{
	_cleanup_free_ char *buf = NULL;
	size_t n, i;
	json_t *m;
	int r = fs_read_file(RT_STAGE1_CONFIG, CONFIG_MAX, &buf, &n);

	if (r < 0)
		return errno = -r, fail(err, len, "%s: %s", RT_STAGE1_CONFIG, strerror(-r));
	c->root = json_loadb(buf, n, JSON_REJECT_DUPLICATES, NULL);
	c->device = json_string_value(json_object_get(c->root, "device"));
	c->fstype = json_string_value(json_object_get(c->root, "fstype"));
	c->init = json_string_value(json_object_get(c->root, "init"));
	c->modules = json_object_get(c->root, "modules");
	c->timeout_s = json_number_value(json_object_get(c->root, "timeout_s"));
	errno = 0;
	if (!c->device || c->device[0] != '/' || !c->fstype || !c->init || c->init[0] != '/' ||
	    !json_is_array(c->modules) || !(c->timeout_s > 0 && c->timeout_s <= 600))
		return fail(err, len, "%s: needs device, fstype, init, modules and timeout_s",
			    RT_STAGE1_CONFIG);
	json_array_foreach(c->modules, i, m)
		if (!json_is_string(m) || strchr(json_string_value(m), '/'))
			return fail(err, len, "%s: modules[%zu] must be a file name",
				    RT_STAGE1_CONFIG, i);
	return 0;
}

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

/* One after the other, dependencies first: loading independent chains in parallel measured
 * slower under TCG (lab/core/diskplan.h). */
static int load_modules(const json_t *modules, char *err, size_t len)
{
	size_t i;
	json_t *m;

	json_array_foreach(modules, i, m) {
		const char *name = json_string_value(m);
		char path[512];
		int flags = has_suffix(name, ".xz") || has_suffix(name, ".zst") ||
			    has_suffix(name, ".gz") ? MODULE_INIT_COMPRESSED : 0;
		int fd, r;

		snprintf(path, sizeof(path), "/numalab/modules/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(err, len, "open %s: %s", path, strerror(errno));
		r = (int)syscall(SYS_finit_module, fd, "", flags);
		if (r < 0 && errno != EEXIST) {
			r = fail(err, len, "load module %s: %s", name, strerror(errno));
			close(fd);
			return r;
		}
		close(fd);
		unlink(path); /* the initramfs stays in RAM: give the copy back */
	}
	return 0;
}

static int wait_device(const char *dev, double timeout_s, char *err, size_t len)
{
	double end = rt_now_s() + timeout_s;
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct stat st;

	while (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode)) {
		if (rt_now_s() > end) {
			errno = ENODEV;
			return fail(err, len, "root device %s did not appear within %.0f s (the "
				    "kernel needs virtio_pci, virtio_blk and ext4)", dev, timeout_s);
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* The job goes into a tmpfs /run of the new root: it belongs to this boot, not to the disk. */
static int hand_over_job(char *err, size_t len)
{
	_cleanup_free_ char *job = NULL;
	size_t n;
	int r = fs_read_file(RT_STAGE1_JOB, JOB_MAX, &job, &n);

	if (r < 0)
		return errno = -r, fail(err, len, "%s: %s", RT_STAGE1_JOB, strerror(-r));
	mkdir(NEWROOT "/run", 0755);
	if (mount("tmpfs", NEWROOT "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
		return fail(err, len, "mount tmpfs on /run: %s", strerror(errno));
	if (mkdir(NEWROOT "/run/numalab", 0700) < 0 && errno != EEXIST)
		return fail(err, len, "mkdir /run/numalab: %s", strerror(errno));
	r = fs_write_atomic(NEWROOT RT_DISK_JOB, job, n);
	if (r < 0)
		return errno = -r, fail(err, len, "write %s: %s", RT_DISK_JOB, strerror(-r));
	return 0;
}

/* What busybox switch_root does: move the API mounts and the new root over /, chroot. */
static int switch_root(char *err, size_t len)
{
	static const char *const api[] = { "/dev", "/proc", "/sys" };

	for (size_t i = 0; i < sizeof(api) / sizeof(api[0]); i++) {
		char to[64];

		snprintf(to, sizeof(to), NEWROOT "%s", api[i]);
		mkdir(to, 0755);
		if (mount(api[i], to, NULL, MS_MOVE, NULL) < 0)
			return fail(err, len, "move %s: %s", api[i], strerror(errno));
	}
	if (chdir(NEWROOT) < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 ||
	    chdir("/") < 0)
		return fail(err, len, "switch to the new root: %s", strerror(errno));
	return 0;
}

int rt_stage1(char *err, size_t len)
{
	struct stage1_cfg c = { 0 };
	int r;

	if (access(RT_STAGE1_CONFIG, F_OK) < 0)
		return 0;
	r = cfg_load(&c, err, len);
	if (r == 0)
		r = load_modules(c.modules, err, len);
	if (r == 0)
		r = wait_device(c.device, c.timeout_s, err, len);
	if (r == 0 && mkdir(NEWROOT, 0755) < 0 && errno != EEXIST)
		r = fail(err, len, "mkdir %s: %s", NEWROOT, strerror(errno));
	if (r == 0 && mount(c.device, NEWROOT, c.fstype, 0, NULL) < 0)
		r = fail(err, len, "mount %s (%s): %s", c.device, c.fstype, strerror(errno));
	if (r == 0)
		r = hand_over_job(err, len);
	if (r == 0)
		r = switch_root(err, len);
	if (r == 0) {
		char *const argv[] = { (char *)c.init, NULL };

		execve(c.init, argv, environ);
		r = fail(err, len, "exec %s on %s: %s", c.init, c.device, strerror(errno));
	}
	json_decref(c.root);
	return r;
}

int rt_disk_booted(void)
{
	return getpid() == 1 && access(RT_DISK_JOB, R_OK) == 0 &&
	       access(RT_STAGE1_CONFIG, F_OK) < 0;
}

static int open_out(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), RT_DISK_OUT "/%s", name);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
}

int rt_disk_open(void)
{
	int r = fs_mkdir_p(RT_DISK_OUT, 0755);

	if (r < 0)
		return r;
	disk_log_fd = open_out("agent.log");
	disk_results_fd = open_out("results.jsonl");
	if (disk_log_fd < 0 || disk_results_fd < 0)
		return -errno;
	return 0;
}

void rt_disk_log(const char *buf, size_t n)
{
	if (disk_log_fd < 0)
		return;
	if (rt_write_full(disk_log_fd, buf, n) == 0)
		fdatasync(disk_log_fd);
}

void rt_disk_result(const json_t *j)
{
	if (disk_results_fd < 0 || !j)
		return;
	/* Same line as on the channel; a line the channel refuses (too long) is refused here. */
	if (rt_emit_line(disk_results_fd, j) == 0)
		fdatasync(disk_results_fd);
}

/* mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPEROPTS". */
json_t *rt_root_json(void)
{
	_cleanup_free_ char *text = NULL;
	char fstype[64] = "", source[256] = "";

	if (fs_read_file("/proc/self/mountinfo", 1 << 20, &text, NULL) < 0)
		return NULL;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char mnt[8], *dash = strstr(line, " - ");

		/* The last mount on / is the one on top. */
		if (sscanf(line, "%*s %*s %*s %*s %7s", mnt) == 1 && !strcmp(mnt, "/") && dash)
			sscanf(dash + 3, "%63s %255s", fstype, source);
	}
	if (!fstype[0])
		return NULL;
	rt_utf8_sanitize(source, strlen(source));
	return json_pack("{s:s,s:s}", "source", source, "fstype", fstype);
}
