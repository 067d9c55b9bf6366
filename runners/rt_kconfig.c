/* The guest's kernel config and vma_lock counters (rt_kconfig.h).  Static, zlib only. */
#include "rt_kconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "rt.h"
#include "util/fs.h"

#define VMSTAT_MAX (64 * 1024)
#define VMA_LOCK_MAX_COUNTERS 16

/* Decompress path into a NUL-terminated buffer of at most RT_KCONFIG_MAX bytes. */
static int read_gz(const char *path, char **out, const char **why)
{
	gzFile f = gzopen(path, "rb");
	size_t len = 0;
	char *buf;
	int n;

	if (!f) {
		*why = errno == ENOENT ? "no /proc/config.gz (kernel without IKCONFIG_PROC)"
				       : "cannot open /proc/config.gz";
		return -ENOENT;
	}
	buf = malloc(RT_KCONFIG_MAX + 1);
	if (!buf) {
		gzclose(f);
		return *why = "out of memory", -ENOMEM;
	}
	while ((n = gzread(f, buf + len, (unsigned)(RT_KCONFIG_MAX + 1 - len))) > 0) {
		len += (size_t)n;
		if (len > RT_KCONFIG_MAX)
			break;
	}
	/* zlib passes a file that is not gzip through unchanged: that is not our config. */
	if (n >= 0 && len > 0 && gzdirect(f))
		n = -1;
	gzclose(f);
	if (n < 0 || len > RT_KCONFIG_MAX) {
		free(buf);
		*why = n < 0 ? "/proc/config.gz: not valid gzip" : "/proc/config.gz: too large";
		return -EINVAL;
	}
	buf[len] = '\0';
	rt_utf8_sanitize(buf, len);
	*out = buf;
	return 0;
}

/* The vma_lock_* lines of /proc/vmstat as {"vma_lock_success": N, ...}, or JSON null. */
static json_t *vma_lock_counters(const char *root)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	json_t *o;
	char *line, *save = NULL;

	if (asprintf(&path, "%s/proc/vmstat", root) < 0)
		return NULL;
	if (fs_read_file(path, VMSTAT_MAX, &text, NULL) < 0)
		return json_null();
	o = json_object();
	for (line = strtok_r(text, "\n", &save); o && line; line = strtok_r(NULL, "\n", &save)) {
		char name[65];
		unsigned long long v;

		if (strncmp(line, "vma_lock_", 9) || sscanf(line, "%64s %llu", name, &v) != 2)
			continue;
		if (json_object_size(o) < VMA_LOCK_MAX_COUNTERS)
			json_object_set_new(o, name, json_integer((json_int_t)v));
	}
	if (o && json_object_size(o) == 0) {
		json_decref(o);
		return json_null();
	}
	return o;
}

/* Whether config is the text the host expects (RT_KCONFIG_EXPECTED under root). */
static int config_expected(const char *root, const char *config)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	size_t len;

	if (asprintf(&path, "%s" RT_KCONFIG_EXPECTED, root) < 0 ||
	    fs_read_file(path, RT_KCONFIG_MAX, &text, &len) < 0)
		return 0;
	return len == strlen(config) && memcmp(text, config, len) == 0;
}

json_t *rt_kernel_line(const char *root)
{
	_cleanup_free_ char *path = NULL;
	char *config = NULL;
	const char *why = NULL;
	json_t *j;

	if (asprintf(&path, "%s/proc/config.gz", root) < 0)
		return NULL;
	read_gz(path, &config, &why);
	if (config && config_expected(root, config))
		j = json_pack("{s:s, s:b, s:o}", CHANNEL_KEY_TYPE, CHANNEL_T_KERNEL, "config_same",
			      1, "vmstat", vma_lock_counters(root));
	else
		j = json_pack("{s:s, s:o, s:o}", CHANNEL_KEY_TYPE, CHANNEL_T_KERNEL, "config",
			      config ? json_string(config) : json_null(), "vmstat",
			      vma_lock_counters(root));
	free(config);
	if (j && why)
		json_object_set_new(j, "config_error", json_string(why));
	return j;
}

json_t *rt_vmstat_line(const char *root)
{
	return json_pack("{s:s, s:o}", CHANNEL_KEY_TYPE, CHANNEL_T_VMSTAT, "vmstat",
			 vma_lock_counters(root));
}
