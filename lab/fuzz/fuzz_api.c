/* labd's requests (lab/daemon/API.md): what labd reads of one besides what libmicrohttpd
 * parses.  The input is lines: the URL's path, one query argument's value, the
 * Authorization header, the Content-Length header, then the body, which POST /v1/jobs parses
 * and validates as `lab run` does (fuzz.h: the checkout's topologies, a fixed host), and POST
 * /v1/alerts/ID as an alert's triage; the Authorization line is also read as a Cookie header
 * and the body as a page's form (POST /ui/alerts/ID, daemon/web.c). */
#include "daemon/api.h"
#include "daemon/apireq.h"
#include "daemon/queue.h"
#include "fuzz/fuzz.h"
#include "history/alerts.h"
#include "util/text.h"

/* The next line of *p (cut at its newline), or "" at the end. */
static char *fuzz_api_line(char **p)
{
	char *l = *p, *nl = strchr(l, '\n');

	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = l + strlen(l);
	}
	return l;
}

static void fuzz_api_url(const char *url)
{
	const char *sub;
	int64_t id;

	if (strncmp(url, "/v1/jobs/", 9) == 0 && apireq_job_path(url + 9, &id, &sub) == 0)
		FUZZ_ASSERT(id > 0 && (!sub[0] || sub[-1] == '/'));
}

static void fuzz_api_body(const char *body, size_t len)
{
	json_t *j = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);

	if (j) {
		struct apireq_alert a;
		char msg[256];

		fuzz_job_json(j);
		/* POST /v1/alerts/ID's body: a state it names is one there is */
		if (apireq_alert(j, &a, msg, sizeof(msg)) == 0)
			FUZZ_ASSERT(a.state >= 0 && a.state < ALERT__COUNT);
	}
	json_decref(j);
}

/* A page's form and a cookie: what they decode fits and holds no control character. */
static void fuzz_api_form(const char *cookie, const char *body, size_t len)
{
	char v[64];

	if (apireq_form(body, len, "note", v, sizeof(v)) == 0)
		FUZZ_ASSERT(strlen(v) < sizeof(v) && !text_has_control_chars(v));
	if (apireq_cookie(cookie, "labd_token", v, sizeof(v)) == 0)
		FUZZ_ASSERT(strlen(v) < sizeof(v));
	apireq_same_origin(cookie, "127.0.0.1:8080");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size), *p = text, *arg, *auth, *length;
	enum queue_state st;
	int64_t n;

	if (!text)
		return 0;
	fuzz_api_url(fuzz_api_line(&p));
	arg = fuzz_api_line(&p);
	if (apireq_number(arg, 7, &n) == 0)
		FUZZ_ASSERT(n >= 0);
	queue_state_parse(arg, &st);
	auth = fuzz_api_line(&p);
	apireq_bearer_ok("secret-token", auth);
	apireq_bearer_ok("", auth);
	length = fuzz_api_line(&p);
	apireq_length_over(length, API_MAX_BODY);
	/* The body is the rest of the input, NUL bytes and all. */
	fuzz_api_body((const char *)data + (p - text), size - (size_t)(p - text));
	fuzz_api_form(auth, (const char *)data + (p - text), size - (size_t)(p - text));
	free(text);
	return 0;
}
