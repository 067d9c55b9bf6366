#include "core/imgrecipe.h"

#include <elf.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonpath.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/text.h"

static const char *const recipe_keys[] = {
	"description", "suite", "mirror", "variant", "packages", "exclude", "files", "size_mib",
	NULL,
};
static const char *const file_keys[] = {"src", "dest", "mode", NULL};
/* mmdebstrap variants that run the packages' maintainer scripts (extract and custom do not,
 * which leaves a tree dpkg never configured). */
static const char *const variants[] = {
	"essential", "apt", "required", "minbase", "important", "standard", NULL,
};

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

static int chars_in(const char *s, const char *allowed)
{
	return strspn(s, allowed) == strlen(s);
}

static int parse_suite(const json_t *j, struct img_recipe *r, struct lab_error *err)
{
	const char *s = json_string_value(json_object_get(j, "suite"));

	if (!json_object_get(j, "suite"))
		return error_set(err, "suite", "required (a Debian suite such as \"bookworm\")");
	if (!s || !s[0] || strlen(s) >= sizeof(r->suite) ||
	    !chars_in(s, "abcdefghijklmnopqrstuvwxyz0123456789.-") || s[0] == '-')
		return error_set(err, "suite", "must match [a-z0-9][a-z0-9.-]{0,30}");
	snprintf(r->suite, sizeof(r->suite), "%s", s);
	return 0;
}

static int parse_mirror(const json_t *j, struct img_recipe *r, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "mirror");
	const char *s = json_string_value(v);

	snprintf(r->mirror, sizeof(r->mirror), "%s", IMG_DEFAULT_MIRROR);
	if (!v)
		return 0;
	if (!s || strlen(s) >= sizeof(r->mirror) || text_has_control_chars(s) ||
	    strpbrk(s, " \"'\\") ||
	    (strncmp(s, "http://", 7) && strncmp(s, "https://", 8) && strncmp(s, "file:/", 6)))
		return error_set(err, "mirror", "must be an http://, https:// or file:/ URL without "
				 "spaces, shorter than %zu bytes", sizeof(r->mirror));
	snprintf(r->mirror, sizeof(r->mirror), "%s", s);
	return 0;
}

static int parse_variant(const json_t *j, struct img_recipe *r, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "variant");
	const char *s = json_string_value(v);

	snprintf(r->variant, sizeof(r->variant), "%s", IMG_DEFAULT_VARIANT);
	if (!v)
		return 0;
	for (const char *const *p = variants; s && *p; p++)
		if (!strcmp(s, *p)) {
			snprintf(r->variant, sizeof(r->variant), "%s", s);
			return 0;
		}
	return error_set(err, "variant", "must be one of essential, apt, required, minbase, "
			 "important, standard");
}

static int parse_size(const json_t *j, struct img_recipe *r, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "size_mib");

	r->size_mib = IMG_DEFAULT_SIZE_MIB;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 256 || json_integer_value(v) > 65536)
		return error_set(err, "size_mib", "must be an integer 256..65536");
	r->size_mib = (unsigned)json_integer_value(v);
	return 0;
}

/* Debian package names (policy 5.6.1): [a-z0-9][a-z0-9+.-]+. */
static int package_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 2 && n < 64 && chars_in(s, "abcdefghijklmnopqrstuvwxyz0123456789+.-") &&
	       s[0] != '+' && s[0] != '.' && s[0] != '-';
}

static int parse_packages(const json_t *j, struct img_recipe *r, struct lab_error *err)
{
	const json_t *a = json_object_get(j, "packages");
	size_t n = json_array_size(a), i;
	char p[JSONPATH_LEN];
	json_t *v;

	if (!a)
		return error_set(err, "packages", "required (e.g. [\"busybox\"])");
	if (!json_is_array(a) || n < 1 || n > IMG_MAX_PACKAGES)
		return error_set(err, "packages", "must be an array of 1..%d package names",
				 IMG_MAX_PACKAGES);
	r->packages = calloc(n, sizeof(*r->packages));
	if (!r->packages)
		return -ENOMEM;
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);

		jsonpath_index(p, sizeof(p), "packages", i);
		if (!s || !package_name_ok(s))
			return error_set(err, p, "must be a Debian package name "
					 "([a-z0-9][a-z0-9+.-]{1,62})");
		for (unsigned k = 0; k < r->nr_packages; k++)
			if (!strcmp(r->packages[k], s))
				return error_set(err, p, "\"%s\" is listed twice", s);
		snprintf(r->packages[r->nr_packages++], sizeof(r->packages[0]), "%s", s);
	}
	return 0;
}

static int parse_excludes(const json_t *j, struct img_recipe *r, struct lab_error *err)
{
	const json_t *a = json_object_get(j, "exclude");
	size_t n = json_array_size(a), i;
	char p[JSONPATH_LEN];
	json_t *v;

	if (!a)
		return 0;
	if (!json_is_array(a) || n > IMG_MAX_EXCLUDES)
		return error_set(err, "exclude", "must be an array of at most %d path globs",
				 IMG_MAX_EXCLUDES);
	r->excludes = calloc(n ? n : 1, sizeof(*r->excludes));
	if (!r->excludes)
		return -ENOMEM;
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);

		jsonpath_index(p, sizeof(p), "exclude", i);
		if (!s || s[0] != '/' || strlen(s) >= sizeof(r->excludes[0]) ||
		    !chars_in(s, NAME_CHARS "/*?+"))
			return error_set(err, p, "must be an absolute path glob of [A-Za-z0-9._/*?+-], "
					 "shorter than %zu bytes", sizeof(r->excludes[0]));
		snprintf(r->excludes[r->nr_excludes++], sizeof(r->excludes[0]), "%s", s);
	}
	return 0;
}

/* An absolute guest path: no "." or ".." components, no "//", no trailing "/". */
static int guest_path_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || s[0] != '/' || s[n - 1] == '/' || strstr(s, "//") ||
	    text_has_control_chars(s))
		return 0;
	for (const char *c = s; c; c = strchr(c + 1, '/')) {
		if (!strncmp(c, "/./", 3) || !strcmp(c, "/.") || !strncmp(c, "/../", 4) ||
		    !strcmp(c, "/.."))
			return 0;
	}
	return 1;
}

static int parse_mode(const json_t *v, const char *path, unsigned *mode, struct lab_error *err)
{
	const char *s = json_string_value(v);
	size_t n = s ? strlen(s) : 0;

	*mode = 0644;
	if (!v)
		return 0;
	if (!s || n < 3 || n > 4 || !chars_in(s, "01234567"))
		return error_set(err, path, "must be an octal mode string such as \"0644\"");
	*mode = (unsigned)strtoul(s, NULL, 8);
	return 0;
}

static int parse_file(const json_t *f, size_t i, struct img_recipe *r, struct lab_error *err)
{
	struct img_file *out = &r->files[r->nr_files];
	char path[JSONPATH_LEN], p[JSONPATH_LEN];
	const char *src, *dest;
	int rc;

	jsonpath_index(path, sizeof(path), "files", i);
	rc = jsonpath_check_object(f, path, file_keys, err);
	if (rc < 0)
		return rc;
	jsonpath_key(p, sizeof(p), path, "src");
	src = json_string_value(json_object_get(f, "src"));
	if (!src || !src[0] || strlen(src) >= sizeof(out->src) || text_has_control_chars(src))
		return error_set(err, p, "required: a host file (relative to the recipe's "
				 "directory), without control characters");
	jsonpath_key(p, sizeof(p), path, "dest");
	dest = json_string_value(json_object_get(f, "dest"));
	if (!dest || strlen(dest) >= sizeof(out->dest) || !guest_path_ok(dest))
		return error_set(err, p, "required: an absolute guest path without \".\" or \"..\" "
				 "components, shorter than %zu bytes", sizeof(out->dest));
	if (!strncmp(dest, IMG_LAB_DIR "/", strlen(IMG_LAB_DIR) + 1) || !strcmp(dest, IMG_LAB_DIR) ||
	    !strcmp(dest, IMG_INIT_PATH))
		return error_set(err, p, "%s and %s belong to the lab (agent and runners)",
				 IMG_LAB_DIR, IMG_INIT_PATH);
	for (unsigned k = 0; k < r->nr_files; k++)
		if (!strcmp(r->files[k].dest, dest))
			return error_set(err, p, "%s is written twice (also files[%u])", dest, k);
	jsonpath_key(p, sizeof(p), path, "mode");
	rc = parse_mode(json_object_get(f, "mode"), p, &out->mode, err);
	if (rc < 0)
		return rc;
	snprintf(out->src, sizeof(out->src), "%s", src);
	snprintf(out->dest, sizeof(out->dest), "%s", dest);
	r->nr_files++;
	return 0;
}

static int parse_files(const json_t *j, struct img_recipe *r, struct lab_error *err)
{
	const json_t *a = json_object_get(j, "files");
	size_t n = json_array_size(a), i;
	json_t *f;

	if (!a)
		return 0;
	if (!json_is_array(a) || n > IMG_MAX_FILES)
		return error_set(err, "files", "must be an array of at most %d {src, dest, mode}",
				 IMG_MAX_FILES);
	r->files = calloc(n ? n : 1, sizeof(*r->files));
	if (!r->files)
		return -ENOMEM;
	json_array_foreach(a, i, f) {
		int rc = parse_file(f, i, r, err);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int parse_description(const json_t *j, struct lab_error *err)
{
	const json_t *v = json_object_get(j, "description");

	if (v && (!json_is_string(v) || json_string_length(v) > 1000))
		return error_set(err, "description", "must be a string of at most 1000 bytes");
	return 0;
}

int img_recipe_from_json(const json_t *j, const char *name, struct img_recipe *r,
			 struct lab_error *err)
{
	int rc;

	memset(r, 0, sizeof(*r));
	if (!name || !name[0] || strlen(name) >= sizeof(r->name) || !chars_in(name, NAME_CHARS))
		return error_set(err, "", "a recipe's file name must match [A-Za-z0-9._-]{1,63}.json");
	snprintf(r->name, sizeof(r->name), "%s", name);
	if (!json_is_object(j))
		return error_set(err, "", "a recipe must be a JSON object");
	if ((rc = jsonpath_check_keys(j, "", recipe_keys, err)) < 0 ||
	    (rc = parse_description(j, err)) < 0 || (rc = parse_suite(j, r, err)) < 0 ||
	    (rc = parse_mirror(j, r, err)) < 0 || (rc = parse_variant(j, r, err)) < 0 ||
	    (rc = parse_size(j, r, err)) < 0 || (rc = parse_packages(j, r, err)) < 0 ||
	    (rc = parse_excludes(j, r, err)) < 0 || (rc = parse_files(j, r, err)) < 0) {
		img_recipe_free(r);
		return rc;
	}
	return 0;
}

void img_recipe_free(struct img_recipe *r)
{
	if (!r)
		return;
	free(r->packages);
	free(r->excludes);
	free(r->files);
	memset(r, 0, sizeof(*r));
}

/* Everything that decides the image's content; the name does not (two recipe files with the
 * same content share a key, and their entries differ by name). */
static json_t *content_json(const struct img_recipe *r)
{
	json_t *pk = json_array(), *ex = json_array(), *fl = json_array();

	for (unsigned i = 0; pk && i < r->nr_packages; i++)
		json_array_append_new(pk, json_string(r->packages[i]));
	for (unsigned i = 0; ex && i < r->nr_excludes; i++)
		json_array_append_new(ex, json_string(r->excludes[i]));
	for (unsigned i = 0; fl && i < r->nr_files; i++) {
		char mode[8];

		snprintf(mode, sizeof(mode), "%04o", r->files[i].mode);
		json_array_append_new(fl, json_pack("{s:s,s:s,s:s}", "src", r->files[i].src, "dest",
						    r->files[i].dest, "mode", mode));
	}
	return json_pack("{s:s,s:s,s:s,s:I,s:o,s:o,s:o}", "suite", r->suite, "mirror", r->mirror,
			 "variant", r->variant, "size_mib", (json_int_t)r->size_mib, "packages", pk,
			 "exclude", ex, "files", fl);
}

json_t *img_recipe_to_json(const struct img_recipe *r)
{
	json_t *j = content_json(r);

	if (j)
		json_object_set_new(j, "name", json_string(r->name));
	return j;
}

char *img_key_text(const struct img_recipe *r, const struct img_input *files,
		   const struct img_input *programs, unsigned nr_programs)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	_cleanup_json_ json_t *c = content_json(r);
	_cleanup_free_ char *cs = NULL;
	char *out = NULL;

	/* The file entries' src is where the bytes came from, not what they are: the key has
	 * their hashes instead. */
	if (!c)
		return NULL;
	for (size_t i = 0; i < json_array_size(json_object_get(c, "files")); i++)
		json_object_del(json_array_get(json_object_get(c, "files"), i), "src");
	cs = json_dumps(c, JSON_SORT_KEYS | JSON_COMPACT);
	if (!cs)
		return NULL;
	strbuf_appendf(&sb, "%s\nrecipe %s\n", IMG_BUILDER_VERSION, cs);
	for (unsigned i = 0; i < r->nr_files; i++)
		strbuf_appendf(&sb, "file %s %04o %s\n", files[i].name, files[i].mode,
			       files[i].sha256);
	for (unsigned i = 0; i < nr_programs; i++)
		strbuf_appendf(&sb, "program %s %s\n", programs[i].name, programs[i].sha256);
	return strbuf_take(&sb, &out) < 0 ? NULL : out;
}

/* Section headers of an ELF64 little-endian file, bounds-checked; NULL when it is not one. */
static const unsigned char *elf_sections(const unsigned char *d, size_t len, Elf64_Ehdr *eh)
{
	if (len < sizeof(*eh) || memcmp(d, ELFMAG, SELFMAG) || d[EI_CLASS] != ELFCLASS64 ||
	    d[EI_DATA] != ELFDATA2LSB)
		return NULL;
	memcpy(eh, d, sizeof(*eh));
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
	    eh->e_shstrndx >= eh->e_shnum || eh->e_shoff > len ||
	    (len - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return NULL;
	return d + eh->e_shoff;
}

static int elf_digest(const unsigned char *d, size_t len, EVP_MD_CTX *ctx)
{
	Elf64_Ehdr eh;
	const unsigned char *sh = elf_sections(d, len, &eh);
	Elf64_Shdr strtab;

	if (!sh)
		return -EINVAL;
	memcpy(&strtab, sh + (size_t)eh.e_shstrndx * sizeof(Elf64_Shdr), sizeof(strtab));
	if (strtab.sh_offset > len || strtab.sh_size > len - strtab.sh_offset)
		return -EINVAL;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr s;
		char hdr[512];
		const char *name = "";

		memcpy(&s, sh + (size_t)i * sizeof(s), sizeof(s));
		if (!(s.sh_flags & SHF_ALLOC) || s.sh_type == SHT_NOTE)
			continue;
		if (s.sh_name < strtab.sh_size &&
		    memchr(d + strtab.sh_offset + s.sh_name, 0, strtab.sh_size - s.sh_name))
			name = (const char *)d + strtab.sh_offset + s.sh_name;
		snprintf(hdr, sizeof(hdr), "%.200s %u %llx %llx %llx\n", name, s.sh_type,
			 (unsigned long long)s.sh_flags, (unsigned long long)s.sh_addr,
			 (unsigned long long)s.sh_size);
		if (!EVP_DigestUpdate(ctx, hdr, strlen(hdr)))
			return -EIO;
		if (s.sh_type == SHT_NOBITS)
			continue;
		if (s.sh_offset > len || s.sh_size > len - s.sh_offset)
			return -EINVAL;
		if (!EVP_DigestUpdate(ctx, d + s.sh_offset, s.sh_size))
			return -EIO;
	}
	return 0;
}

int img_program_digest(const void *data, size_t len, char out[65])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n = 0;
	int r;

	if (!ctx)
		return -ENOMEM;
	r = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) ? 0 : -EIO;
	if (r == 0 && (r = elf_digest(data, len, ctx)) == -EINVAL)
		r = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
		    EVP_DigestUpdate(ctx, data, len) ? 0 : -EIO;
	if (r == 0 && (!EVP_DigestFinal_ex(ctx, md, &n) || n != 32))
		r = -EIO;
	EVP_MD_CTX_free(ctx);
	if (r == 0)
		sha256_format(md, out);
	return r;
}

void img_entry_name(const struct img_recipe *r, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s-%.16s", r->name, key);
}

void img_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

static int argv_push(char **argv, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int argv_push(char **argv, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&argv[*n], fmt, ap);
	va_end(ap);
	if (r < 0) {
		argv[*n] = NULL;
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

char **img_mmdebstrap_argv(const struct img_recipe *r, const char *out_tar, int simulate)
{
	size_t n = 0, max = 16 + r->nr_excludes;
	char **argv = calloc(max, sizeof(char *));
	_cleanup_strbuf_ struct strbuf inc = STRBUF_INIT;
	_cleanup_free_ char *include = NULL;
	int rc = 0;

	if (!argv)
		return NULL;
	for (unsigned i = 0; i < r->nr_packages; i++)
		strbuf_appendf(&inc, "%s%s", i ? "," : "", r->packages[i]);
	if (strbuf_take(&inc, &include) < 0) {
		free(argv);
		return NULL;
	}
	rc |= argv_push(argv, &n, "mmdebstrap");
	rc |= argv_push(argv, &n, "--variant=%s", r->variant);
	rc |= argv_push(argv, &n, "--include=%s", include);
	/* A flaky mirror should cost a retry, not a failed build. */
	rc |= argv_push(argv, &n, "--aptopt=Acquire::Retries \"3\"");
	for (unsigned i = 0; i < r->nr_excludes; i++)
		rc |= argv_push(argv, &n, "--dpkgopt=path-exclude=%s", r->excludes[i]);
	rc |= argv_push(argv, &n, "--format=tar");
	if (simulate)
		rc |= argv_push(argv, &n, "--simulate");
	rc |= argv_push(argv, &n, "%s", r->suite);
	rc |= argv_push(argv, &n, "%s", out_tar);
	rc |= argv_push(argv, &n, "%s", r->mirror);
	if (rc) {
		img_argv_free(argv);
		return NULL;
	}
	return argv;
}

/* The package named by an apt error line, copied into pkg; 0 when the line names none. */
static int apt_error_package(const char *line, size_t len, char *pkg, size_t plen)
{
	static const struct {
		const char *prefix, *end;
	} pat[] = {
		{ "E: Unable to locate package ", "\n" },
		{ "E: Package '", "'" },
		{ "E: Couldn't find any package by glob '", "'" },
		{ "E: Couldn't find any package by regex '", "'" },
	};

	for (size_t i = 0; i < sizeof(pat) / sizeof(pat[0]); i++) {
		size_t pl = strlen(pat[i].prefix), k;

		if (len <= pl || strncmp(line, pat[i].prefix, pl))
			continue;
		for (k = pl; k < len && line[k] != pat[i].end[0] && line[k] != '\n'; k++)
			;
		snprintf(pkg, plen, "%.*s", (int)(k - pl), line + pl);
		return pkg[0] != '\0';
	}
	return 0;
}

static int package_error(const struct img_recipe *r, const char *pkg, struct lab_error *err)
{
	char p[JSONPATH_LEN];

	for (unsigned i = 0; i < r->nr_packages; i++)
		if (!strcmp(r->packages[i], pkg)) {
			jsonpath_index(p, sizeof(p), "packages", i);
			return error_set(err, p, "unknown package \"%s\" in %s (%s)", pkg, r->suite,
					 r->mirror);
		}
	/* A dependency of a listed package: still the package list's problem. */
	return error_set(err, "packages", "package \"%.64s\" cannot be installed from %s (%s)",
			 pkg, r->suite, r->mirror);
}

int img_mmdebstrap_error(const struct img_recipe *r, const char *output, int status,
			 struct lab_error *err)
{
	char pkg[128], last[256] = "";
	const char *line = output ? output : "";

	for (; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line)) {
		size_t len = strcspn(line, "\n");

		if (apt_error_package(line, len, pkg, sizeof(pkg)))
			return package_error(r, pkg, err);
		if (memmem(line, len, "does not have a Release file", 28) ||
		    memmem(line, len, "404  Not Found", 14))
			return error_set(err, "suite", "no suite \"%s\" on %s", r->suite, r->mirror);
		if (memmem(line, len, "Could not resolve", 17) ||
		    memmem(line, len, "Failed to fetch", 15))
			return error_set(err, "mirror", "cannot reach %s: %.*s", r->mirror,
					 (int)(len > 160 ? 160 : len), line);
		if (!strncmp(line, "E: ", 3) && !last[0])
			snprintf(last, sizeof(last), "%.*s", (int)len, line);
	}
	return error_set(err, "", "mmdebstrap failed (exit %d)%s%s", status, last[0] ? ": " : "",
			 last);
}
