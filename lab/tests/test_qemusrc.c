/* The contention model's QEMU source and build key (lab/core/qemusrc.c), on apt's real
 * --print-uris output (lab/tests/data/qemu/print-uris.txt, from the bookworm-backports deb-src
 * index) and on made-up malformed lines.  TAP. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/qemusrc.h"
#include "tap.h"
#include "testutil.h"
#include "util/cleanup.h"
#include "util/fs.h"

#define SUM_A "0901da33844a331bf8b3602b9c1fbd178e60b737c8e3ade678255bd090c9b9f1"
#define SUM_B "dd04c78b36212c1b463595028c234e8c18241ef25923e7a135671f76d8ec5547"

static void real_output(void)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	struct qemusrc_file f;

	if (asprintf(&path, "%s/lab/tests/data/qemu/print-uris.txt", testutil_root()) < 0 ||
	    !tap_ok(fs_read_file(path, 1u << 20, &text, NULL) == 0, "print-uris.txt reads"))
		return;
	tap_ok(qemusrc_parse_uris(text, &f) == 0, "apt's output: the orig tarball is found");
	tap_ok(!strcmp(f.name, "qemu_10.0.2+ds.orig.tar.xz"), "... its name (%s)", f.name);
	tap_ok(!strcmp(f.url, "http://deb.debian.org/debian/pool/main/q/qemu/"
			      "qemu_10.0.2%2bds.orig.tar.xz"), "... its URL as apt quotes it");
	tap_ok(f.size == 39449628ULL, "... its size (%llu)", f.size);
	tap_ok(!strcmp(f.sha256, SUM_A), "... its SHA256");
}

static void malformed(void)
{
	static const struct {
		const char *text;
		int want;
		const char *what;
	} cases[] = {
		{"Need to get 39.6 MB\n", -ENOENT, "no file line at all"},
		{"'http://x/q.dsc' q.dsc 10 SHA256:" SUM_B "\n", -ENOENT, "only a .dsc"},
		{"'file:///etc/q.orig.tar.xz' q.orig.tar.xz 1 SHA256:" SUM_A "\n", -EINVAL,
		 "a URL that is not http(s)"},
		{"'http://x/q.orig.tar.xz' q.orig.tar.xz 1 MD5Sum:abc\n", -EINVAL,
		 "a checksum that is not SHA256"},
		{"'http://x/q.orig.tar.xz' q.orig.tar.xz 1 SHA256:ABC\n", -EINVAL,
		 "a SHA256 that is not 64 hex digits"},
		{"'http://x/q.orig.tar.xz' ../q.orig.tar.xz 1 SHA256:" SUM_A "\n", -EINVAL,
		 "a name with a '/'"},
		{"'http://x/q.orig.tar.xz' q.orig.tar.xz 1x SHA256:" SUM_A "\n", -EINVAL,
		 "a size that is not a number"},
		{"'http://x/q.orig.tar.xz q.orig.tar.xz 1 SHA256:" SUM_A "\n", -EINVAL,
		 "an unterminated quote"},
		{"'http://x/q.orig.tar.xz' q.orig.tar.xz 1 SHA256:" SUM_A " extra\n", -EINVAL,
		 "a field too many"},
		{"'https://x/q.orig.tar.gz' q.orig.tar.gz 7 SHA256:" SUM_A, 0,
		 "a .gz orig over https, no final newline"},
	};
	struct qemusrc_file f;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(qemusrc_parse_uris(cases[i].text, &f) == cases[i].want, "%s: %d",
		       cases[i].what, cases[i].want);
	tap_ok(qemusrc_parse_uris(NULL, &f) == -EINVAL, "NULL text: -EINVAL");
}

static void keys(void)
{
	const char *patches[] = {SUM_A, SUM_B};
	const char *conf[] = {"--target-list=x86_64-softmmu", "--disable-docs"};
	struct qemusrc_input in = {
		.version = "1:10.0.2+ds-2+deb13u1~bpo12+1", .orig_sha256 = SUM_A,
		.patch_sha256 = patches, .nr_patches = 2, .configure = conf, .nr_configure = 2,
		.compiler = "gcc (Debian 12.2.0-14+deb12u1) 12.2.0",
	};
	char a[65], b[65];

	tap_ok(qemusrc_key(&in, a) == 0, "key of a build");
	/* Golden: a change to what goes into the key must bump "numalab.qemu-build/N". */
	tap_ok(!strcmp(a, "58cc1dce6f9df093118bbce517241f6935ec6c198a7c69fb6e1e47fa8fd5b695"), "... is the recorded one (%s)", a);
	tap_ok(qemusrc_key(&in, b) == 0 && !strcmp(a, b), "... the same twice");
	in.nr_patches = 1;
	tap_ok(qemusrc_key(&in, b) == 0 && strcmp(a, b), "one patch fewer: another key");
	in.nr_patches = 2;
	patches[0] = SUM_B, patches[1] = SUM_A;
	tap_ok(qemusrc_key(&in, b) == 0 && strcmp(a, b), "patches in another order: another key");
	conf[1] = "--enable-docs";
	tap_ok(qemusrc_key(&in, b) == 0 && strcmp(a, b), "another configure argument: another key");
	in.compiler = "gcc 13\nversion 1";
	tap_ok(qemusrc_key(&in, b) == -EINVAL, "an input spanning lines: -EINVAL");
	in.compiler = NULL;
	tap_ok(qemusrc_key(&in, b) == -EINVAL, "a missing input: -EINVAL");
	in.compiler = "gcc";
	patches[0] = "not-a-sum";
	tap_ok(qemusrc_key(&in, b) == -EINVAL, "a patch checksum that is not 64 hex: -EINVAL");
}

int main(void)
{
	real_output();
	malformed();
	keys();
	return tap_done();
}
