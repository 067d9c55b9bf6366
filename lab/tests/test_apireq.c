/* What labd's API reads of a request besides its body (lab/daemon/apireq.c): job IDs in URLs,
 * numbers in query strings, bearer tokens, announced lengths.  lab/fuzz/fuzz_api.c tries the
 * same functions with inputs no one wrote. */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "daemon/apireq.h"
#include "tap.h"

static void ids(void)
{
	static const char *const bad[] = {"", "0", "00", "-1", "+1", "1a", " 1", "1 ",
					  "1234567890123456789", "0x10"};
	int64_t id = -1;

	tap_ok(apireq_id("42", 2, &id) == 0 && id == 42, "42 is job 42");
	tap_ok(apireq_id("999999999999999999", 18, &id) == 0 && id == 999999999999999999LL,
	       "18 digits fit");
	tap_ok(apireq_id("42/x", 2, &id) == 0 && id == 42, "only len bytes are read");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		tap_ok(apireq_id(bad[i], strlen(bad[i]), &id) == -EINVAL, "\"%s\" is no ID", bad[i]);
}

static void numbers_and_paths(void)
{
	const char *sub = NULL;
	int64_t n = -1;

	tap_ok(apireq_number(NULL, 7, &n) == 0 && n == 7, "an absent argument is the default");
	tap_ok(apireq_number("0", 7, &n) == 0 && n == 0, "\"0\" is 0");
	tap_ok(apireq_number("", 7, &n) == -EINVAL, "an empty argument is malformed");
	tap_ok(apireq_number("12", 7, &n) == 0 && n == 12, "\"12\" is 12");
	tap_ok(apireq_job_path("5", &n, &sub) == 0 && n == 5 && !strcmp(sub, ""), "5: no sub");
	tap_ok(apireq_job_path("5/cancel", &n, &sub) == 0 && n == 5 && !strcmp(sub, "cancel"),
	       "5/cancel");
	tap_ok(apireq_job_path("/cancel", &n, &sub) == -EINVAL, "no ID before the slash");
	tap_ok(apireq_job_path("12abc", &n, &sub) == -EINVAL, "12abc is no ID");
}

static void tokens_and_lengths(void)
{
	tap_ok(apireq_bearer_ok("", NULL), "no token: nothing needed");
	tap_ok(apireq_bearer_ok("tok", "Bearer tok"), "the token");
	tap_ok(!apireq_bearer_ok("tok", NULL), "a token and no header");
	tap_ok(!apireq_bearer_ok("tok", "Bearer to"), "a prefix of the token");
	tap_ok(!apireq_bearer_ok("tok", "Bearer tokk"), "the token and more");
	tap_ok(!apireq_bearer_ok("tok", "bearer tok"), "Bearer is spelled so");
	tap_ok(!apireq_length_over(NULL, 10) && !apireq_length_over("10", 10) &&
		       apireq_length_over("11", 10),
	       "Content-Length over the limit");
}

/* POST /v1/alerts/ID's body. */
static void alert_bodies(void)
{
	static const struct {
		const char *body, *why;
	} t[] = {
		{ "{\"state\": \"acknowledged\", \"note\": \"seen\", \"by\": \"jane\"}", NULL },
		{ "{\"state\": \"fixed\", \"commit\": \"deadbeef\"}", NULL },
		{ "{\"state\": \"fixed\"}", "commit: needed" },
		{ "{\"state\": \"gone\"}", "state: must be" },
		{ "{}", "state: must be" },
		{ "{\"state\": \"new\", \"x\": 1}", "x: unknown key" },
		{ "{\"state\": \"new\", \"note\": 5}", "note: must be a string" },
		{ "{\"state\": \"new\", \"note\": \"a\\nb\"}", "note: must be a string without" },
		{ "[1]", "body: must be a JSON object" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		json_t *j = json_loads(t[i].body, 0, NULL);
		struct apireq_alert a;
		char msg[256] = "";
		int r = apireq_alert(j, &a, msg, sizeof(msg));

		tap_ok(t[i].why ? r == -EINVAL && strstr(msg, t[i].why) : r == 0,
		       "alert body %zu: %s (%s)", i, t[i].why ? t[i].why : "taken", msg);
		json_decref(j);
	}
}

int main(void)
{
	alert_bodies();
	ids();
	numbers_and_paths();
	tokens_and_lengths();
	return tap_done();
}
