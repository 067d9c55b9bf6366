/* The host pool's configuration: see hostpool.h. */
#include <errno.h>
#include <string.h>

#include "core/hostpool.h"
#include "util/jsonpath.h"

static int name_ok(const char *s)
{
	if (!s[0] || strlen(s) > 63 || s[0] == '.' || s[0] == '-')
		return 0;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || strchr("._-", *c)))
			return 0;
	return 1;
}

/* A string key into dst; def when absent (NULL: required). */
static int get_str(const json_t *o, const char *base, const char *key, char *dst, size_t len,
		   const char *def, int may_be_empty, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), base, key);
	if (!v) {
		if (!def)
			return error_set(err, p, "missing");
		snprintf(dst, len, "%s", def);
		return 0;
	}
	if (!json_is_string(v) || (!may_be_empty && !json_string_length(v)) ||
	    json_string_length(v) >= len || strlen(json_string_value(v)) != json_string_length(v))
		return error_set(err, p, "must be a %sstring of at most %zu bytes",
				 may_be_empty ? "" : "non-empty ", len - 1);
	for (const char *c = json_string_value(v); *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return error_set(err, p, "must not hold control characters");
	memcpy(dst, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int get_uint(const json_t *o, const char *base, const char *key, unsigned long lo,
		    unsigned long hi, unsigned long def, unsigned long *out, struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	char p[JSONPATH_LEN];

	*out = def;
	if (!v)
		return 0;
	jsonpath_key(p, sizeof(p), base, key);
	if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)lo ||
	    json_integer_value(v) > (json_int_t)hi)
		return error_set(err, p, "must be an integer %lu..%lu", lo, hi);
	*out = (unsigned long)json_integer_value(v);
	return 0;
}

/* qemu:///system and qemu:///session are this machine's daemons; a transport ("+ssh",
 * "+tcp", "+tls", "+libssh2" ...) or a host part means another daemon, reached over a socket. */
int hostpool_uri_remote(const char *uri)
{
	const char *colon = strchr(uri, ':');
	const char *plus = strchr(uri, '+');

	if (!uri[0] || !colon)
		return 0;
	if (plus && plus < colon && strncmp(plus, "+unix", 5))
		return 1;
	return strncmp(colon, ":///", 4) != 0;
}

static int uri_check(const char *uri, const char *p, struct lab_error *err)
{
	static const char *const schemes[] = { "qemu:", "qemu+", NULL };
	int known = 0;

	if (!uri[0])
		return 0;
	for (const char *const *s = schemes; *s; s++)
		known |= !strncmp(uri, *s, strlen(*s));
	if (!known || !strstr(uri, "://"))
		return error_set(err, p, "must be \"\" (the lab's embedded driver) or a QEMU libvirt "
				 "URI such as qemu:///system or qemu+ssh://HOST/system");
	if (strstr(uri, "embed"))
		return error_set(err, p, "the embedded driver is written \"\", not as a URI");
	return 0;
}

static int parse_entry(const json_t *e, const char *p, struct hostpool_entry *h,
		       struct lab_error *err)
{
	static const char *const keys[] = { "name", "uri", "class", "pool_dir", "guests",
					    "memory_mib", "vcpus", NULL };
	char q[JSONPATH_LEN];
	unsigned long v;
	int r;

	if ((r = jsonpath_check_object(e, p, keys, err)) < 0 ||
	    (r = get_str(e, p, "name", h->name, sizeof(h->name), NULL, 0, err)) < 0)
		return r;
	jsonpath_key(q, sizeof(q), p, "name");
	if (!name_ok(h->name))
		return error_set(err, q, "must be 1..63 of [a-z0-9._-], not starting with . or -");
	if ((r = get_str(e, p, "uri", h->uri, sizeof(h->uri), NULL, 1, err)) < 0)
		return r;
	jsonpath_key(q, sizeof(q), p, "uri");
	if ((r = uri_check(h->uri, q, err)) < 0 ||
	    (r = get_str(e, p, "class", h->class_name, sizeof(h->class_name), NULL, 0, err)) < 0)
		return r;
	jsonpath_key(q, sizeof(q), p, "class");
	if (!name_ok(h->class_name))
		return error_set(err, q, "must be 1..63 of [a-z0-9._-], not starting with . or -");
	if ((r = get_str(e, p, "pool_dir", h->pool_dir, sizeof(h->pool_dir),
			 HOSTPOOL_DEFAULT_POOL_DIR, 0, err)) < 0)
		return r;
	jsonpath_key(q, sizeof(q), p, "pool_dir");
	if (h->pool_dir[0] != '/' || strstr(h->pool_dir, "/../") || !strcmp(h->pool_dir, "/"))
		return error_set(err, q, "must be an absolute directory other than /");
	if ((r = get_uint(e, p, "guests", 1, 64, 1, &v, err)) < 0)
		return r;
	h->guests = (unsigned)v;
	if ((r = get_uint(e, p, "memory_mib", 0, 1ul << 30, 0, &h->memory_mib, err)) < 0 ||
	    (r = get_uint(e, p, "vcpus", 0, 1u << 16, 0, &v, err)) < 0)
		return r;
	h->vcpus = (unsigned)v;
	return 0;
}

int hostpool_from_json(const json_t *j, struct hostpool *p, struct lab_error *err)
{
	static const char *const keys[] = { "hosts", NULL };
	const json_t *hosts = json_object_get(j, "hosts"), *e;
	size_t i;
	int r;

	memset(p, 0, sizeof(*p));
	if ((r = jsonpath_check_object(j, "", keys, err)) < 0)
		return r;
	if (!json_is_array(hosts) || !json_array_size(hosts) ||
	    json_array_size(hosts) > HOSTPOOL_MAX)
		return error_set(err, "hosts", "must be an array of 1..%d hosts", HOSTPOOL_MAX);
	json_array_foreach(hosts, i, e) {
		struct hostpool_entry *h = &p->hosts[i];
		char path[64], q[JSONPATH_LEN];

		jsonpath_index(path, sizeof(path), "hosts", i);
		if ((r = parse_entry(e, path, h, err)) < 0)
			return r;
		for (size_t k = 0; k < i; k++) {
			if (!strcmp(p->hosts[k].name, h->name)) {
				jsonpath_key(q, sizeof(q), path, "name");
				return error_set(err, q, "\"%s\" is also hosts[%zu]'s name", h->name,
						 k);
			}
			if (!strcmp(p->hosts[k].uri, h->uri)) {
				jsonpath_key(q, sizeof(q), path, "uri");
				return error_set(err, q, "hosts[%zu] has the same URI: one entry a "
						 "host", k);
			}
		}
		p->n++;
	}
	return 0;
}

json_t *hostpool_entry_json(const struct hostpool_entry *e)
{
	return json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:b}", "name", e->name, "uri", e->uri,
			 "class", e->class_name, "pool_dir", e->pool_dir, "guests",
			 (json_int_t)e->guests, "memory_mib", (json_int_t)e->memory_mib, "vcpus",
			 (json_int_t)e->vcpus, "remote", hostpool_uri_remote(e->uri));
}
