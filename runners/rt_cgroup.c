#include "rt_cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "rt.h"
#include "util/fs.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* Counter files are small; the largest (memory.stat) is a few KiB. */
#define CG_FILE_MAX (64 * 1024)

static int cg_is_cgroup2(const char *root)
{
	struct statfs st;

	return statfs(root, &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC;
}

int rt_cgroup_setup(const char *root, int *memory, char *why, size_t len)
{
	char path[256];
	int r;

	*memory = 0;
	if (!cg_is_cgroup2(root)) {
		mkdir(root, 0755);
		if (mount("cgroup2", root, "cgroup2", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
			r = -errno;
			snprintf(why, len, "mount cgroup2 on %s: %s (a kernel without CONFIG_CGROUPS?)",
				 root, strerror(errno));
			return r;
		}
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	r = rt_write_file(path, "+memory");
	if (r < 0) {
		snprintf(why, len, "cannot enable the memory controller (%s: +memory: %s)", path,
			 strerror(-r));
		return 0;
	}
	*memory = 1;
	return 0;
}

int rt_cgroup_create(const char *root, const char *name, char *dir, size_t len)
{
	snprintf(dir, len, "%s/%s", root, name);
	/* A group left by an earlier runner in this boot holds counters of that run. */
	if (rmdir(dir) < 0 && errno != ENOENT)
		return -errno;
	return mkdir(dir, 0755) < 0 ? -errno : 0;
}

int rt_cgroup_enter(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return rt_write_file(path, "0"); /* 0: the writing process */
}

int rt_cgroup_value(const char *dir, const char *file, long long *out)
{
	_cleanup_free_ char *s = NULL, *path = fs_join(dir, file);
	char *end;
	int r;

	if (!path)
		return -ENOMEM;
	if ((r = fs_read_file(path, CG_FILE_MAX, &s, NULL)) < 0)
		return r;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || end == s ? -EINVAL : 0;
}

int rt_cgroup_key(const char *dir, const char *file, const char *key, long long *out)
{
	_cleanup_free_ char *s = NULL, *path = fs_join(dir, file);
	size_t k = strlen(key);
	int r;

	if (!path)
		return -ENOMEM;
	if ((r = fs_read_file(path, CG_FILE_MAX, &s, NULL)) < 0)
		return r;
	for (char *line = s; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, key, k) && line[k] == ' ') {
			*out = strtoll(line + k + 1, NULL, 10);
			return 0;
		}
	return -ENOENT;
}
