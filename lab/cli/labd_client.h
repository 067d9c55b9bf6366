/* The client side of labd's HTTP/JSON API (lab/daemon/): requests to the daemon on its unix
 * socket (libcurl's CURLOPT_UNIX_SOCKET_PATH, URLs http://labd/v1/...) or, for a labd on
 * another machine, on TCP with a bearer token.  Answers are bounded in size, requests in
 * time, and JSON is parsed with duplicate keys refused: what labd says is untrusted input.
 * Nothing here prints: every failure comes back as a negative errno and a lab_error. */
#pragma once
#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "util/error.h"

#define LABD_SOCKET_DEFAULT "/run/numalab/labd.sock"
#define LABD_ANSWER_MAX (4u << 20)  /* every answer but a report */
#define LABD_REPORT_MAX (64u << 20) /* a job's report.json */
#define LABD_JOB_MAX (4u << 20)     /* a job sent: labd takes no larger body (413) */
#define LABD_TOKEN_MAX 4096         /* a token file */
#define LABD_TIMEOUT_S 30L          /* a request that is not a long poll */
#define LABD_CONNECT_TIMEOUT_S 5L

/* Where labd is, as the user said it (each may be NULL: then $LAB_SOCKET, $LAB_URL and
 * $LAB_TOKEN_FILE, then LABD_SOCKET_DEFAULT).  A URL (http[s]://HOST:PORT) means TCP; a
 * socket given on the command line wins over $LAB_URL. */
struct labd_target {
	const char *socket;
	const char *url;
	const char *token_file;
};

struct labd_client {
	char socket[PATH_MAX];  /* "" on TCP */
	char base[1024];        /* "http://labd", or the URL without a trailing '/' */
	char *auth;             /* "Authorization: Bearer TOKEN", or NULL */
	void *curl;             /* one handle for every request: a follow keeps its connection */
};

/* Resolve t and read the token file (it must be a regular file no one else may read, at most
 * LABD_TOKEN_MAX bytes).  Connects nothing yet.  -EINVAL (err says why) for a bad URL or token
 * file, -ENOMEM. */
int labd_client_open(struct labd_client *c, const struct labd_target *t, struct lab_error *err);
void labd_client_close(struct labd_client *c);
/* The socket or the URL, for messages. */
const char *labd_client_where(const struct labd_client *c);

/* One request: method "GET" or "POST", path from "/v1/" on (query included, already
 * escaped), body for a POST (may be NULL), at most max bytes of answer, at most timeout_s
 * seconds.  0 when labd answered with JSON: *status is its HTTP code, *out the body (for an
 * error code, {"error", "path"}).  Otherwise a negative errno, err saying why:
 * -ECONNREFUSED labd is not running there (the message says how to start it), -EACCES the
 * socket is not ours to use, -ETIMEDOUT, -EFBIG an answer past max, -EPROTO an answer that is
 * not JSON, -EIO anything else curl reports. */
int labd_request(struct labd_client *c, const char *method, const char *path,
		 const json_t *body, size_t max, long timeout_s, long *status, json_t **out,
		 struct lab_error *err);

/* err from an error answer: its "path" (a JSON path into the job, or null) and its "error";
 * an answer without them is described by its HTTP status. */
void labd_error_from(const json_t *answer, long status, struct lab_error *err);
