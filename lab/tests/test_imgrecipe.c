/* Image recipes (lab/core/imgrecipe.c): validation, the cache key, the mmdebstrap command line
 * and its errors, the program digest.
 *
 * lab/tests/data/image-recipes/errors/NAME.json must fail with "PATH: REASON" as in
 * NAME.expected; ok/NAME.json must give the JSON in NAME.expected.  The key text and the
 * mmdebstrap argv are compared with lab/tests/golden/image-*.txt (UPDATE_GOLDEN=1 rewrites). */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/imgrecipe.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/jsonio.h"
#include "util/sha256.h"

static void golden(const char *name, const char *text)
{
	_cleanup_free_ char *path = NULL, *want = NULL;

	if (asprintf(&path, "%s/lab/tests/golden/%s", testutil_root(), name) < 0)
		return;
	if (getenv("UPDATE_GOLDEN")) {
		tap_ok(fs_write_atomic(path, text, strlen(text)) == 0, "%s: golden rewritten", name);
		return;
	}
	if (fs_read_file(path, TESTUTIL_MAX_FILE, &want, NULL) < 0) {
		tap_ok(0, "%s: read %s", name, path);
		return;
	}
	if (!tap_ok(!strcmp(want, text), "%s matches its golden file", name))
		printf("# got:\n%s\n", text);
}

static int load(const char *dir, const char *file, struct img_recipe *r, struct lab_error *err)
{
	_cleanup_free_ char *path = fs_join(dir, file);
	_cleanup_json_ json_t *j = NULL;
	char name[64];
	int rc;

	snprintf(name, sizeof(name), "%.*s", (int)(strlen(file) - 5), file);
	rc = jsonio_load_file(path, TESTUTIL_MAX_FILE, &j, err);
	return rc < 0 ? rc : img_recipe_from_json(j, name, r, err);
}

static void data_cases(const char *sub, int want_ok)
{
	_cleanup_json_dir_ struct testutil_json_dir d;
	char rel[128];

	snprintf(rel, sizeof(rel), "lab/tests/data/image-recipes/%s", sub);
	testutil_json_dir_open(&d, rel);
	if (!tap_ok(d.n > 0, "%s: cases found", rel))
		return;
	for (int i = 0; i < d.n; i++) {
		const char *file = d.ents[i]->d_name;
		_cleanup_free_ char *jpath = fs_join(d.dir, file);
		_cleanup_free_ char *expected = testutil_read_expected(jpath, file);
		struct lab_error err = { 0 };
		struct img_recipe r;
		char got[1024];
		int rc;

		if (!expected)
			continue;
		rc = load(d.dir, file, &r, &err);
		if (want_ok) {
			_cleanup_json_ json_t *j = rc == 0 ? img_recipe_to_json(&r) : NULL;

			if (rc < 0)
				printf("# %s: %s\n", err.path, err.msg);
			testutil_check_json(file, "recipe", j, expected);
			img_recipe_free(&r);
		} else {
			snprintf(got, sizeof(got), "%s: %s", err.path, err.msg);
			testutil_check_error(file, rc, got, expected);
		}
	}
}

static int full_recipe(struct img_recipe *r)
{
	_cleanup_free_ char *dir = fs_join(testutil_root(), "lab/tests/data/image-recipes/ok");
	struct lab_error err = { 0 };

	return dir ? load(dir, "full.json", r, &err) : -ENOMEM;
}

static const char SHA_A[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char SHA_B[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

static void key_of(const struct img_recipe *r, const char *file_sha, char *key)
{
	struct img_input files[] = { { "/etc/motd", file_sha, 0644 },
				     { "/usr/local/bin/x", SHA_A, 0755 } };
	struct img_input progs[] = { { "agent", SHA_A, 0 }, { "pft", SHA_B, 0 } };
	_cleanup_free_ char *text = img_key_text(r, files, progs, 2);

	key[0] = '\0';
	if (text)
		sha256_hex(text, strlen(text), key);
}

static void test_key(void)
{
	struct img_recipe r;
	struct img_input files[] = { { "/etc/motd", SHA_A, 0644 },
				     { "/usr/local/bin/x", SHA_A, 0755 } };
	struct img_input progs[] = { { "agent", SHA_A, 0 }, { "pft", SHA_B, 0 } };
	char k1[65], k2[65], k3[65], entry[128];

	if (!tap_ok(full_recipe(&r) == 0, "full.json loads"))
		return;
	_cleanup_free_ char *text = img_key_text(&r, files, progs, 2);

	golden("image-key-full.txt", text ? text : "(null)");
	key_of(&r, SHA_A, k1);
	key_of(&r, SHA_A, k2);
	tap_ok(strlen(k1) == 64 && !strcmp(k1, k2), "the key is a stable sha256");
	key_of(&r, SHA_B, k3);
	tap_ok(strcmp(k1, k3) != 0, "a file's content changes the key");
	snprintf(r.files[0].src, sizeof(r.files[0].src), "elsewhere/motd");
	key_of(&r, SHA_A, k3);
	tap_ok(!strcmp(k1, k3), "where a file comes from does not change the key");
	snprintf(r.packages[0], sizeof(r.packages[0]), "busybox-static");
	key_of(&r, SHA_A, k3);
	tap_ok(strcmp(k1, k3) != 0, "the package list changes the key");
	img_entry_name(&r, k1, entry, sizeof(entry));
	tap_ok(!strncmp(entry, "full-", 5) && strlen(entry) == 21, "entry name NAME-KEY16: %s",
	       entry);
	img_recipe_free(&r);
}

static void test_argv(void)
{
	struct img_recipe r;

	if (!tap_ok(full_recipe(&r) == 0, "full.json loads for mmdebstrap"))
		return;
	for (int sim = 0; sim <= 1; sim++) {
		char **argv = img_mmdebstrap_argv(&r, "/cache/.tmp/rootfs.tar", sim);
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		for (char **p = argv; f && p && *p; p++)
			fprintf(f, "%s\n", *p);
		if (f)
			fclose(f);
		golden(sim ? "image-mmdebstrap-simulate.txt" : "image-mmdebstrap.txt",
		       text ? text : "");
		img_argv_free(argv);
	}
	img_recipe_free(&r);
}

static void test_mmdebstrap_errors(void)
{
	static const struct {
		const char *output, *want;
	} cases[] = {
		{ "I: running apt-get update...\nE: Unable to locate package numactl\nE: setup "
		  "failed: E: apt-get ... failed\n",
		  "packages[1]: unknown package \"numactl\" in trixie (https://deb.debian.org/debian/)" },
		{ "E: Package 'linux-perf' has no installation candidate\n",
		  "packages[2]: unknown package \"linux-perf\" in trixie (https://deb.debian.org/debian/)" },
		{ "E: Unable to locate package libfoo1\n",
		  "packages: package \"libfoo1\" cannot be installed from trixie "
		  "(https://deb.debian.org/debian/)" },
		{ "E: The repository 'https://deb.debian.org/debian/ trixie Release' does not have a "
		  "Release file.\n",
		  "suite: no suite \"trixie\" on https://deb.debian.org/debian/" },
		{ "I: x\nE: mmdebstrap failed to run\n",
		  ": mmdebstrap failed (exit 25): E: mmdebstrap failed to run" },
		{ "", ": mmdebstrap failed (exit 25)" },
	};
	struct img_recipe r;

	if (!tap_ok(full_recipe(&r) == 0, "full.json loads for the error cases"))
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lab_error err = { 0 };
		char got[1024];
		int rc = img_mmdebstrap_error(&r, cases[i].output, 25, &err);

		snprintf(got, sizeof(got), "%s: %s", err.path, err.msg);
		if (!tap_ok(rc == -EINVAL && !strcmp(got, cases[i].want), "mmdebstrap error %zu: %s",
			    i, cases[i].want))
			printf("# got: %s\n", got);
	}
	img_recipe_free(&r);
}

/* A minimal ELF64: header, .text (alloc), a build-id note (alloc), .debug_info, .shstrtab. */
struct fake_elf {
	Elf64_Ehdr eh;
	char text[16], note[16], debug[16];
	char strtab[48];
	Elf64_Shdr sh[5];
};

static void fake_elf(struct fake_elf *f)
{
	static const char names[] = "\0.text\0.note.gnu.build-id\0.debug_info\0.shstrtab";

	memset(f, 0, sizeof(*f));
	memcpy(f->eh.e_ident, ELFMAG, SELFMAG);
	f->eh.e_ident[EI_CLASS] = ELFCLASS64;
	f->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	f->eh.e_shoff = offsetof(struct fake_elf, sh);
	f->eh.e_shentsize = sizeof(Elf64_Shdr);
	f->eh.e_shnum = 5;
	f->eh.e_shstrndx = 4;
	memcpy(f->text, "code code code!", 16);
	memcpy(f->note, "build-id 123456", 16);
	memcpy(f->debug, "/home/u/src/x.c", 16);
	memcpy(f->strtab, names, sizeof(names));
	f->sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC,
				 .sh_offset = offsetof(struct fake_elf, text), .sh_size = 16 };
	f->sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_NOTE, .sh_flags = SHF_ALLOC,
				 .sh_offset = offsetof(struct fake_elf, note), .sh_size = 16 };
	f->sh[3] = (Elf64_Shdr){ .sh_name = 26, .sh_type = SHT_PROGBITS,
				 .sh_offset = offsetof(struct fake_elf, debug), .sh_size = 16 };
	f->sh[4] = (Elf64_Shdr){ .sh_name = 38, .sh_type = SHT_STRTAB,
				 .sh_offset = offsetof(struct fake_elf, strtab),
				 .sh_size = sizeof(names) };
}

static void test_digest(void)
{
	struct fake_elf f;
	char a[65], b[65], plain[65];

	tap_ok(sha256_hex("abc", 3, a) == 0 &&
	       !strcmp(a, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	       "sha256(\"abc\") is the FIPS 180-2 vector");
	fake_elf(&f);
	img_program_digest(&f, sizeof(f), a);
	memcpy(f.debug, "/ci/checkout/x.c", 16);
	memcpy(f.note, "build-id 999999", 16);
	img_program_digest(&f, sizeof(f), b);
	tap_ok(!strcmp(a, b), "debug info and build-id do not change a program's digest");
	f.text[0] = 'C';
	img_program_digest(&f, sizeof(f), b);
	tap_ok(strcmp(a, b) != 0, "its code does");
	f.eh.e_shoff = sizeof(f) + 100; /* broken: hashed as bytes */
	img_program_digest(&f, sizeof(f), a);
	sha256_hex(&f, sizeof(f), plain);
	tap_ok(!strcmp(a, plain), "a file that is not a sound ELF64 is hashed whole");
	img_program_digest("#!/bin/sh\n", 10, a);
	sha256_hex("#!/bin/sh\n", 10, plain);
	tap_ok(!strcmp(a, plain), "so is a script");
}

int main(void)
{
	struct img_recipe r;
	struct lab_error err = { 0 };
	_cleanup_json_ json_t *j = json_pack("{s:s,s:[s]}", "suite", "bookworm", "packages", "x1");

	data_cases("errors", 0);
	data_cases("ok", 1);
	tap_ok(img_recipe_from_json(j, "bad name", &r, &err) == -EINVAL &&
	       strstr(err.msg, "file name"), "a recipe file name with a space is refused");
	test_key();
	test_argv();
	test_mmdebstrap_errors();
	test_digest();
	return tap_done();
}
