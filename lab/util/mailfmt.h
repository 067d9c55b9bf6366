/* Plain-text mail as RFC 5322 writes it, for `lab mail`: header fields (folded, non-ASCII as
 * RFC 2047 encoded words), body paragraphs filled to MAILFMT_COLS, and shell commands folded
 * with backslash-newline so that they paste into a shell as they were.  Pure.
 *
 * Everything written here may come from a report or a repository (a commit subject, a job
 * name): a header value with a line break in it would start a header of its own, so values
 * with control characters are refused (-EINVAL), never passed on. */
#pragma once
#include <stddef.h>

#include "util/strbuf.h"

/* The body's width: what git's documentation and the kernel's lists ask of a mail. */
#define MAILFMT_COLS 72

/* Columns of s: its UTF-8 code points (a byte that starts none counts one). */
size_t mailfmt_cols(const char *s);

/* "Name: value\n", folded at whitespace before column 78; a value with non-ASCII bytes is
 * written as RFC 2047 "B" encoded words (UTF-8).  -EINVAL: a control character in value (a
 * line break would inject a header) or a name that is not a field name; -ENOMEM. */
int mailfmt_header(struct strbuf *sb, const char *name, const char *value);

/* 1 when s is one address as the lab writes it: "Name <local@domain>" or "local@domain",
 * printable ASCII or UTF-8 in the name, no control characters, no '<', '>' or ',' in the
 * address part; else 0. */
int mailfmt_address_ok(const char *s);

/* text filled into lines of at most cols columns, each starting with indent (and the first
 * with first, when not NULL: a list's "- "); words longer than a line stand alone.  Blank
 * lines in text are kept (paragraphs). */
void mailfmt_fill(struct strbuf *sb, const char *text, const char *first, const char *indent,
		  size_t cols);

/* argv as one shell command: each word quoted when it needs it (double quotes, with \ before
 * " $ ` \), the line folded with " \" before cols columns, and a word longer than a line cut
 * with a backslash-newline, which the shell removes wherever it stands outside single
 * quotes.  Each line starts with indent (continuations with indent and two spaces). */
void mailfmt_shell(struct strbuf *sb, const char *const *argv, const char *indent, size_t cols);

/* msg (a message as the functions above write it) as one mbox entry: a "From " line first,
 * body lines that start "From " quoted as ">From ", a blank line last (what git send-email
 * and mutt read).  0 with *out (freed by the caller), -ENOMEM. */
int mailfmt_mbox(const char *msg, char **out);
