/* Checks on untrusted strings (job and recipe values that end up in paths, command lines and
 * reports). */
#pragma once
#include <stddef.h>

/* 1 when s holds an ASCII control character (below 0x20, or DEL), else 0. */
int text_has_control_chars(const char *s);
/* Copy src into dst (len > 0 bytes) for printing: control characters become '?' so that a
 * string from a report cannot move the cursor or fake lines in a terminal table.  A string
 * too long is cut at a character boundary, never inside a UTF-8 sequence, so that what is
 * left is still valid UTF-8 (jansson refuses anything else). */
void text_clean_copy(char *dst, size_t len, const char *src);
/* Length of the valid UTF-8 sequence at s (at most avail bytes), or 0 when it is not one (a
 * NUL, an overlong form, a surrogate, beyond U+10FFFF, cut short). */
size_t text_utf8_len(const unsigned char *s, size_t avail);
/* Replace bytes that are not valid UTF-8 (and NULs) with '?' in place, so that jansson takes
 * arbitrary guest output (a console, a runner's stderr) as a string. */
void text_utf8_sanitize(char *s, size_t len);
/* 1 when the string s is valid UTF-8 (what text_utf8_sanitize leaves, what jansson takes),
 * else 0. */
int text_utf8_valid(const char *s);
/* The edit distance between a and b (insertions, deletions, substitutions and swaps of two
 * neighbours, each 1: "comapre" is 1 from "compare"), for "did you mean" suggestions; strings
 * longer than TEXT_DISTANCE_MAX count as TEXT_DISTANCE_MAX + 1 away from everything. */
#define TEXT_DISTANCE_MAX 63
unsigned text_distance(const char *a, const char *b);
/* The candidate nearest to name by text_distance, when it is at most a third of name's length
 * away (one edit from a word of 3, two from one of 6); NULL otherwise.  For "did you mean". */
const char *text_nearest(const char *name, const char *const *cands, size_t n);
/* The last non-empty line of a command's output (changed in place: trailing newlines, CRs and
 * spaces cut), for an error message; "" for NULL or nothing. */
const char *text_last_line(char *out);
