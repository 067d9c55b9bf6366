/* Requests to labd over libcurl (labd_client.h). */
#include "cli/labd_client.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/strbuf.h"
#include "util/text.h"

#define LABD_SOCKET_HOST "http://labd"

static const char *pick(const char *given, const char *env)
{
	const char *e = getenv(env);

	return given && given[0] ? given : e && e[0] ? e : NULL;
}

/* A token goes into a header line: printable, no spaces, so it cannot add a header. */
static int read_token(struct labd_client *c, const char *file, struct lab_error *err)
{
	_cleanup_free_ char *tok = NULL;
	struct stat st;
	size_t n;
	int r;

	if (stat(file, &st) < 0)
		return error_set(err, "", "token file %s: %s", file, strerror(errno));
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077))
		return error_set(err, "", "token file %s must be a regular file only its owner "
				 "can read (chmod 600 %s)", file, file);
	r = fs_read_file(file, LABD_TOKEN_MAX, &tok, &n);
	if (r < 0)
		return error_set(err, "", "token file %s: %s", file, r == -EFBIG ? "larger than "
				 "4 KiB" : strerror(-r));
	while (n && (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' '))
		tok[--n] = '\0';
	if (!n || strlen(tok) != n || strchr(tok, ' ') || text_has_control_chars(tok))
		return error_set(err, "", "token file %s must hold one token: printable, no spaces",
				 file);
	if (asprintf(&c->auth, "Authorization: Bearer %s", tok) < 0) {
		c->auth = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int set_url(struct labd_client *c, const char *url, struct lab_error *err)
{
	size_t n = strlen(url);

	if ((strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) ||
	    text_has_control_chars(url) || strchr(url, ' ') || n >= sizeof(c->base))
		return error_set(err, "", "--url must be http://HOST:PORT or https://HOST:PORT, "
				 "not \"%.200s\"", url);
	while (n && url[n - 1] == '/')
		n--;
	snprintf(c->base, sizeof(c->base), "%.*s", (int)n, url);
	return 0;
}

int labd_client_open(struct labd_client *c, const struct labd_target *t, struct lab_error *err)
{
	const char *sock = t->socket && t->socket[0] ? t->socket : NULL;
	const char *url = sock ? NULL : pick(t->url, "LAB_URL");
	const char *token = pick(t->token_file, "LAB_TOKEN_FILE");
	int r;

	memset(c, 0, sizeof(*c));
	if (url) {
		if ((r = set_url(c, url, err)) < 0 || (token && (r = read_token(c, token, err)) < 0))
			return r;
	} else {
		sock = sock ? sock : pick(NULL, "LAB_SOCKET");
		sock = sock ? sock : LABD_SOCKET_DEFAULT;
		/* sockaddr_un holds 108 bytes: a longer path cannot be connected to. */
		if (strlen(sock) >= 108 || text_has_control_chars(sock))
			return error_set(err, "", "socket path too long (at most 107 bytes): %.200s",
					 sock);
		snprintf(c->socket, sizeof(c->socket), "%s", sock);
		snprintf(c->base, sizeof(c->base), "%s", LABD_SOCKET_HOST);
	}
	c->curl = curl_easy_init();
	if (!c->curl) {
		labd_client_close(c);
		return error_set(err, "", "libcurl failed to start"), -ENOMEM;
	}
	return 0;
}

void labd_client_close(struct labd_client *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	free(c->auth);
	c->curl = NULL;
	c->auth = NULL;
}

const char *labd_client_where(const struct labd_client *c)
{
	return c->socket[0] ? c->socket : c->base;
}

/* The answer, kept while it stays within max bytes. */
struct sink {
	struct strbuf sb;
	size_t max;
	int over;
};

static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
	struct sink *s = ud;
	size_t len = size * n;

	if (len > s->max - s->sb.len) {
		s->over = 1;
		return 0;
	}
	return strbuf_appendn(&s->sb, p, len) < 0 ? 0 : len;
}

static struct curl_slist *headers(const struct labd_client *c, int post)
{
	struct curl_slist *h = curl_slist_append(NULL, "Accept: application/json"), *n;

	/* No "Expect: 100-continue" round trip before a large job. */
	if (h && (n = curl_slist_append(h, "Expect:")))
		h = n;
	if (h && post && (n = curl_slist_append(h, "Content-Type: application/json")))
		h = n;
	if (h && c->auth && (n = curl_slist_append(h, c->auth)))
		h = n;
	return h;
}

static void setup(struct labd_client *c, const char *url, long timeout_s, struct sink *s,
		  char *errbuf)
{
	CURL *h = c->curl;

	curl_easy_reset(h);
	curl_easy_setopt(h, CURLOPT_URL, url);
	if (c->socket[0])
		curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->socket);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, LABD_CONNECT_TIMEOUT_S);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, timeout_s);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
}

/* Why curl got no answer, in words that say what to do. */
static int transport_error(struct labd_client *c, CURLcode cr, const struct sink *s,
			   const char *path, long timeout_s, const char *errbuf,
			   struct lab_error *err)
{
	const char *w = labd_client_where(c);
	const char *why = errbuf[0] ? errbuf : curl_easy_strerror(cr);
	long os = 0;

	if (s->over) {
		error_set(err, "", "labd's answer to %s is larger than %zu MiB", path,
			  s->max >> 20);
		return -EFBIG;
	}
	if (cr == CURLE_OPERATION_TIMEDOUT) {
		error_set(err, "", "labd on %s did not answer %s within %ld s", w, path, timeout_s);
		return -ETIMEDOUT;
	}
	if (cr != CURLE_COULDNT_CONNECT) {
		error_set(err, "", "labd on %s: %s", w, why);
		return -EIO;
	}
	curl_easy_getinfo(c->curl, CURLINFO_OS_ERRNO, &os);
	if (c->socket[0] && (os == EACCES || os == EPERM)) {
		error_set(err, "", "cannot connect to labd on %s: permission denied (the socket "
			  "is for the group numalab: `usermod -aG numalab $USER`, then log in "
			  "again)", w);
		return -EACCES;
	}
	if (c->socket[0])
		error_set(err, "", "labd is not running on %s: start it with `systemctl start "
			  "numalab-labd` or `labd --socket %s`", w, w);
	else
		error_set(err, "", "labd is not reachable at %s: %s", w, why);
	return -ECONNREFUSED;
}

static int perform(struct labd_client *c, const char *method, const char *path,
		   const char *body, struct sink *s, long timeout_s, long *status,
		   struct lab_error *err)
{
	_cleanup_free_ char *url = NULL;
	char errbuf[CURL_ERROR_SIZE] = "";
	int post = !strcmp(method, "POST");
	struct curl_slist *h = headers(c, post);
	CURLcode cr;

	if (!h || asprintf(&url, "%s%s", c->base, path) < 0) {
		curl_slist_free_all(h);
		url = NULL;
		return -ENOMEM;
	}
	setup(c, url, timeout_s, s, errbuf);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, h);
	if (post) {
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body ? body : "");
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(body ? strlen(body) : 0));
	}
	cr = curl_easy_perform(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(h);
	if (cr != CURLE_OK)
		return transport_error(c, cr, s, path, timeout_s, errbuf, err);
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
	return 0;
}

int labd_request(struct labd_client *c, const char *method, const char *path,
		 const json_t *body, size_t max, long timeout_s, long *status, json_t **out,
		 struct lab_error *err)
{
	_cleanup_free_ char *text = NULL;
	struct sink s = { .sb = STRBUF_INIT, .max = max };
	struct lab_error perr = { 0 };
	int r;

	*out = NULL;
	*status = 0;
	if (body && !(text = json_dumps(body, JSON_SORT_KEYS | JSON_COMPACT)))
		return -ENOMEM;
	r = perform(c, method, path, text, &s, timeout_s, status, err);
	if (r == 0 && s.sb.err)
		r = s.sb.err;
	if (r == 0 && (!s.sb.buf || jsonio_load_buf(s.sb.buf, s.sb.len, out, &perr) < 0)) {
		error_set(err, "", "labd answered %s with HTTP %ld and no JSON%s%s%s", path,
			  *status, perr.msg[0] ? " (" : "", perr.msg, perr.msg[0] ? ")" : "");
		r = -EPROTO;
	}
	strbuf_free(&s.sb);
	return r;
}

/* A message may come as "job: PATH: reason" (as `lab run` words it, the file called "job"):
 * the reason alone, since the caller names the file and the path. */
static const char *reason_only(const char *msg, const char *path)
{
	size_t n = path ? strlen(path) : 0;

	if (!strncmp(msg, "job: ", 5))
		msg += 5;
	if (n && !strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2))
		msg += n + 2;
	return msg;
}

void labd_error_from(const json_t *answer, long status, struct lab_error *err)
{
	const char *msg = json_string_value(json_object_get(answer, "error"));
	const char *path = json_string_value(json_object_get(answer, "path"));
	char m[sizeof(err->msg)], p[sizeof(err->path)] = "";

	if (!msg) {
		error_set(err, "", "labd answered HTTP %ld", status);
		return;
	}
	/* Shown on a terminal: nothing in it may move the cursor. */
	text_clean_copy(m, sizeof(m), reason_only(msg, path));
	if (path)
		text_clean_copy(p, sizeof(p), path);
	error_set(err, p, "%s", m);
}
