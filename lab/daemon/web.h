/* labd's pages (routes in lab/daemon/API.md, "Pages"): what api.c hands over of a request
 * under / or /ui, answered without libmicrohttpd.  The data come from labdata.h and the queue,
 * the same calls the JSON API makes; the HTML from webpage.h.  The stylesheet and the script
 * ship in the repository (lab/report/web.css, web.js) and are read from the lab's checkout
 * when asked for.  Nothing here prints. */
#pragma once
#include <stddef.h>

#include "daemon/api.h"

/* The name of the cookie a browser keeps labd's token in, on the TCP listener. */
#define WEB_TOKEN_COOKIE "labd_token"
/* A form POST's body at most: a note is 500 bytes, every field escaped thrice. */
#define WEB_MAX_FORM 8192

struct web_request {
	const char *method, *url;
	const char *show;          /* ?show= of /ui/alerts (NULL: new) */
	const char *set;           /* ?set=ID of /ui/alerts: the alert a form just set */
	const char *origin, *host; /* the Origin and Host headers (NULL when absent) */
	const char *peer;          /* the unix socket's peer's user ("" unknown, and on TCP) */
	const char *body;          /* a form POST's (application/x-www-form-urlencoded) */
	size_t len;
	int too_large;
};

struct web_answer {
	unsigned code;
	const char *type;          /* a static string */
	char *body;                /* to free */
	size_t len;
	char location[256];        /* a redirect's, when not "" */
};

/* 1 when url is a page's (/, /ui, /ui/...), then answered into *a (a->body to free, also
 * for an error); 0 when it is not a page's: the JSON API's. */
int web_is_page(const char *url);
void web_serve(const struct api_ctx *ctx, const struct web_request *rq, struct web_answer *a);
