#include "core/diskplan.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/cleanup.h"

const struct diskplan_want diskplan_default_modules[] = {
	{ "virtio_pci", 0 },
	{ "virtio_blk", 0 },
	{ "crc32c_generic", 1 },
	{ "ext4", 0 },
};
const unsigned diskplan_nr_default_modules =
	sizeof(diskplan_default_modules) / sizeof(diskplan_default_modules[0]);

/* x86 boot protocol (Documentation/arch/x86/boot.rst): "HdrS" at 0x202, and at 0x20e the
 * offset, minus 0x200, of a NUL-terminated version string. */
#define BZ_MAGIC_OFF 0x202
#define BZ_VERSION_PTR_OFF 0x20e

int diskplan_kernel_release(const void *buf, size_t len, char *rel, size_t rlen)
{
	const unsigned char *b = buf;
	size_t off, n;
	uint16_t ptr;

	if (len < BZ_VERSION_PTR_OFF + 2 || memcmp(b + BZ_MAGIC_OFF, "HdrS", 4))
		return -EINVAL;
	ptr = (uint16_t)(b[BZ_VERSION_PTR_OFF] | b[BZ_VERSION_PTR_OFF + 1] << 8);
	off = (size_t)ptr + 0x200;
	if (ptr == 0 || off >= len)
		return -EINVAL;
	for (n = 0; off + n < len && n < 128; n++) {
		unsigned char c = b[off + n];

		if (c == '\0' || c == ' ')
			break;
		if (c < 0x21 || c > 0x7e || c == '/')
			return -EINVAL;
	}
	if (n == 0 || n >= rlen || n >= 128)
		return -EINVAL;
	snprintf(rel, rlen, "%.*s", (int)n, (const char *)b + off);
	return 0;
}

/* A module's name from its path: base name without .ko[.xz|.zst|.gz], '-' read as '_'
 * (modprobe treats them alike). */
static void module_name(const char *path, size_t len, char *buf, size_t blen)
{
	const char *base = path;
	size_t n;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	n = len - (size_t)(base - path);
	for (size_t i = 0; i + 3 <= n; i++)
		if (!strncmp(base + i, ".ko", 3) &&
		    (i + 3 == n || base[i + 3] == '.')) {
			n = i;
			break;
		}
	snprintf(buf, blen, "%.*s", (int)n, base);
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
}

/* The line of modules.dep (or modules.builtin) for name (in *line and *n), or 0 when none. */
static int find_line(const char *text, const char *name, const char **line, size_t *n)
{
	char want[128], got[128];

	snprintf(want, sizeof(want), "%s", name);
	for (char *p = want; *p; p++)
		if (*p == '-')
			*p = '_';
	for (const char *l = text; l && *l;) {
		size_t len = strcspn(l, "\n"), key = strcspn(l, ":\n");

		module_name(l, key, got, sizeof(got));
		if (!strcmp(got, want)) {
			*line = l;
			*n = len;
			return 1;
		}
		l += len + (l[len] == '\n');
	}
	return 0;
}

static int list_has(const json_t *list, const char *s, size_t n)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
		if (strlen(json_string_value(v)) == n && !strncmp(json_string_value(v), s, n))
			return 1;
	return 0;
}

static int list_add(json_t *list, const char *s, size_t n)
{
	if (list_has(list, s, n))
		return 0;
	if (json_array_size(list) >= DISKPLAN_MAX_MODULES)
		return -E2BIG;
	return json_array_append_new(list, json_stringn(s, n)) < 0 ? -ENOMEM : 0;
}

/* Add one modules.dep line: its dependencies (depmod lists them so that loading them last to
 * first works, as modprobe does), then the module itself. */
static int add_with_deps(json_t *list, const char *line, size_t n)
{
	size_t key = strcspn(line, ":");
	const char *deps = line + key + 1, *end = line + n;
	const char *starts[DISKPLAN_MAX_MODULES];
	size_t lens[DISKPLAN_MAX_MODULES], nd = 0;
	int r;

	if (key >= n || key == 0)
		return -EINVAL;
	for (const char *p = deps; p < end;) {
		while (p < end && *p == ' ')
			p++;
		size_t l = 0;

		while (p + l < end && p[l] != ' ')
			l++;
		if (l == 0)
			break;
		if (nd == DISKPLAN_MAX_MODULES)
			return -E2BIG;
		starts[nd] = p;
		lens[nd++] = l;
		p += l;
	}
	while (nd-- > 0)
		if ((r = list_add(list, starts[nd], lens[nd])) < 0)
			return r;
	return list_add(list, line, key);
}

int diskplan_modules(const char *modules_dep, const char *modules_builtin,
		     const struct diskplan_want *want, unsigned nr_want, json_t **out,
		     char *why, size_t len)
{
	_cleanup_json_ json_t *list = json_array();
	const char *line;
	size_t n;
	int r;

	*out = NULL;
	if (!list)
		return -ENOMEM;
	for (unsigned i = 0; i < nr_want; i++) {
		if (modules_builtin && find_line(modules_builtin, want[i].name, &line, &n))
			continue;
		if (modules_dep && find_line(modules_dep, want[i].name, &line, &n)) {
			r = add_with_deps(list, line, n);
			if (r < 0) {
				if (r == -E2BIG)
					snprintf(why, len, "more than %d modules to load",
						 DISKPLAN_MAX_MODULES);
				else
					snprintf(why, len, "modules.dep: bad line for %s",
						 want[i].name);
				return r;
			}
			continue;
		}
		if (want[i].optional)
			continue;
		snprintf(why, len, "the kernel has no %s: neither built in nor a module (booting "
			 "from a disk image needs virtio_pci, virtio_blk and ext4)", want[i].name);
		return -ENOENT;
	}
	*out = TAKE_PTR(list);
	return 0;
}

void diskplan_module_file(unsigned index, const char *relpath, char *buf, size_t len)
{
	const char *base = strrchr(relpath, '/');

	snprintf(buf, len, "%02u-%s", index, base ? base + 1 : relpath);
}

json_t *diskplan_config(const json_t *modules)
{
	json_t *files = json_array(), *m;
	size_t i;

	json_array_foreach(modules, i, m) {
		char name[256];

		diskplan_module_file((unsigned)i, json_string_value(m), name, sizeof(name));
		json_array_append_new(files, json_string(name));
	}
	return json_pack("{s:s,s:s,s:s,s:o,s:f}", "device", DISKPLAN_ROOT_DEVICE, "fstype",
			 DISKPLAN_ROOT_FSTYPE, "init", DISKPLAN_INIT, "modules", files, "timeout_s",
			 DISKPLAN_DEVICE_TIMEOUT_S);
}
