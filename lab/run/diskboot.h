/* The per-run pieces of booting from a disk image (runners/PROTOCOL.md): the stage-1
 * initramfs that carries the agent, the kernel modules it needs to reach the disk (from
 * /lib/modules/RELEASE of the kernel being booted) and the job; and the throw-away qcow2
 * overlay the guest writes to, backed by the cached base image, which is never written. */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* Write the stage-1 initramfs to out_path. */
int diskboot_initrd_write(const char *kernel, const char *runners_dir, const json_t *guestjob,
			  const char *out_path, char *why, size_t len);
/* Create overlay (qcow2) backed by base (qcow2) with libguestfs' disk_create, which runs no
 * appliance. */
int diskboot_overlay_create(const char *base, const char *overlay, char *why, size_t len);
