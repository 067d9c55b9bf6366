/* libguestfs, opened with dlopen() the first time an image is built or read, not linked.
 *
 * Linking it would break libvirt's logging: libguestfs' library constructor calls
 * virInitialize(), which reads LIBVIRT_LOG_OUTPUTS before virt_open() can point it at the state
 * directory, so libvirt's warnings would land on every command's stderr.  It also keeps
 * libguestfs optional for commands that never touch an image.
 *
 * Code includes this header instead of <guestfs.h> and calls guestfs_*() as usual; the names
 * below are redirected to the loaded functions.  gfs_load() must have succeeded first
 * (image_guestfs() does it). */
#pragma once
#include <guestfs.h>
#include <stddef.h>

#define GFS_FUNCS(X) \
	X(guestfs_add_drive_opts) \
	X(guestfs_chmod) \
	X(guestfs_close) \
	X(guestfs_create) \
	X(guestfs_disk_create) \
	X(guestfs_download) \
	X(guestfs_exists) \
	X(guestfs_filesize) \
	X(guestfs_glob_expand) \
	X(guestfs_is_dir_opts) \
	X(guestfs_is_file_opts) \
	X(guestfs_last_error) \
	X(guestfs_launch) \
	X(guestfs_ln_sf) \
	X(guestfs_mkdir_p) \
	X(guestfs_mkfs) \
	X(guestfs_mount) \
	X(guestfs_mount_options) \
	X(guestfs_mount_ro) \
	X(guestfs_part_disk) \
	X(guestfs_set_backend) \
	X(guestfs_set_backend_settings) \
	X(guestfs_set_error_handler) \
	X(guestfs_set_label) \
	X(guestfs_shutdown) \
	X(guestfs_tar_in_opts) \
	X(guestfs_umount_all) \
	X(guestfs_upload) \
	X(guestfs_write) \

struct gfs_api {
#define GFS_PTR(f) __typeof__(f) *f;
	GFS_FUNCS(GFS_PTR)
#undef GFS_PTR
};

extern struct gfs_api gfs_api;

/* Load libguestfs.so.0 once.  0, or -ENOENT with err saying how to install it. */
int gfs_load(char *err, size_t len);

#ifndef GFS_NO_REDIRECT
#define guestfs_add_drive_opts (*gfs_api.guestfs_add_drive_opts)
#define guestfs_chmod (*gfs_api.guestfs_chmod)
#define guestfs_close (*gfs_api.guestfs_close)
#define guestfs_create (*gfs_api.guestfs_create)
#define guestfs_disk_create (*gfs_api.guestfs_disk_create)
#define guestfs_download (*gfs_api.guestfs_download)
#define guestfs_exists (*gfs_api.guestfs_exists)
#define guestfs_filesize (*gfs_api.guestfs_filesize)
#define guestfs_glob_expand (*gfs_api.guestfs_glob_expand)
#define guestfs_is_dir_opts (*gfs_api.guestfs_is_dir_opts)
#define guestfs_is_file_opts (*gfs_api.guestfs_is_file_opts)
#define guestfs_last_error (*gfs_api.guestfs_last_error)
#define guestfs_launch (*gfs_api.guestfs_launch)
#define guestfs_ln_sf (*gfs_api.guestfs_ln_sf)
#define guestfs_mkdir_p (*gfs_api.guestfs_mkdir_p)
#define guestfs_mkfs (*gfs_api.guestfs_mkfs)
#define guestfs_mount (*gfs_api.guestfs_mount)
#define guestfs_mount_options (*gfs_api.guestfs_mount_options)
#define guestfs_mount_ro (*gfs_api.guestfs_mount_ro)
#define guestfs_part_disk (*gfs_api.guestfs_part_disk)
#define guestfs_set_backend (*gfs_api.guestfs_set_backend)
#define guestfs_set_backend_settings (*gfs_api.guestfs_set_backend_settings)
#define guestfs_set_error_handler (*gfs_api.guestfs_set_error_handler)
#define guestfs_set_label (*gfs_api.guestfs_set_label)
#define guestfs_shutdown (*gfs_api.guestfs_shutdown)
#define guestfs_tar_in_opts (*gfs_api.guestfs_tar_in_opts)
#define guestfs_umount_all (*gfs_api.guestfs_umount_all)
#define guestfs_upload (*gfs_api.guestfs_upload)
#define guestfs_write (*gfs_api.guestfs_write)
#endif
