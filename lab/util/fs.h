/* Small file-system helpers.  All return 0 or a negative errno. */
#pragma once
#include <signal.h>
#include <stddef.h>

/* Read a whole file, refusing more than max bytes (-EFBIG).  *out is NUL-terminated. */
int fs_read_file(const char *path, size_t max, char **out, size_t *len);
/* All len bytes to fd (a short write or EINTR goes on). */
int fs_write_all(int fd, const void *data, size_t len);
/* Write data to path via a temporary file + rename, so readers never see half a file. */
int fs_write_atomic(const char *path, const void *data, size_t len);
int fs_mkdir_p(const char *path, unsigned mode);
/* Join dir and name into a newly allocated string. */
char *fs_join(const char *dir, const char *name);
/* Directory part of path, newly allocated ("." when none). */
char *fs_dirname(const char *path);
int fs_exists(const char *path);
/* Remove a file or a directory tree (symlinks are removed, never followed); 0 when path does
 * not exist. */
int fs_rm_rf(const char *path);
/* An exclusive flock on path (created 0644), kept in *fd.  When another process holds it,
 * waiting(ud) is called once and the wait goes on until it is free or *interrupt is set
 * (-EINTR).  0, or a negative errno. */
int fs_lock_wait(const char *path, volatile sig_atomic_t *interrupt, void (*waiting)(void *ud),
		 void *ud, int *fd);
/* The names of dir's NAME.json files, ".json" cut, sorted, at most max of them, into names
 * (each of len bytes): how many; 0 when dir cannot be read.  For lists of what exists. */
size_t fs_json_names(const char *dir, char (*names)[64], size_t max);
