/* The plan of a disk boot's stage 1 (runners/PROTOCOL.md, "Booting from a disk image"), as
 * memplan.h is the plan of a guest's memory: stage 1 is the lab's small per-run initramfs whose
 * /init (the agent) loads the disk and file-system drivers, mounts the image's root and hands
 * over to the image's own init.  This module decides which kernel modules it must carry, from
 * the kernel's modules.dep, and writes the config the agent reads.  Pure: lab/run/diskboot.c
 * reads the kernel and /lib/modules and writes the archive. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#define DISKPLAN_ROOT_DEVICE "/dev/vda1"
#define DISKPLAN_ROOT_FSTYPE "ext4"
#define DISKPLAN_INIT "/sbin/init"
#define DISKPLAN_CONFIG_PATH "numalab/stage1.json"
#define DISKPLAN_MODULE_DIR "numalab/modules"
#define DISKPLAN_MAX_MODULES 64
/* How long stage 1 waits for the root device once the drivers are loaded. */
#define DISKPLAN_DEVICE_TIMEOUT_S 30.0

struct diskplan_want {
	const char *name;
	int optional;
};

/* virtio_pci and virtio_blk (the disk), crc32c_generic (ext4's metadata checksums ask the
 * crypto API for crc32c, and stage 1 has no modprobe to load it on demand; optional because a
 * kernel may have it built in under another name) and ext4. */
extern const struct diskplan_want diskplan_default_modules[];
extern const unsigned diskplan_nr_default_modules;

/* The release in a bzImage's setup header ("6.1.0-57-amd64" from "6.1.0-57-amd64 (debian-...)
 * #1 SMP ..."), the directory name under /lib/modules.  -EINVAL when buf is not a bzImage
 * with a version string. */
int diskplan_kernel_release(const void *buf, size_t len, char *rel, size_t rlen);

/* The modules to load, dependencies first, as paths relative to the modules directory, from
 * the texts of modules.dep and modules.builtin (NULL = the kernel has no such file).  A
 * wanted module that is neither a module nor built in is an error (-ENOENT, why says which)
 * unless it is optional.  *out gets a JSON array of strings.  Stage 1 loads them one after
 * the other: loading the independent chains (virtio, ext4) in parallel measured slower under
 * TCG (from /init to ext4 mounted, median of 4 boots: 4.2 s in parallel, 3.2 s in turn; 8
 * vCPUs on 2 busy host cores). */
int diskplan_modules(const char *modules_dep, const char *modules_builtin,
		     const struct diskplan_want *want, unsigned nr_want, json_t **out,
		     char *why, size_t len);
/* The name a module gets in the archive: its index in load order and base name ("03-ext4.ko"). */
void diskplan_module_file(unsigned index, const char *relpath, char *buf, size_t len);
/* What the agent reads from DISKPLAN_CONFIG_PATH: {"device", "fstype", "init", "modules":
 * [archive file names in load order], "timeout_s"}. */
json_t *diskplan_config(const json_t *modules);
