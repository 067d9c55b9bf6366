#include "builder/initramfs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cpio.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"

#define RUNNER_MAX_SIZE (64u << 20)

char *initramfs_runners_dir(void)
{
	const char *env = getenv("LAB_RUNNERS_DIR");
	char dir[PATH_MAX] = "";

	if (env && env[0])
		return strdup(env);
	/* A directory that does not exist is still the answer: callers name it in errors. */
	if (checkout_runners_dir(dir, sizeof(dir)) < 0 && !dir[0])
		return NULL;
	return strdup(dir);
}

static int add_program(struct cpio_buf *cb, const char *dir, const char *name,
		       const char *dest)
{
	_cleanup_free_ char *path = fs_join(dir, name);
	_cleanup_free_ char *data = NULL;
	size_t len;
	int r;

	if (!path)
		return -ENOMEM;
	r = fs_read_file(path, RUNNER_MAX_SIZE, &data, &len);
	if (r < 0)
		return r;
	return cpio_add_file(cb, dest, 0755, data, len);
}

static int add_runners(struct cpio_buf *cb, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int r = 0;

	if (!d)
		return -errno;
	while (r == 0 && (de = readdir(d))) {
		char dest[PATH_MAX];

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "agent") ||
		    de->d_type != DT_REG)
			continue;
		snprintf(dest, sizeof(dest), "numalab/bin/%s", de->d_name);
		r = add_program(cb, dir, de->d_name, dest);
	}
	closedir(d);
	return r;
}

static int build_archive(struct cpio_buf *cb, const char *runners_dir, const json_t *guestjob,
			 const char *kernel_config)
{
	static const char *const dirs[] = { "dev", "proc", "sys", "tmp", "numalab", "numalab/bin" };
	_cleanup_free_ char *job = jsonio_dumps(guestjob);
	int r = 0;

	if (!job)
		return -ENOMEM;
	for (size_t i = 0; r == 0 && i < sizeof(dirs) / sizeof(dirs[0]); i++)
		r = cpio_add_dir(cb, dirs[i], 0755);
	/* The kernel opens /dev/console for init's stdio before devtmpfs is mounted. */
	if (r == 0)
		r = cpio_add_node(cb, "dev/console", S_IFCHR | 0600, 5, 1);
	if (r == 0)
		r = add_program(cb, runners_dir, "agent", "init");
	if (r == 0)
		r = add_runners(cb, runners_dir);
	if (r == 0)
		r = cpio_add_file(cb, "numalab/job.json", 0644, job, strlen(job));
	/* The build's .config, for the agent to compare its own with (runners/rt_kconfig.h). */
	if (r == 0 && kernel_config)
		r = cpio_add_file(cb, "numalab/kernel.config", 0644, kernel_config,
				  strlen(kernel_config));
	if (r == 0)
		r = cpio_finish(cb);
	return r;
}

int initramfs_write(const char *runners_dir, const json_t *guestjob, const char *kernel_config,
		    const char *out_path)
{
	struct cpio_buf cb = { 0 };
	int r = build_archive(&cb, runners_dir, guestjob, kernel_config);

	if (r == 0)
		r = fs_write_atomic(out_path, cb.data, cb.len);
	cpio_buf_free(&cb);
	return r;
}
