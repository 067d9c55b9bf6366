#include "core/kvariant.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonpath.h"
#include "util/strbuf.h"

static const char *const variant_keys[] = {
	"description", "source", "patches", "base", "config", NULL,
};
static const char *const base_targets[] = {"tinyconfig", "allnoconfig", "defconfig", NULL};

int kvariant_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 63 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

static int bad_chars(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* A non-empty string without control characters that fits in len bytes. */
static int get_str(const json_t *obj, const char *key, const char *prefix, char *out, size_t len,
		   struct lab_error *err)
{
	const json_t *v = json_object_get(obj, key);
	const char *s = json_string_value(v);
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), prefix, key);
	if (!v)
		return error_set(err, p, "required");
	if (!s || !s[0] || bad_chars(s))
		return error_set(err, p, "must be a non-empty string without control characters");
	if (strlen(s) >= len)
		return error_set(err, p, "must be shorter than %zu bytes", len);
	snprintf(out, len, "%s", s);
	return 0;
}

static int sha_ok(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/* Relative paths resolve against the variant file's directory. */
static int resolve(const char *dir, const char *p, char *out, size_t len, const char *path,
		   struct lab_error *err)
{
	int n = p[0] == '/' ? snprintf(out, len, "%s", p) : snprintf(out, len, "%s/%s", dir, p);

	if (n < 0 || (size_t)n >= len)
		return error_set(err, path, "path too long");
	return 0;
}

static int url_ok(const char *u)
{
	return !strncmp(u, "https://", 8) || !strncmp(u, "http://", 7) || !strncmp(u, "file://", 7);
}

static int parse_source(const json_t *j, const char *dir, struct ksrc *s, struct lab_error *err)
{
	static const char *const keys[] = {"debian", "git", "ref", "url", "sha256", NULL};
	const json_t *v = json_object_get(j, "source");
	int kinds, r;

	if (!v)
		return error_set(err, "source", "required");
	if ((r = jsonpath_check_object(v, "source", keys, err)) < 0)
		return r;
	kinds = !!json_object_get(v, "debian") + !!json_object_get(v, "git") +
		!!json_object_get(v, "url");
	if (kinds != 1)
		return error_set(err, "source", "needs exactly one of \"debian\", \"git\", \"url\"");
	if (json_object_get(v, "debian")) {
		s->type = KSRC_DEBIAN;
		if ((r = get_str(v, "debian", "source", s->package, sizeof(s->package), err)) < 0)
			return r;
		if (strncmp(s->package, "linux-source-", 13) || !kvariant_name_ok(s->package))
			return error_set(err, "source.debian", "must name a Debian linux-source-X.Y "
					 "package");
		if (json_object_get(v, "ref") || json_object_get(v, "sha256"))
			return error_set(err, "source", "\"debian\" takes no \"ref\" or \"sha256\"");
		snprintf(s->path, sizeof(s->path), "/usr/src/%s.tar.xz", s->package);
		return 0;
	}
	if (json_object_get(v, "git")) {
		char tree[PATH_MAX];

		s->type = KSRC_GIT;
		if ((r = get_str(v, "git", "source", tree, sizeof(tree), err)) < 0 ||
		    (r = resolve(dir, tree, s->path, sizeof(s->path), "source.git", err)) < 0 ||
		    (r = get_str(v, "ref", "source", s->ref, sizeof(s->ref), err)) < 0)
			return r;
		if (s->ref[0] == '-')
			return error_set(err, "source.ref", "must not start with '-'");
		if (json_object_get(v, "sha256"))
			return error_set(err, "source.sha256", "only with \"url\"");
		return 0;
	}
	s->type = KSRC_URL;
	if ((r = get_str(v, "url", "source", s->url, sizeof(s->url), err)) < 0)
		return r;
	if (!url_ok(s->url))
		return error_set(err, "source.url", "must be an http://, https:// or file:// URL");
	if (json_object_get(v, "ref"))
		return error_set(err, "source.ref", "only with \"git\"");
	if (!json_object_get(v, "sha256"))
		return error_set(err, "source.sha256", "required with \"url\"");
	if ((r = get_str(v, "sha256", "source", s->sha256, sizeof(s->sha256), err)) < 0)
		return r;
	if (!sha_ok(s->sha256))
		return error_set(err, "source.sha256", "must be 64 lower-case hex digits");
	return 0;
}

static int parse_patch(const json_t *e, const char *path, const char *dir, struct kpatch *p,
		       struct lab_error *err)
{
	static const char *const keys[] = {"file", "url", "sha256", NULL};
	char tmp[PATH_MAX], sub[JSONPATH_LEN];
	int r;

	if (json_is_string(e)) {
		const char *s = json_string_value(e);

		if (!s[0] || bad_chars(s) || strlen(s) >= sizeof(tmp))
			return error_set(err, path, "must be a non-empty path");
		return resolve(dir, s, p->path, sizeof(p->path), path, err);
	}
	if (!json_is_object(e))
		return error_set(err, path, "must be a path or an object {\"file\"|\"url\", "
				 "\"sha256\"}");
	if ((r = jsonpath_check_keys(e, path, keys, err)) < 0)
		return r;
	if (!!json_object_get(e, "file") + !!json_object_get(e, "url") != 1)
		return error_set(err, path, "needs exactly one of \"file\", \"url\"");
	if (json_object_get(e, "file")) {
		if ((r = get_str(e, "file", path, tmp, sizeof(tmp), err)) < 0)
			return r;
		jsonpath_key(sub, sizeof(sub), path, "file");
		if ((r = resolve(dir, tmp, p->path, sizeof(p->path), sub, err)) < 0)
			return r;
	} else {
		if ((r = get_str(e, "url", path, p->url, sizeof(p->url), err)) < 0)
			return r;
		jsonpath_key(sub, sizeof(sub), path, "url");
		if (!url_ok(p->url))
			return error_set(err, sub, "must be an http://, https:// or file:// URL");
		if (!json_object_get(e, "sha256")) {
			jsonpath_key(sub, sizeof(sub), path, "sha256");
			return error_set(err, sub, "required with \"url\"");
		}
	}
	if (json_object_get(e, "sha256")) {
		if ((r = get_str(e, "sha256", path, p->sha256, sizeof(p->sha256), err)) < 0)
			return r;
		jsonpath_key(sub, sizeof(sub), path, "sha256");
		if (!sha_ok(p->sha256))
			return error_set(err, sub, "must be 64 lower-case hex digits");
	}
	return 0;
}

static int parse_patches(const json_t *j, const char *dir, struct kvariant *v,
			 struct lab_error *err)
{
	const json_t *a = json_object_get(j, "patches");
	size_t n = json_array_size(a);

	if (!a)
		return 0;
	if (!json_is_array(a) || n > KVARIANT_MAX_PATCHES)
		return error_set(err, "patches", "must be an array of at most %d patches",
				 KVARIANT_MAX_PATCHES);
	v->patches = calloc(n ? n : 1, sizeof(*v->patches));
	if (!v->patches)
		return -ENOMEM;
	v->nr_patches = (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		char path[JSONPATH_LEN];
		int r;

		jsonpath_index(path, sizeof(path), "patches", i);
		if ((r = parse_patch(json_array_get(a, i), path, dir, &v->patches[i], err)) < 0)
			return r;
	}
	return 0;
}

static int parse_config(const json_t *j, const char *dir, struct kvariant *v,
			struct lab_error *err)
{
	const json_t *a = json_object_get(j, "config"), *b = json_object_get(j, "base");
	size_t n = json_array_size(a);
	int r;

	snprintf(v->base, sizeof(v->base), "tinyconfig");
	if (b) {
		const char *s = json_string_value(b);
		const char *const *t = base_targets;

		while (s && *t && strcmp(*t, s))
			t++;
		if (!s || !*t)
			return error_set(err, "base", "must be one of \"tinyconfig\", "
					 "\"allnoconfig\", \"defconfig\"");
		snprintf(v->base, sizeof(v->base), "%s", s);
	}
	if (!a)
		return error_set(err, "config", "required (an array of config fragments)");
	if (!json_is_array(a) || n < 1 || n > KVARIANT_MAX_FRAGMENTS)
		return error_set(err, "config", "must be an array of 1..%d config fragments",
				 KVARIANT_MAX_FRAGMENTS);
	v->fragments = calloc(n, sizeof(*v->fragments));
	if (!v->fragments)
		return -ENOMEM;
	v->nr_fragments = (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(a, i));
		char path[JSONPATH_LEN];

		jsonpath_index(path, sizeof(path), "config", i);
		if (!s || !s[0] || bad_chars(s))
			return error_set(err, path, "must be a non-empty path");
		if ((r = resolve(dir, s, v->fragments[i], sizeof(v->fragments[i]), path, err)) < 0)
			return r;
	}
	return 0;
}

int kvariant_from_json(const json_t *j, const char *name, const char *dir, struct kvariant *v,
		       struct lab_error *err)
{
	const json_t *d;
	int r;

	memset(v, 0, sizeof(*v));
	if (!kvariant_name_ok(name))
		return error_set(err, "", "variant name \"%.64s\" must match [a-z0-9][a-z0-9._-]*, "
				 "at most 63 characters", name);
	snprintf(v->name, sizeof(v->name), "%s", name);
	if (!json_is_object(j))
		return error_set(err, "", "a kernel variant must be a JSON object");
	r = jsonpath_check_keys(j, "", variant_keys, err);
	d = json_object_get(j, "description");
	if (r == 0 && d) {
		if (!json_is_string(d) || bad_chars(json_string_value(d)))
			r = error_set(err, "description", "must be a one-line string");
		else
			snprintf(v->description, sizeof(v->description), "%s",
				 json_string_value(d));
	}
	if (r < 0 || (r = parse_source(j, dir, &v->src, err)) < 0 ||
	    (r = parse_patches(j, dir, v, err)) < 0 || (r = parse_config(j, dir, v, err)) < 0) {
		kvariant_free(v);
		return r;
	}
	return 0;
}

void kvariant_free(struct kvariant *v)
{
	free(v->patches);
	free(v->fragments);
	v->patches = NULL;
	v->fragments = NULL;
	v->nr_patches = v->nr_fragments = 0;
}

/* Both shapes GNU patch 2.7 prints (lab/builder/kernel_source.c runs it). */
void kpatch_failing_file(const char *out, char *file, size_t len)
{
	const char *p = out, *last = NULL;

	snprintf(file, len, "(unknown file)");
	while ((p = strstr(p, "patching file ")) != NULL) {
		const char *fail = strstr(p, "FAILED"), *next = strstr(p + 1, "patching file ");

		if (fail && (!next || fail < next)) {
			last = p + 14;
			break;
		}
		p++;
	}
	if (!last && (p = strstr(out, "can't find file to patch")) != NULL &&
	    (last = strstr(p, "|--- ")) != NULL) {
		last += 5;
		if (!strncmp(last, "a/", 2))
			last += 2;
	}
	if (last)
		snprintf(file, len, "%.*s", (int)strcspn(last, "\n\t '"), last);
}

void kpatch_failing_hunk(const char *out, char *hunk, size_t len)
{
	const char *p = strstr(out, "Hunk #");
	unsigned n, line;

	hunk[0] = '\0';
	for (; p; p = strstr(p + 1, "Hunk #"))
		if (sscanf(p, "Hunk #%u FAILED at %u", &n, &line) == 2) {
			snprintf(hunk, len, "hunk #%u at line %u", n, line);
			return;
		}
}

int kpatch_subject(const char *text, char *buf, size_t len)
{
	const char *s = strncmp(text, "Subject: ", 9) ? strstr(text, "\nSubject: ") : text;
	const char *end;

	if (!s)
		return -ENOENT;
	s += strlen("Subject: ") + (*s == '\n');
	if (*s == '[' && (end = strchr(s, ']')) && end - s < 40)
		s = end + 1 + (end[1] == ' ');
	buf[0] = '\0';
	/* a long subject is folded: its continuation lines start with white space (RFC 5322) */
	for (size_t n = 0;;) {
		size_t w = strcspn(s, "\r\n");

		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%.*s", n ? " " : "",
				      (int)w, s);
		s += w;
		s += *s == '\r';
		s += *s == '\n';
		if (*s != ' ' && *s != '\t')
			break;
		s += strspn(s, " \t");
	}
	return buf[0] ? 0 : -ENOENT;
}

/* Whether the line at p starts with prefix. */
static int line_is(const char *p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	return (size_t)(end - p) >= n && !memcmp(p, prefix, n);
}

static const char *next_line(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl + 1 : end;
}

int kpatch_check_text(const char *text, size_t len, char *why, size_t wlen)
{
	const char *end = text + len, *p = text;

	if (memchr(text, '\0', len)) {
		snprintf(why, wlen, "not a patch: binary data (a NUL byte at offset %zu)",
			 (size_t)((const char *)memchr(text, '\0', len) - text));
		return -EINVAL;
	}
	for (; p < end; p = next_line(p, end)) {
		const char *b = next_line(p, end), *c = next_line(b, end);

		if (line_is(p, end, "--- ") && line_is(b, end, "+++ ") && line_is(c, end, "@@ -"))
			return 0;
		if (line_is(p, end, "*** ") && line_is(b, end, "--- ") &&
		    line_is(c, end, "***************"))
			return 0;
	}
	snprintf(why, wlen, "not a patch: no diff in it (no \"--- FILE\", \"+++ FILE\", \"@@ -\" "
		 "lines)");
	return -EINVAL;
}

/* A relative path of base's made absolute (its directory before it), in place. */
static int absolute(json_t *holder, const char *key, size_t idx, const char *dir)
{
	json_t *v = key ? json_object_get(holder, key) : json_array_get(holder, idx);
	const char *s = json_string_value(v);
	char buf[PATH_MAX];

	if (!s || s[0] == '/')
		return 0;
	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", dir, s) >= sizeof(buf))
		return -ENAMETOOLONG;
	return (key ? json_object_set_new(holder, key, json_string(buf))
		    : json_array_set_new(holder, idx, json_string(buf))) < 0 ? -ENOMEM : 0;
}

static int absolute_paths(json_t *v, const char *dir)
{
	json_t *a = json_object_get(v, "patches"), *e;
	size_t i;
	int r = absolute(json_object_get(v, "source"), "git", 0, dir);

	json_array_foreach(a, i, e)
		if (r == 0)
			r = json_is_string(e) ? absolute(a, NULL, i, dir) : absolute(e, "file", 0, dir);
	a = json_object_get(v, "config");
	json_array_foreach(a, i, e)
		if (r == 0)
			r = absolute(a, NULL, i, dir);
	return r;
}

/* The child's entries of key (an array) after the base's. */
static int append(json_t *out, const json_t *child, const char *key, struct lab_error *err)
{
	const json_t *add = json_object_get(child, key);
	json_t *have = json_object_get(out, key);

	if (!add)
		return 0;
	if (!json_is_array(add))
		return error_set(err, key, "must be an array (appended to the base's)");
	if (!have)
		return json_object_set_new(out, key, json_deep_copy(add)) < 0 ? -ENOMEM : 0;
	return json_array_extend(have, (json_t *)add) < 0 ? -ENOMEM : 0;
}

int kvariant_extend(const json_t *base, const char *base_dir, const json_t *child,
		    const char *name, json_t **out, struct lab_error *err)
{
	static const char *const keys[] = {
		"extends", "description", "source", "patches", "base", "config", NULL,
	};
	static const char *const over[] = { "description", "source", "base" };
	_cleanup_json_ json_t *o = json_deep_copy(base);
	int r;

	if (!json_is_object(child))
		return error_set(err, "", "a kernel variant must be a JSON object");
	if ((r = jsonpath_check_keys(child, "", keys, err)) < 0)
		return r;
	if (!json_is_string(json_object_get(child, "extends")))
		return error_set(err, "extends", "must be a variant name or path");
	if (!o || !json_is_object(o))
		return o ? error_set(err, "extends", "the base is not a JSON object") : -ENOMEM;
	json_object_del(o, "extends");
	if ((r = absolute_paths(o, base_dir)) < 0)
		return r == -ENAMETOOLONG ? error_set(err, "extends", "a path of the base is too long")
					  : r;
	for (size_t i = 0; i < sizeof(over) / sizeof(over[0]); i++)
		if (json_object_get(child, over[i]) &&
		    json_object_set(o, over[i], json_object_get(child, over[i])) < 0)
			return -ENOMEM;
	if (!json_object_get(child, "description") &&
	    json_is_string(json_object_get(o, "description"))) {
		char d[600];

		snprintf(d, sizeof(d), "%s (+ %s)", json_string_value(json_object_get(o, "description")),
			 name);
		json_object_set_new(o, "description", json_string(d));
	}
	if ((r = append(o, child, "patches", err)) < 0 || (r = append(o, child, "config", err)) < 0)
		return r;
	*out = json_incref(o);
	return 0;
}
