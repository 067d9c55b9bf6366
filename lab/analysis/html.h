/* HTML output for pages built from untrusted report data (the dashboard): text escaped for
 * element content and attribute values, and JSON made safe inside a <script> element.  Pure. */
#pragma once
#include "util/strbuf.h"

/* Append s (NULL: nothing) escaped for HTML text and attribute values; control characters
 * other than tab, newline and CR, and bytes that are not valid UTF-8, become U+FFFD. */
void html_escape(struct strbuf *sb, const char *s);
/* Append the printf-formatted text escaped as a whole. */
void html_escapef(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append JSON text made safe inside a <script> element: <, > and & as \u escapes. */
void html_script_json(struct strbuf *sb, const char *json);
