#include "run/kernel_params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kvariant.h"
#include "util/cleanup.h"
#include "util/fs.h"

#define CONFIG_MAX (4u << 20)

unsigned long kparams_lpj_from(unsigned long tsc_khz, unsigned long hz)
{
	return hz ? tsc_khz * 1000 / hz : 0;
}

/* "config" beside a lab-built image (vmlinux or bzImage), or /boot/config-VER for
 * /boot/vmlinuz-VER. */
static char *config_path(const char *image)
{
	const char *base = strrchr(image, '/');
	_cleanup_free_ char *dir = fs_dirname(image);
	char *p = NULL;

	base = base ? base + 1 : image;
	if (!dir)
		return NULL;
	if (!strncmp(base, "vmlinuz-", 8)) {
		if (asprintf(&p, "%s/config-%s", dir, base + 8) < 0)
			return NULL;
	} else {
		p = fs_join(dir, "config");
	}
	return p;
}

static unsigned long host_tsc_khz(void)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	double mhz;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 && mhz > 0)
			return (unsigned long)(mhz * 1000.0);
	return 0;
}

int kparams_lpj(const char *kernel_image, unsigned long *lpj)
{
	_cleanup_free_ char *path = config_path(kernel_image);
	_cleanup_free_ char *text = NULL;
	struct kconfig kc = { 0 };
	struct lab_error err;
	const char *hz;
	unsigned long v = 0;

	if (!path)
		return -ENOMEM;
	if (fs_read_file(path, CONFIG_MAX, &text, NULL) < 0)
		return -ENOENT;
	if (kconfig_parse(text, 0, &kc, &err) == 0 && (hz = kconfig_get(&kc, "HZ")))
		v = kparams_lpj_from(host_tsc_khz(), strtoul(hz, NULL, 10));
	kconfig_free(&kc);
	if (!v)
		return -ENOENT;
	*lpj = v;
	return 0;
}
