#include "util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"

int fs_read_file(const char *path, size_t max, char **out, size_t *len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t used = 0, cap = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		if (used + 4096 + 1 > cap) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *n = realloc(buf, ncap);

			if (!n)
				return -ENOMEM;
			buf = n;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + used, cap - used - 1);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		used += (size_t)r;
		if (used > max)
			return -EFBIG;
	}
	if (!buf && !(buf = malloc(1)))
		return -ENOMEM;
	buf[used] = '\0';
	if (len)
		*len = used;
	*out = TAKE_PTR(buf);
	return 0;
}

int fs_write_all(int fd, const void *data, size_t len)
{
	for (const char *p = data; len > 0;) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int fs_write_atomic(const char *path, const void *data, size_t len)
{
	_cleanup_free_ char *tmp = NULL;
	int fd, r;

	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = fs_write_all(fd, data, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

int fs_mkdir_p(const char *path, unsigned mode)
{
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

char *fs_join(const char *dir, const char *name)
{
	char *s;

	if (name[0] == '/' || !dir || !dir[0])
		return strdup(name);
	if (asprintf(&s, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name) < 0)
		return NULL;
	return s;
}

char *fs_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int fs_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int fs_rm_rf(const char *path)
{
	if (nftw(path, rm_entry, 64, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int fs_lock_wait(const char *path, volatile sig_atomic_t *interrupt, void (*waiting)(void *ud),
		 void *ud, int *fd)
{
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return -errno;
	if (flock(*fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (waiting)
		waiting(ud);
	while (flock(*fd, LOCK_EX) < 0)
		if (errno != EINTR || (interrupt && *interrupt))
			return -EINTR;
	return 0;
}

static int json_name_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 5 && n - 5 < 64 && d->d_name[0] != '.' && !strcmp(d->d_name + n - 5, ".json");
}

size_t fs_json_names(const char *dir, char (*names)[64], size_t max)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, json_name_filter, alphasort);
	size_t k = 0;

	for (int i = 0; i < n; i++) {
		if (k < max)
			snprintf(names[k++], 64, "%.*s", (int)strlen(ents[i]->d_name) - 5,
				 ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return k;
}
