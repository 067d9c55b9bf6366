/* Kernel variant references of `lab bisect` and `lab nightly`: a name in kernels/ or a path,
 * resolved to an absolute file, which must be a variant with a git source. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder/kernel.h"
#include "cli/cli.h"

int cli_variant_file(const char *ref, const char *base, char *out, size_t len)
{
	char path[PATH_MAX + 64], vdir[PATH_MAX];
	size_t n = strlen(ref);

	if (strchr(ref, '/') || (n > 5 && !strcmp(ref + n - 5, ".json"))) {
		snprintf(path, sizeof(path), "%s%s%s", ref[0] == '/' ? "" : base,
			 ref[0] == '/' ? "" : "/", ref);
	} else {
		if (kernel_variants_dir(vdir, sizeof(vdir)) < 0) {
			cli_err("cannot find the kernels/ directory");
			return -EINVAL;
		}
		snprintf(path, sizeof(path), "%s/%s.json", vdir, ref);
	}
	if (!realpath(path, out) || strlen(out) >= len) {
		cli_err("no kernel variant \"%s\" (%s: %s)", ref, path, strerror(errno));
		return -EINVAL;
	}
	return 0;
}

int cli_variant_git(const char *file, char *name, size_t nlen, char *repo)
{
	struct kvariant v;
	struct lab_error err = { 0 };
	char msg[1200];
	int r = kernel_variant_load(file, "/", &v, &err);

	if (r < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("%s", msg);
		return -EINVAL;
	}
	snprintf(name, nlen, "%s", v.name);
	if (v.src.type != KSRC_GIT) {
		cli_err("%s: source: a git source ({\"git\": REPO}) is needed to build commits; "
			"this variant's is %s", file, v.src.type == KSRC_DEBIAN ? "a Debian package"
										: "a tarball URL");
		r = -EINVAL;
	} else if (!realpath(v.src.path, repo)) {
		cli_err("%s: source.git: %s: %s", file, v.src.path, strerror(errno));
		r = -EINVAL;
	}
	kvariant_free(&v);
	return r;
}
