#include "util/checkout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fs.h"

int checkout_bin_dir(char *buf, size_t len)
{
	ssize_t n;
	char *slash;

	if (len < 2)
		return -ENAMETOOLONG;
	n = readlink("/proc/self/exe", buf, len - 1);
	if (n < 0)
		return -errno;
	if ((size_t)n >= len - 1)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	slash[slash == buf] = '\0'; /* a binary in /: its directory is / */
	return 0;
}

/* The kernel resolves every symlink in /proc/self/exe, so the parent of the binary's
 * directory is already canonical: no "build/.." in paths shown in reports. */
static int bin_checkout(char *buf, size_t len)
{
	int r = checkout_bin_dir(buf, len);
	char *slash;

	if (r < 0)
		return r;
	slash = strrchr(buf, '/');
	if (!slash)
		return -ENOENT;
	slash[slash == buf] = '\0'; /* a binary in /bin/: the checkout is / */
	return 0;
}

static int candidate(const char *dir, const char *rel, char *buf, size_t len)
{
	const char *sep = dir[strlen(dir) - 1] == '/' ? "" : "/";

	if ((size_t)snprintf(buf, len, "%s%s%s", dir, sep, rel) >= len)
		return 0;
	return fs_exists(buf);
}

int checkout_find(const char *rel, char *buf, size_t len)
{
	const char *root = getenv("LAB_ROOT");
	char dir[4096], data[4096 + sizeof(CHECKOUT_INSTALLED_DATA)];
	int have_bin;

	if (root && root[0] && candidate(root, rel, buf, len))
		return 0;
	have_bin = bin_checkout(dir, sizeof(dir)) == 0;
	if (have_bin && candidate(dir, rel, buf, len))
		return 0;
	if (have_bin) {
		snprintf(data, sizeof(data), "%s/%s", strcmp(dir, "/") ? dir : "",
			 CHECKOUT_INSTALLED_DATA);
		if (candidate(data, rel, buf, len))
			return 0;
	}
	if (candidate(".", rel, buf, len))
		return 0;
	if (have_bin)
		candidate(dir, rel, buf, len);
	return -ENOENT;
}

int checkout_runners_dir(char *buf, size_t len)
{
	char bin[4096], prefix[4096];
	int r = checkout_bin_dir(bin, sizeof(bin));

	buf[0] = '\0';
	if (r < 0)
		return r;
	if (candidate(bin, "runners", buf, len))
		return 0;
	if (bin_checkout(prefix, sizeof(prefix)) == 0 &&
	    candidate(prefix, CHECKOUT_INSTALLED_RUNNERS, buf, len))
		return 0;
	candidate(bin, "runners", buf, len);
	return -ENOENT;
}
