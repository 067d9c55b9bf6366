/* newc ("070701") cpio writer into memory, for initramfs images.  Pure: no I/O.
 *
 * Output is deterministic: mtime 0, uid/gid 0, inode numbers from a per-archive counter.  The
 * kernel accepts several archives concatenated (the base image plus a per-run job archive);
 * their inode numbers may repeat, which is harmless because it only links regular files whose
 * nlink >= 2 and every entry written here has nlink 1 (directories 2). */
#pragma once
#include <stddef.h>

/* Zero-initialise ("= { 0 }"); release with cpio_buf_free(). */
struct cpio_buf {
	unsigned char *data;
	size_t len, cap;
	unsigned long next_ino;
	int finished;
};

/* Paths are relative to the archive root; a leading "/" is dropped.  Empty paths, "." and ".."
 * components, "//" and a trailing "/" are -EINVAL.  mode holds the permission bits (07777);
 * file-type bits may be given too but must match the call (else -EINVAL).
 * All return 0 or a negative errno; after cpio_finish() they return -EINVAL. */
int cpio_add_file(struct cpio_buf *b, const char *path, unsigned mode, const void *data,
		  size_t len);
int cpio_add_dir(struct cpio_buf *b, const char *path, unsigned mode);
/* mode must carry S_IFCHR or S_IFBLK. */
int cpio_add_node(struct cpio_buf *b, const char *path, unsigned mode, unsigned major,
		  unsigned minor);
int cpio_add_symlink(struct cpio_buf *b, const char *path, const char *target);
/* Append the TRAILER!!! entry and zero-pad the archive to a multiple of 512 bytes. */
int cpio_finish(struct cpio_buf *b);
void cpio_buf_free(struct cpio_buf *b);
