/* Downloads checked against a known sha256: kernel sources and patches (builder/kernel_source.c), the
 * contention model's QEMU source (builder/qemu.c). */
#pragma once
#include <stddef.h>

/* Fetch url (http, https, file; at most 512 MiB) to dest, through dest.part.PID renamed into
 * place only when its sha256 is sha256.  0, or a negative errno with err set. */
int fetch_url(const char *url, const char *sha256, const char *dest, char *err, size_t len);
