#include "run/diskboot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builder/image.h"
#include "core/cpio.h"
#include "core/diskplan.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

#define KERNEL_HEAD (64u * 1024)
#define MODULES_TEXT_MAX (16u << 20)
#define MODULE_MAX (64u << 20)
#define PROGRAM_MAX (64u << 20)

static int elf_release(const char *kernel, char *rel, size_t rlen, char *why, size_t len)
{
	_cleanup_free_ char *dir = fs_dirname(kernel), *path = NULL, *text = NULL;

	path = dir ? fs_join(dir, "release") : NULL;
	if (!path || fs_read_file(path, 256, &text, NULL) < 0 || !text[0] || text[0] == '\n') {
		snprintf(why, len, "%s: an ELF kernel without a release file beside it", kernel);
		return -EINVAL;
	}
	snprintf(rel, rlen, "%.*s", (int)strcspn(text, "\n"), text);
	return 0;
}

static int kernel_release(const char *kernel, char *rel, size_t rlen, char *why, size_t len)
{
	_cleanup_close_ int fd = open(kernel, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ unsigned char *head = malloc(KERNEL_HEAD);
	ssize_t n;

	if (fd < 0 || !head) {
		snprintf(why, len, "cannot read the kernel %s: %s", kernel, strerror(errno));
		return fd < 0 ? -errno : -ENOMEM;
	}
	n = read(fd, head, KERNEL_HEAD);
	/* A lab-built PVH image is the ELF vmlinux, without a bzImage's setup header: its
	 * artifact keeps the release beside it. */
	if (n >= 4 && !memcmp(head, "\x7f" "ELF", 4))
		return elf_release(kernel, rel, rlen, why, len);
	if (n < 0 || diskplan_kernel_release(head, (size_t)n, rel, rlen) < 0) {
		snprintf(why, len, "%s: no release string in its bzImage header", kernel);
		return -EINVAL;
	}
	return 0;
}

/* The modules to carry, as paths relative to dir (dir "" and none when the kernel has no
 * modules directory). */
static int kernel_modules(const char *kernel, char *dir, size_t dlen, json_t **mods, char *why,
			  size_t len)
{
	_cleanup_free_ char *dep = NULL, *builtin = NULL;
	char rel[160], path[PATH_MAX + 32];
	int r = kernel_release(kernel, rel, sizeof(rel), why, len);

	if (r < 0)
		return r;
	snprintf(dir, dlen, "/lib/modules/%s", rel);
	if (!fs_exists(dir)) {
		dir[0] = '\0';
		*mods = json_array();
		return *mods ? 0 : -ENOMEM;
	}
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	r = fs_read_file(path, MODULES_TEXT_MAX, &dep, NULL);
	if (r < 0) {
		snprintf(why, len, "cannot read %s: %s (run depmod %s)", path, strerror(-r), rel);
		return r;
	}
	snprintf(path, sizeof(path), "%s/modules.builtin", dir);
	fs_read_file(path, MODULES_TEXT_MAX, &builtin, NULL);
	r = diskplan_modules(dep, builtin, diskplan_default_modules, diskplan_nr_default_modules,
			     mods, why, len);
	if (r < 0) {
		char tail[256];

		snprintf(tail, sizeof(tail), "%s", why);
		snprintf(why, len, "kernel %s: %s", rel, tail);
	}
	return r;
}

static int add_file(struct cpio_buf *cb, const char *src, const char *dest, unsigned mode,
		    size_t max)
{
	_cleanup_free_ char *data = NULL;
	size_t n;
	int r = fs_read_file(src, max, &data, &n);

	return r < 0 ? r : cpio_add_file(cb, dest, mode, data, n);
}

static int add_modules(struct cpio_buf *cb, const char *dir, const json_t *mods)
{
	size_t i;
	json_t *m;

	json_array_foreach(mods, i, m) {
		char src[PATH_MAX + 256], name[256], dest[300];
		int r;

		snprintf(src, sizeof(src), "%s/%s", dir, json_string_value(m));
		diskplan_module_file((unsigned)i, json_string_value(m), name, sizeof(name));
		snprintf(dest, sizeof(dest), "%s/%s", DISKPLAN_MODULE_DIR, name);
		if ((r = add_file(cb, src, dest, 0644, MODULE_MAX)) < 0)
			return r;
	}
	return 0;
}

static int build_archive(struct cpio_buf *cb, const char *agent, const char *dir,
			 const json_t *mods, const json_t *guestjob)
{
	static const char *const dirs[] = { "dev", "proc", "sys", "run", "numalab",
					    DISKPLAN_MODULE_DIR };
	_cleanup_json_ json_t *cfg = diskplan_config(mods);
	_cleanup_free_ char *job = jsonio_dumps(guestjob);
	_cleanup_free_ char *cfgs = cfg ? jsonio_dumps(cfg) : NULL;
	int r = 0;

	if (!job || !cfgs)
		return -ENOMEM;
	for (size_t i = 0; r == 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		r = cpio_add_dir(cb, dirs[i], 0755);
	/* The kernel opens /dev/console for init's stdio before devtmpfs is mounted. */
	if (r == 0)
		r = cpio_add_node(cb, "dev/console", S_IFCHR | 0600, 5, 1);
	if (r == 0)
		r = add_file(cb, agent, "init", 0755, PROGRAM_MAX);
	if (r == 0)
		r = add_modules(cb, dir, mods);
	if (r == 0)
		r = cpio_add_file(cb, DISKPLAN_CONFIG_PATH, 0644, cfgs, strlen(cfgs));
	if (r == 0)
		r = cpio_add_file(cb, "numalab/job.json", 0644, job, strlen(job));
	if (r == 0)
		r = cpio_finish(cb);
	return r;
}

int diskboot_initrd_write(const char *kernel, const char *runners_dir, const json_t *guestjob,
			  const char *out_path, char *why, size_t len)
{
	_cleanup_free_ char *agent = fs_join(runners_dir, "agent");
	struct cpio_buf cb = { 0 };
	char dir[PATH_MAX];
	json_t *mods = NULL;
	int r;

	if (!agent)
		return -ENOMEM;
	r = kernel_modules(kernel, dir, sizeof(dir), &mods, why, len);
	if (r == 0) {
		r = build_archive(&cb, agent, dir, mods, guestjob);
		if (r < 0)
			snprintf(why, len, "cannot build the stage-1 initramfs: %s", strerror(-r));
	}
	if (r == 0 && (r = fs_write_atomic(out_path, cb.data, cb.len)) < 0)
		snprintf(why, len, "cannot write %s: %s", out_path, strerror(-r));
	cpio_buf_free(&cb);
	json_decref(mods);
	return r;
}

int diskboot_overlay_create(const char *base, const char *overlay, char *why, size_t len)
{
	guestfs_h *g = image_guestfs(0, why, len);
	int r = 0;

	if (!g)
		return -EIO;
	unlink(overlay);
	/* The base's format is written into the overlay: libvirt and QEMU refuse to guess it. */
	if (guestfs_disk_create(g, overlay, "qcow2", -1, GUESTFS_DISK_CREATE_BACKINGFILE, base,
				GUESTFS_DISK_CREATE_BACKINGFORMAT, "qcow2", -1) < 0) {
		snprintf(why, len, "cannot create the overlay %s: %s", overlay,
			 guestfs_last_error(g));
		r = -EIO;
	}
	guestfs_close(g);
	return r;
}
