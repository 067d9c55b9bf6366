/* JSON paths for error messages ("topology.nodes[2].cpus") and the key checks that report
 * them.  Paths longer than the buffer are cut short: they only ever appear in messages. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

/* Room for one path, as much as a lab_error can carry. */
#define JSONPATH_LEN 256

/* prefix + "." + key, or just key when prefix is "".  Control characters are shown as '?' so
 * that an error stays one line.  buf must not overlap prefix. */
void jsonpath_key(char *buf, size_t len, const char *prefix, const char *key);
/* prefix + "[i]".  buf must not overlap prefix. */
void jsonpath_index(char *buf, size_t len, const char *prefix, size_t i);
/* 0 when every key of obj is in allowed (NULL-terminated), else "unknown key" at prefix.KEY. */
int jsonpath_check_keys(const json_t *obj, const char *prefix, const char *const *allowed,
			struct lab_error *err);
/* 0 when v is an object with only allowed keys; else "must be an object" at path, or
 * "unknown key" as jsonpath_check_keys says. */
int jsonpath_check_object(const json_t *v, const char *path, const char *const *allowed,
			  struct lab_error *err);
