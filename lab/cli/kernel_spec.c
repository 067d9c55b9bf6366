#include "cli/kernel_spec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"

/* A path from the command line made absolute; a bare name (a variant in kernels/) is kept. */
static int absolute(const char *s, int is_path, char *out, size_t len)
{
	_cleanup_free_ char *abs = NULL;

	if (!is_path && !strchr(s, '/') && !strstr(s, ".json"))
		return snprintf(out, len, "%s", s) < (int)len ? 0 : -ENAMETOOLONG;
	if (!(abs = realpath(s, NULL)))
		return -errno;
	return snprintf(out, len, "%s", abs) < (int)len ? 0 : -ENAMETOOLONG;
}

/* VARIANT+P1+P2 -> a variant file that extends VARIANT with the patches, under
 * STATE/variants/HASH/LABEL.json: its path into out. */
static int derived(const char *label, const char *variant, char *patches, const char *state,
		   char *out, size_t len, char *msg, size_t mlen)
{
	_cleanup_json_ json_t *v = json_pack("{s:s, s:[], s:s+++}", "extends", variant, "patches",
					     "description", variant, " + ", patches, " (lab run "
					     "--kernel)");
	_cleanup_free_ char *text = NULL, *dir = NULL;
	char abs[PATH_MAX], hash[65], sub[96];
	int r;

	if (!v)
		return -ENOMEM;
	for (char *p = strtok(patches, "+"); p; p = strtok(NULL, "+")) {
		if ((r = absolute(p, 1, abs, sizeof(abs))) < 0) {
			snprintf(msg, mlen, "--kernel: patch %s: %s", p, strerror(-r));
			return -EINVAL;
		}
		json_array_append_new(json_object_get(v, "patches"), json_string(abs));
	}
	if (!(text = jsonio_dumps(v)) || sha256_hex(text, strlen(text), hash) < 0)
		return -ENOMEM;
	snprintf(sub, sizeof(sub), "variants/%.16s", hash);
	if (!(dir = fs_join(state, sub)) || fs_mkdir_p(dir, 0755) < 0)
		return -EIO;
	snprintf(out, len, "%s/%s.json", dir, label);
	return jsonio_write_file(out, v);
}

/* One SPEC: [LABEL=]VARIANT[+PATCH...]. */
static json_t *one(const char *spec, const char *state, char *msg, size_t len, int *bad)
{
	char buf[PATH_MAX * 2], var[PATH_MAX], path[PATH_MAX + 128], *label = NULL, *v = buf;
	char *plus;
	int r;

	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf))
		goto invalid;
	if ((plus = strchr(buf, '=')))
		*plus = '\0', label = buf, v = plus + 1;
	if ((plus = strchr(v, '+')))
		*plus++ = '\0';
	if (!v[0] || (label && !label[0]) || (plus && !plus[0]))
		goto invalid;
	if ((r = absolute(v, 0, var, sizeof(var))) < 0) {
		snprintf(msg, len, "--kernel %s: %s: %s", spec, v, strerror(-r));
		*bad = 1;
		return NULL;
	}
	if (plus) {
		char lb[64];

		snprintf(lb, sizeof(lb), "%s", label ? label : "patched");
		if ((r = derived(lb, var, plus, state, path, sizeof(path), msg, len)) < 0) {
			*bad = r == -EINVAL;
			if (!*bad)
				snprintf(msg, len, "--kernel %s: %s", spec, strerror(-r));
			return NULL;
		}
		snprintf(var, sizeof(var), "%s", path);
	}
	return label ? json_pack("{s:s, s:s}", "name", label, "variant", var)
		     : json_pack("{s:s}", "variant", var);
invalid:
	snprintf(msg, len, "--kernel %s: expected [LABEL=]VARIANT[+PATCH...]", spec);
	*bad = 1;
	return NULL;
}

json_t *kernel_spec_array(char *const *specs, size_t n, const char *state_dir, char *msg,
			  size_t len, int *bad)
{
	_cleanup_json_ json_t *a = json_array();

	*bad = 0;
	for (size_t i = 0; a && i < n; i++) {
		json_t *k = one(specs[i], state_dir, msg, len, bad);

		if (!k || json_array_append_new(a, k) < 0)
			return NULL;
	}
	return a ? json_incref(a) : NULL;
}
