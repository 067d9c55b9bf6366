/* lab web [--socket PATH] [--port N]: labd's pages (lab/daemon/API.md, "Pages") in a local
 * browser.  labd listens on a unix socket, which browsers cannot reach, so this forwards a
 * loopback TCP port (127.0.0.1, ephemeral unless --port) to it, in this process, until
 * interrupted, and prints the URL to open.
 *
 * The port would otherwise open labd to every local user and to any web page the browser
 * shows (a form posted to 127.0.0.1), where the socket is only its group's.  So the URL
 * carries a secret made now (?key=...): the first request with it gets it back as a cookie
 * (HttpOnly, SameSite=Strict: a browser sends it with no request another site starts) and
 * every request must then show it; a request that would change something (not GET or HEAD)
 * must also come from the page's own origin.  Every request is checked: each is forwarded
 * alone, with "Connection: close", so no second request rides on a checked connection.  The
 * cookie is not passed on to labd. */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/labd_client.h"
#include "daemon/api.h"
#include "daemon/apireq.h"
#include "util/cleanup.h"

#define WEB_COOKIE "labweb"
#define WEB_MAX_HEAD 16384      /* a request's head: its line and its headers */
#define WEB_MAX_CONNS 64        /* connections forwarded at once; more wait in the backlog */
#define WEB_IO_TIMEOUT_S 30     /* a client that sends nothing */
#define WEB_UP_TIMEOUT_S 120    /* labd's answer: a long poll waits up to 60 s */

/* One command line a process: what the table writes to. */
static struct {
	const char *socket;
	unsigned port;
} args;

static const struct cli_opt options[] = {
	OPT_STRING(0, "socket", &args.socket, "PATH",
		   "labd's unix socket (default $LAB_SOCKET, else " LABD_SOCKET_DEFAULT ")"),
	OPT_UINT(0, "port", &args.port, "N", 0, 65535,
		 "the loopback port to listen on (default 0: one the kernel picks)"),
	OPT_END(),
};

void cmd_web_help(void)
{
	memset(&args, 0, sizeof(args));
	cli_synopsis("web", NULL, options);
	printf("\nlabd's pages in a browser: the queue, the running job and its progress, a\n"
	       "job's log, the trends of the history, the alerts with a form each.  labd\n"
	       "serves them on its unix socket; this forwards a port of 127.0.0.1 to it and\n"
	       "prints the URL to open, then forwards until Ctrl-C.  The URL holds a secret\n"
	       "made for this run: only a browser that opened it gets in (other local users\n"
	       "cannot use the port).  A labd on TCP (labd --listen) needs no forwarder: open\n"
	       "http://HOST:PORT/ui/?token=TOKEN.\n"
	       "\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
	       "  lab web\n"
	       "  lab web --socket /tmp/labd.sock --port 8080\n\n"
	       "Exit status: 0 interrupted; 2 bad arguments; 4 labd is not running or the port\n"
	       "cannot be had.\n");
}

struct fwd {
	const char *socket;
	char secret[33];
	atomic_int conns;
};

struct fwd_conn {
	struct fwd *f;
	int fd;
};

static int send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A short answer of the forwarder's own, the connection then closed. */
static int say(int fd, const char *status, const char *extra, const char *text)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "HTTP/1.1 %s\r\nContent-Type: text/plain; charset=utf-8"
			 "\r\nContent-Length: %zu\r\nCache-Control: no-store\r\nConnection: close"
			 "\r\n%s\r\n%s", status, strlen(text), extra ? extra : "", text);

	if (n > 0)
		send_all(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	return 0;
}

static void set_timeout(int fd, int s)
{
	struct timeval tv = { .tv_sec = s };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* What the forwarder reads of a request's head (pointers into it, cut in place). */
struct head {
	char *method, *target, *version;
	const char *cookie, *origin, *host, *length, *chunked;
	char *rest;           /* the headers passed on, each "Name: value\r\n" */
};

/* Split head[0..] (its line and headers, NUL-ended, without the blank line) into h, the
 * headers labd gets written to out (all but Cookie, Connection, Keep-Alive and
 * Proxy-Connection).  -EINVAL when malformed. */
static int head_parse(char *head, struct head *h, char *out, size_t outlen)
{
	char *line = head, *next, *colon;
	size_t o = 0;

	memset(h, 0, sizeof(*h));
	next = strstr(line, "\r\n");
	if (next)
		*next = 0, next += 2;
	h->method = strtok_r(line, " ", &colon);
	h->target = strtok_r(NULL, " ", &colon);
	h->version = strtok_r(NULL, " ", &colon);
	if (!h->method || !h->target || !h->version || strncmp(h->version, "HTTP/1.", 7) ||
	    h->target[0] != '/')
		return -EINVAL;
	out[0] = 0;
	for (line = next; line && *line; line = next) {
		char *v;

		next = strstr(line, "\r\n");
		if (next)
			*next = 0, next += 2;
		if (!(colon = strchr(line, ':')))
			return -EINVAL;
		*colon = 0;
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		if (!strcasecmp(line, "Cookie")) {
			h->cookie = v;
			continue;
		}
		if (!strcasecmp(line, "Connection") || !strcasecmp(line, "Keep-Alive") ||
		    !strcasecmp(line, "Proxy-Connection"))
			continue;
		if (!strcasecmp(line, "Origin"))
			h->origin = v;
		else if (!strcasecmp(line, "Host"))
			h->host = v;
		else if (!strcasecmp(line, "Content-Length"))
			h->length = v;
		else if (!strcasecmp(line, "Transfer-Encoding"))
			h->chunked = v;
		o += (size_t)snprintf(out + o, outlen > o ? outlen - o : 0, "%s: %s\r\n", line, v);
		if (o >= outlen)
			return -EINVAL;
	}
	return 0;
}

/* Whether the request's query holds key=SECRET; then that parameter is cut out of target,
 * the others kept, so that the redirect goes to the page asked for without the key. */
static int target_has_key(char *target, const char *secret)
{
	char *q = strchr(target, '?'), *p = q;
	char got[64];

	while (p) {
		size_t n = strcspn(++p, "&");

		if (n > 4 && n - 4 < sizeof(got) && !strncmp(p, "key=", 4)) {
			memcpy(got, p + 4, n - 4);
			got[n - 4] = 0;
			if (apireq_token_eq(secret, got)) {
				/* "?a&key=K&b" -> "?a&b"; "?key=K" -> "" */
				memmove(p, p + n + (p[n] == '&'), strlen(p + n + (p[n] == '&')) + 1);
				n = strlen(q);
				if (n && (q[n - 1] == '&' || q[n - 1] == '?'))
					q[n - 1] = 0;
				return 1;
			}
		}
		p = strchr(p, '&');
	}
	return 0;
}

/* labd's unix socket, connected. */
static int connect_labd(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* Copy n bytes (n < 0: until EOF) from one socket to the other. */
static int pump(int from, int to, long long n)
{
	char buf[16384];

	while (n != 0) {
		size_t want = n < 0 || n > (long long)sizeof(buf) ? sizeof(buf) : (size_t)n;
		ssize_t r = recv(from, buf, want, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return n < 0 ? 0 : -EIO;
		if (send_all(to, buf, (size_t)r) < 0)
			return -EIO;
		if (n > 0)
			n -= r;
	}
	return 0;
}

/* One request: read, checked, passed to labd alone, its answer passed back.  0, or -EIO when
 * either side went away. */
static int fwd_one(struct fwd *f, int fd)
{
	_cleanup_free_ char *buf = malloc(WEB_MAX_HEAD + 1), *rest = malloc(WEB_MAX_HEAD + 64);
	_cleanup_close_ int up = -1;
	char cookie[64], *end = NULL;
	struct head h;
	size_t len = 0, body_have;
	long long body;

	if (!buf || !rest)
		return -ENOMEM;
	while (!end && len < WEB_MAX_HEAD) {
		ssize_t r = recv(fd, buf + len, WEB_MAX_HEAD - len, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		len += (size_t)r;
		buf[len] = 0;
		end = strstr(buf, "\r\n\r\n");
	}
	if (!end)
		return say(fd, "431 Request Header Fields Too Large", NULL, "the head is too large\n");
	*end = 0;
	body_have = len - (size_t)(end + 4 - buf);
	if (head_parse(buf, &h, rest, WEB_MAX_HEAD + 64) < 0)
		return say(fd, "400 Bad Request", NULL, "a malformed request\n");
	if (!strcmp(h.method, "GET") && target_has_key(h.target, f->secret)) {
		char extra[256];

		/* Back to the page asked for, never elsewhere ("//host/..." would be). */
		snprintf(extra, sizeof(extra), "Location: %.100s\r\nSet-Cookie: " WEB_COOKIE "=%s; "
			 "Path=/; HttpOnly; SameSite=Strict\r\n",
			 h.target[1] == '/' || h.target[1] == '\\' ? "/ui/" : h.target, f->secret);
		return say(fd, "303 See Other", extra, "in\n");
	}
	if (apireq_cookie(h.cookie, WEB_COOKIE, cookie, sizeof(cookie)) < 0 ||
	    !apireq_token_eq(f->secret, cookie))
		return say(fd, "403 Forbidden", NULL,
			   "open the URL lab web printed (it holds this run's key)\n");
	if (strcmp(h.method, "GET") && strcmp(h.method, "HEAD") &&
	    !apireq_same_origin(h.origin, h.host))
		return say(fd, "403 Forbidden", NULL, "a change from another origin is refused\n");
	if (h.chunked)
		return say(fd, "411 Length Required", NULL, "a body needs a Content-Length\n");
	body = h.length ? strtoll(h.length, NULL, 10) : 0;
	if (body < 0 || body > (long long)API_MAX_BODY)
		return say(fd, "413 Content Too Large", NULL, "the body is too large\n");
	if ((up = connect_labd(f->socket)) < 0)
		return say(fd, "502 Bad Gateway", NULL, "labd does not answer on its socket\n");
	set_timeout(up, WEB_UP_TIMEOUT_S);
	/* The request as it came, but for the hop's headers: one request, then labd closes. */
	if (dprintf(up, "%s %s %s\r\n%sConnection: close\r\n\r\n", h.method, h.target, h.version,
		    rest) < 0)
		return -EIO;
	if (body_have > (size_t)body)
		body_have = (size_t)body;
	if (send_all(up, end + 4, body_have) < 0 || pump(fd, up, body - (long long)body_have) < 0)
		return -EIO;
	return pump(up, fd, -1);
}

static void *fwd_thread(void *p)
{
	struct fwd_conn *c = p;

	set_timeout(c->fd, WEB_IO_TIMEOUT_S);
	(void)fwd_one(c->f, c->fd);
	close(c->fd);
	atomic_fetch_sub(&c->f->conns, 1);
	free(c);
	return NULL;
}

static int fwd_accept(struct fwd *f, int lfd)
{
	struct fwd_conn *c;
	pthread_attr_t attr;
	pthread_t t;
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return errno == EINTR || errno == ECONNABORTED ? 0 : -errno;
	if (atomic_load(&f->conns) >= WEB_MAX_CONNS || !(c = malloc(sizeof(*c)))) {
		say(fd, "503 Service Unavailable", NULL, "too many connections\n");
		close(fd);
		return 0;
	}
	*c = (struct fwd_conn){ .f = f, .fd = fd };
	atomic_fetch_add(&f->conns, 1);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, fwd_thread, c) != 0) {
		atomic_fetch_sub(&f->conns, 1);
		close(fd);
		free(c);
	}
	pthread_attr_destroy(&attr);
	return 0;
}

static int listen_loopback(unsigned port, unsigned *bound)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	*bound = ntohs(sa.sin_port);
	return fd;
}

int cmd_web(int argc, char **argv)
{
	static struct fwd f;
	static char sock[PATH_MAX];
	struct labd_client c = { 0 };
	struct lab_error err = { 0 };
	unsigned char raw[16];
	_cleanup_close_ int lfd = -1;
	int first, probe;
	unsigned port = 0;

	memset(&args, 0, sizeof(args));
	if ((first = cli_parse(argc, argv, options)) < 0)
		return EXIT_BAD_INPUT;
	if (first < argc) {
		cli_usage_err("takes no operands");
		return EXIT_BAD_INPUT;
	}
	/* Where labd is, resolved as every client command resolves it. */
	if (labd_client_open(&c, &(struct labd_target){ .socket = args.socket }, &err) < 0) {
		cli_err("%s", err.msg);
		return EXIT_BAD_INPUT;
	}
	if (!c.socket[0]) {
		printf("%s/ui/?token=TOKEN\n", c.base);
		fprintf(stderr, "lab web: labd is on TCP ($LAB_URL): open its pages there, the token "
			"in place of TOKEN; nothing to forward\n");
		labd_client_close(&c);
		return EXIT_OK;
	}
	snprintf(sock, sizeof(sock), "%s", c.socket);
	labd_client_close(&c);
	f.socket = sock;
	if ((probe = connect_labd(f.socket)) < 0) {
		cli_err("labd is not running on %s: %s", f.socket, strerror(-probe));
		return EXIT_LAB_ERROR;
	}
	close(probe);
	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
		cli_err("no random bytes for the key: %s", strerror(errno));
		return EXIT_LAB_ERROR;
	}
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(f.secret + 2 * i, 3, "%02x", raw[i]);
	if ((lfd = listen_loopback(args.port, &port)) < 0) {
		cli_err("cannot listen on 127.0.0.1:%u: %s", args.port, strerror(-lfd));
		return EXIT_LAB_ERROR;
	}
	signal(SIGPIPE, SIG_IGN);
	printf("http://127.0.0.1:%u/ui/?key=%s\n", port, f.secret);
	fprintf(stderr, "lab web: forwarding 127.0.0.1:%u to %s; Ctrl-C stops\n", port, f.socket);
	fflush(stdout);
	for (;;) {
		int r = fwd_accept(&f, lfd);

		if (r < 0) {
			cli_err("accept: %s", strerror(-r));
			return EXIT_LAB_ERROR;
		}
	}
}
