/* sha256 as 64 lower-case hex digits (libcrypto), for every key and checksum of the lab: kernel
 * and image cache keys, downloads, patches.  All return 0 or a negative errno. */
#pragma once
#include <stddef.h>

/* sha256 of len bytes at data. */
int sha256_hex(const void *data, size_t len, char out[65]);
/* sha256 of a file's bytes, read in pieces (a kernel tarball is ~150 MB). */
int sha256_file_hex(const char *path, char out[65]);
/* A 32-byte digest as hex, for callers that feed libcrypto themselves. */
void sha256_format(const unsigned char md[32], char out[65]);
