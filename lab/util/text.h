/* Checks on untrusted strings (job and recipe values that end up in paths, command lines and
 * reports). */
#pragma once

/* 1 when s holds an ASCII control character (below 0x20, or DEL), else 0. */
int text_has_control_chars(const char *s);
