/* labd's HTTP/JSON API (libmicrohttpd), on a unix socket and optionally on TCP with a bearer
 * token.  Routes and bodies: lab/daemon/API.md.  A request's text never becomes a file path:
 * job IDs are decimal integers looked up in the queue, which holds each job's directory.
 * Nothing here prints; the daemon's log is its event log and its stderr (labd.c). */
#pragma once
#include <stdint.h>

#include "daemon/queue.h"

#define API_MAX_BODY (4u << 20)          /* a job, as `lab run` accepts it */
#define API_MAX_REPORT (64u << 20)       /* a report served back */
#define API_MAX_WAIT_S 60.0              /* the longest long poll of /v1/events */
#define API_CONNECTION_TIMEOUT_S 90      /* idle connections are closed */
#define API_CONNECTION_LIMIT 256

struct api_ctx {
	struct queue *q;
	const char *state_dir;   /* the lab's state directory (given to `lab run --state`) */
	const char *jobs_dir;    /* STATE/labd/jobs: each job's directory, made by submit */
	const char *lab_exe;     /* the `lab` binary (dashboards: `lab report`) */
	const char *version;
	int slurm;               /* jobs go to Slurm: a submit's host class is a node feature */
	/* The job the worker runs now, 0 when none (health). */
	int64_t (*current_job)(void *ud);
	void *ud;
};

struct api_server;

/* Serve ctx (not copied: it must outlive the server) on the listening sockets unix_fd and,
 * when tcp_fd >= 0, tcp_fd, where every request needs "Authorization: Bearer TOKEN" (token
 * is copied).  The sockets are the caller's to make (labd.c) and become the server's. */
int api_start(const struct api_ctx *ctx, int unix_fd, int tcp_fd, const char *token,
	      struct api_server **out);
/* Stop accepting, wait for requests under way (long polls end within API_MAX_WAIT_S),
 * close the sockets. */
void api_stop(struct api_server *s);
