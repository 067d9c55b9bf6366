/* Structured errors for config/job validation: where (JSON path) and why. */
#pragma once
#include <stdarg.h>

struct lab_error {
	char file[256]; /* file the path refers to; empty when not from a file */
	char path[256]; /* JSON path, e.g. "topology.nodes[2].memory_mib" */
	char msg[512];  /* reason, e.g. "must be a positive integer" */
};

/* Fill *err (which may be NULL) and return -EINVAL, so callers can `return error_set(...)`. */
int error_set(struct lab_error *err, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int error_setv(struct lab_error *err, const char *path, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
void error_set_file(struct lab_error *err, const char *file);
/* "FILE: PATH: MSG" (parts omitted when empty) into buf. */
void error_format(const struct lab_error *err, char *buf, unsigned long len);
