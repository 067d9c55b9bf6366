/* The host pool's configuration (lab/core/hostpool.h).  Data-driven:
 * lab/tests/data/hostpool/ok-NAME.json must parse to the JSON in ok-NAME.expected (each entry
 * dumped back, defaults filled in), err-NAME.json must fail with the "path: reason" line in
 * err-NAME.expected. */
#include <errno.h>
#include <string.h>

#include "core/hostpool.h"
#include "testutil.h"

static json_t *pool_dump(const void *c)
{
	const struct hostpool *p = c;
	json_t *a = json_array();

	for (unsigned i = 0; i < p->n; i++)
		json_array_append_new(a, hostpool_entry_json(&p->hosts[i]));
	return a;
}

static int pool_parse(const json_t *j, void *c, struct lab_error *err)
{
	return hostpool_from_json(j, c, err);
}

static void uri_cases(void)
{
	static const struct {
		const char *uri;
		int remote;
	} cases[] = {
		{ "", 0 },
		{ "qemu:///system", 0 },
		{ "qemu:///session", 0 },
		{ "qemu+unix:///system", 0 },
		{ "qemu+tcp://127.0.0.1:16599/system", 1 },
		{ "qemu+ssh://root@host/system", 1 },
		{ "qemu+tls://host/system", 1 },
		{ "qemu+libssh2://host/system?known_hosts=/k", 1 },
		{ "qemu://host/system", 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(hostpool_uri_remote(cases[i].uri) == cases[i].remote, "\"%s\" is %s",
		       cases[i].uri, cases[i].remote ? "remote" : "this machine's");
}

int main(void)
{
	testutil_config_cases("lab/tests/data/hostpool", "pool", sizeof(struct hostpool),
			      pool_parse, pool_dump);
	uri_cases();
	return tap_done();
}
