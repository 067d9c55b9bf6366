/* What labd's API reads of a request besides its body, as pure functions (no libmicrohttpd):
 * job IDs in URLs, numbers in query strings, the bearer token.  api.c looks the values up
 * and answers; these say whether they are well formed, and lab/fuzz/fuzz_api.c tries them
 * with inputs no one wrote. */
#pragma once
#include <stddef.h>
#include <stdint.h>

/* A job ID in a URL: 1-18 decimal digits (so it fits an int64_t), nothing else, not 0. */
int apireq_id(const char *s, size_t len, int64_t *id);
/* A non-negative decimal query argument v ("0" or an ID), def when v is NULL (absent);
 * -EINVAL when malformed. */
int apireq_number(const char *v, int64_t def, int64_t *out);
/* The part of a URL after "/v1/jobs/": "ID" or "ID/SUB".  *sub gets SUB ("" when none,
 * pointing into rest).  -EINVAL when ID is not an ID. */
int apireq_job_path(const char *rest, int64_t *id, const char **sub);
/* Whether the Authorization header value (NULL when absent) is "Bearer TOKEN"; an empty
 * token needs none.  Constant time in the token's content. */
int apireq_bearer_ok(const char *token, const char *header);
/* Whether a Content-Length value (NULL when absent) announces more than max bytes. */
int apireq_length_over(const char *content_length, unsigned long long max);

/* POST /v1/alerts/ID's body: {"state": "new|acknowledged|invalid|fixed", "note"?, "by"?,
 * "commit"? (needed for fixed)}, nothing else; strings only, without control characters.
 * Borrowed pointers into j (NULL when absent).  -EINVAL with msg naming the JSON path. */
struct apireq_alert {
	int state;                /* enum alert_state (history/alerts.h) */
	const char *note, *by, *commit;
};
struct json_t;
int apireq_alert(const struct json_t *j, struct apireq_alert *out, char *msg, size_t len);

/* Whether given is token, in constant time in the token's content (an empty token needs
 * none: 1). */
int apireq_token_eq(const char *token, const char *given);
/* The value of cookie name in a Cookie header (NULL when absent) into out: 0, -ENOENT when
 * there is none, -E2BIG when it does not fit. */
int apireq_cookie(const char *header, const char *name, char *out, size_t len);
/* Whether s can be a cookie's value as labd sets it (RFC 6265's cookie-octets, no quotes):
 * 1 or 0. */
int apireq_cookie_safe(const char *s);
/* Field name of an application/x-www-form-urlencoded body[0..len) into out, '+' and %XX
 * decoded: 0, -ENOENT when absent, -EINVAL when malformed (a bad escape, a NUL or a control
 * character decoded), -E2BIG when it does not fit.  The first of repeated fields counts. */
int apireq_form(const char *body, size_t len, const char *name, char *out, size_t outlen);
/* Whether a browser's Origin header is the page's own: "http://" + the Host header, exactly.
 * 1, or 0 (also when either is missing). */
int apireq_same_origin(const char *origin, const char *host);
