/* jansson I/O with the house rules: reject duplicate keys on read, sorted keys on write. */
#pragma once
#include <jansson.h>

#include "util/error.h"

/* Parse a file (at most max bytes).  On a syntax error *err says "line L column C: text". */
int jsonio_load_file(const char *path, size_t max, json_t **out, struct lab_error *err);
int jsonio_load_string(const char *s, json_t **out, struct lab_error *err);
/* Parse len bytes already read (a NUL inside is a syntax error, not the end). */
int jsonio_load_buf(const char *buf, size_t len, json_t **out, struct lab_error *err);
/* An untrusted document of len bytes another program wrote (a TCG plugin's output): at most
 * max bytes, JSON, an object whose "schema" is schema.  *out a new reference; -EINVAL with
 * err at "" or "schema" otherwise. */
int jsonio_load_doc(const char *text, size_t len, size_t max, const char *schema, json_t **out,
		    struct lab_error *err);
/* Sorted keys, 2-space indent, trailing newline; atomic replace. */
int jsonio_write_file(const char *path, const json_t *j);
/* Caller frees. */
char *jsonio_dumps(const json_t *j);
