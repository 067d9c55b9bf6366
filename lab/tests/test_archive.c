/* util/archive: bundles written and read back byte for byte, the same members giving the same
 * bytes, the names a member may have, the limits, and every truncation and every flipped byte
 * of an archive refused with nothing left behind.
 *
 *   test_archive --extract ARCHIVE DIR [--max-member N] [--max-members N] [--max-total N]
 * extracts one archive (lab/tests/test_archive_hostile.sh): exit 0, or the error on stderr and
 * exit 2 when it is refused (1 on another error). */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "util/archive.h"
#include "util/cleanup.h"
#include "util/fs.h"

static char tmp[] = "/tmp/numalab-test-archive.XXXXXX";

struct member {
	const char *name;
	const char *data;
	size_t len;
};

/* in tmp: a file name, newly allocated. */
static char *in_tmp(const char *name)
{
	return fs_join(tmp, name);
}

static int write_archive(const char *path, const struct member *m, size_t n)
{
	struct arc_writer *w;
	int r = arc_writer_open(path, &w);

	for (size_t i = 0; r == 0 && i < n; i++)
		r = arc_writer_add(w, m[i].name, m[i].data, m[i].len);
	if (r < 0) {
		arc_writer_abort(w);
		return r;
	}
	return arc_writer_close(w);
}

static int same_file(const char *path, const void *data, size_t len, unsigned mode)
{
	_cleanup_free_ char *got = NULL;
	size_t n = 0;
	struct stat st;

	return fs_read_file(path, 1u << 24, &got, &n) == 0 && n == len &&
	       memcmp(got, data, len) == 0 && lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_mode & 07777) == mode;
}

static int is_dir(const char *path, unsigned mode)
{
	struct stat st;

	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == mode;
}

static void test_names(void)
{
	static const struct {
		const char *name;
		int ok;
	} cases[] = {
		{ "report.json", 1 }, { "run-0/console.log", 1 }, { "a/b/c/d", 1 },
		{ "..x", 1 }, { "x..", 1 }, { "a/.hidden", 1 }, { "a b-c_d+e=f,g", 1 },
		{ "", 0 }, { "/etc/passwd", 0 }, { "/", 0 }, { "..", 0 }, { "../x", 0 },
		{ "a/../../x", 0 }, { "a/..", 0 }, { ".", 0 }, { "./x", 0 }, { "a/./b", 0 },
		{ "a//b", 0 }, { "a/", 0 }, { "a\nb", 0 }, { "a\tb", 0 }, { "\x1b[31m", 0 },
		{ "a\x7f", 0 }, { "caf\xc3\xa9", 0 },
	};
	char longest[ARC_MAX_NAME + 2];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char shown[64];
		size_t o = 0;

		/* A TAP line is one line: control characters and non-ASCII bytes as \xHH. */
		for (const unsigned char *p = (const unsigned char *)cases[i].name; *p; p++)
			o += (size_t)snprintf(shown + o, sizeof(shown) - o,
					      *p >= 0x20 && *p < 0x7f ? "%c" : "\\x%02x", *p);
		shown[o] = '\0';
		tap_ok(arc_name_ok(cases[i].name) == cases[i].ok, "name \"%s\" is %s", shown,
		       cases[i].ok ? "safe" : "refused");
	}
	memset(longest, 'n', sizeof(longest) - 1);
	longest[ARC_MAX_NAME] = '\0';
	tap_ok(arc_name_ok(longest), "a name of %u bytes is safe", ARC_MAX_NAME);
	longest[ARC_MAX_NAME] = 'n';
	longest[ARC_MAX_NAME + 1] = '\0';
	tap_ok(!arc_name_ok(longest), "a name of %u bytes is refused", ARC_MAX_NAME + 1);
	tap_ok(!arc_name_ok(NULL), "no name is refused");
}

/* The members of a bundle-like archive: nested, empty, binary with NULs over several reads,
 * and the longest name. */
static char binary[200000];
static char long_name[ARC_MAX_NAME + 1];
static struct member bundle[] = {
	{ "report.json", "{\"schema\": \"numalab.report/1\"}\n", 32 },
	{ "run-0/console.log", "[    0.000000] Linux version 6.12\n", 34 },
	{ "run-0/results/out.jsonl", "{\"faults\": 1}\n{\"faults\": 2}\n", 28 },
	{ "empty", "", 0 },
	{ "run-1/bin.dat", binary, sizeof(binary) },
	{ long_name, "long\n", 5 },
};
#define NR_BUNDLE (sizeof(bundle) / sizeof(bundle[0]))

static void make_members(void)
{
	unsigned x = 12345;

	for (size_t i = 0; i < sizeof(binary); i++) {
		x = x * 1103515245u + 12345u;
		binary[i] = (char)(i % 3 ? x >> 16 : 0);
	}
	memset(long_name, 'l', ARC_MAX_NAME);
	memcpy(long_name, "deep/", 5);
	long_name[ARC_MAX_NAME] = '\0';
}

/* Every header as a writer promises: regular, 0644, mtime 0, uid/gid 0, "numalab", in order. */
static int headers_ok(const char *path, const struct member *m, size_t n)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	size_t i = 0;
	int ok = 1;

	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	if (archive_read_open_filename(a, path, 10240) != ARCHIVE_OK)
		ok = 0;
	while (ok && archive_read_next_header(a, &e) == ARCHIVE_OK) {
		ok = i < n && !strcmp(archive_entry_pathname(e), m[i].name) &&
		     archive_entry_filetype(e) == AE_IFREG && archive_entry_perm(e) == 0644 &&
		     archive_entry_mtime(e) == 0 && archive_entry_uid(e) == 0 &&
		     archive_entry_gid(e) == 0 && !strcmp(archive_entry_uname(e), "numalab") &&
		     !strcmp(archive_entry_gname(e), "numalab") &&
		     archive_entry_size(e) == (la_int64_t)m[i].len;
		i++;
	}
	archive_read_free(a);
	return ok && i == n;
}

static void test_round_trip(void)
{
	_cleanup_free_ char *a1 = in_tmp("a1.tar.gz"), *a2 = in_tmp("a2.tar.gz");
	_cleanup_free_ char *out = in_tmp("out"), *b1 = NULL, *b2 = NULL;
	struct lab_error err = { 0 };
	size_t n1 = 0, n2 = 0;
	int all = 1, r;

	tap_ok(write_archive(a1, bundle, NR_BUNDLE) == 0, "an archive of %zu members is written",
	       NR_BUNDLE);
	tap_ok(headers_ok(a1, bundle, NR_BUNDLE),
	       "every header: a regular file, 0644, mtime 0, uid/gid 0 \"numalab\", in order");
	sleep(1);
	tap_ok(write_archive(a2, bundle, NR_BUNDLE) == 0, "the same members written again");
	fs_read_file(a1, 1u << 24, &b1, &n1);
	fs_read_file(a2, 1u << 24, &b2, &n2);
	tap_ok(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0,
	       "a second later: the same bytes (%zu)", n1);
	tap_ok(b1 && n1 > 10 && !memcmp(b1, "\x1f\x8b\x08", 3) && !memcmp(b1 + 4, "\0\0\0\0", 4),
	       "gzip, with no timestamp in its header");
	r = arc_extract(a1, out, NULL, &err);
	tap_ok(r == 0, "extracted (%d %s)", r, err.msg);
	for (size_t i = 0; i < NR_BUNDLE; i++) {
		_cleanup_free_ char *p = fs_join(out, bundle[i].name);

		all &= p && same_file(p, bundle[i].data, bundle[i].len, 0644);
	}
	tap_ok(all, "every member's bytes as written, each a regular file 0644");
	_cleanup_free_ char *d1 = fs_join(out, "run-0/results"), *d2 = fs_join(out, "deep");

	tap_ok(is_dir(out, 0755) && is_dir(d1, 0755) && is_dir(d2, 0755),
	       "the directory and the members' directories 0755");
	_cleanup_free_ char *report = fs_join(out, "report.json");

	r = arc_extract(a1, out, NULL, &err);
	tap_ok(r == -EEXIST && same_file(report, bundle[0].data, bundle[0].len, 0644) &&
	       fs_exists(d2), "into a directory that is not empty: -EEXIST, what is there kept");
	fs_rm_rf(out);
	mkdir(out, 0700);
	tap_ok(arc_extract(a1, out, NULL, &err) == 0 && is_dir(out, 0755) &&
	       same_file(report, bundle[0].data, bundle[0].len, 0644),
	       "into an empty directory that is there: replaced, extracted");
	fs_rm_rf(out);
}

static void test_writer_refusals(void)
{
	_cleanup_free_ char *a = in_tmp("w.tar.gz"), *atmp = in_tmp("w.tar.gz.tmp");
	_cleanup_free_ char *src = in_tmp("src"), *out = in_tmp("w-out"), *got = NULL;
	struct lab_error err = { 0 };
	struct arc_writer *w = NULL;
	size_t n = 0;

	tap_ok(arc_writer_open(a, &w) == 0 && fs_exists(atmp) && !fs_exists(a),
	       "an open writer writes PATH.tmp, not PATH");
	tap_ok(arc_writer_add(w, "../x", "x", 1) == -EINVAL, "../x: -EINVAL");
	tap_ok(arc_writer_add(w, "a/../../x", "x", 1) == -EINVAL, "a/../../x: -EINVAL");
	tap_ok(arc_writer_add(w, "d/f", "f", 1) == 0, "d/f added");
	tap_ok(arc_writer_add(w, "d/f", "g", 1) == -EEXIST, "d/f again: -EEXIST");
	tap_ok(arc_writer_add(w, "d", "g", 1) == -EEXIST, "d, a file where d/ is a directory: -EEXIST");
	tap_ok(arc_writer_add(w, "d/f/g", "g", 1) == -EEXIST, "d/f/g below the file d/f: -EEXIST");
	fs_write_atomic(src, "0123456789", 10);
	tap_ok(arc_writer_add_file(w, "src", src, 9) == -EFBIG, "a file over its max: -EFBIG");
	tap_ok(arc_writer_add_file(w, "src", src, 10) == 0, "a file at its max is added");
	tap_ok(arc_writer_close(w) == 0 && fs_exists(a) && !fs_exists(atmp),
	       "closed after refusals: PATH there, PATH.tmp gone");
	tap_ok(arc_extract(a, out, NULL, &err) == 0 && fs_exists(out), "and it extracts");
	_cleanup_free_ char *f = fs_join(out, "src");

	tap_ok(fs_read_file(f, 100, &got, &n) == 0 && n == 10 && !memcmp(got, "0123456789", 10),
	       "a member added from a file has its bytes");
	fs_rm_rf(out);
	unlink(a);
	tap_ok(arc_writer_open(a, &w) == 0 && arc_writer_add(w, "x", "x", 1) == 0, "another writer");
	arc_writer_abort(w);
	tap_ok(!fs_exists(a) && !fs_exists(atmp), "aborted: neither PATH nor PATH.tmp");
	_cleanup_free_ char *nowhere = in_tmp("no/such/dir.tar.gz");

	tap_ok(arc_writer_open(nowhere, &w) == -ENOENT && !w, "in a missing directory: -ENOENT");
}

static struct member small[] = {
	{ "a", "alpha\n", 6 },
	{ "b/c", "gamma gamma gamma\n", 18 },
	{ "b/d", "delta\n", 6 },
};

static void test_limits(void)
{
	_cleanup_free_ char *a = in_tmp("small.tar.gz"), *out = in_tmp("lim");
	struct lab_error err = { 0 };
	struct arc_limits lim;
	char line[1024];
	int r;

	write_archive(a, small, 3);
	lim = (struct arc_limits){ .members = 2 };
	r = arc_extract(a, out, &lim, &err);
	error_format(&err, line, sizeof(line));
	tap_ok(r == -EINVAL && !strcmp(err.path, "b/d") && strstr(err.msg, "more than 2 members") &&
	       !fs_exists(out), "3 members, a limit of 2: refused at b/d, nothing left (%s)", line);
	tap_ok(strstr(line, a) == line, "the error starts with the archive's path");
	lim = (struct arc_limits){ .member_bytes = 17 };
	r = arc_extract(a, out, &lim, &err);
	tap_ok(r == -EINVAL && !strcmp(err.path, "b/c") && strstr(err.msg, "18 bytes") &&
	       !fs_exists(out), "an 18-byte member, a limit of 17: refused (%s)", err.msg);
	lim = (struct arc_limits){ .member_bytes = 18, .total_bytes = 29 };
	r = arc_extract(a, out, &lim, &err);
	tap_ok(r == -EINVAL && !strcmp(err.path, "b/d") && strstr(err.msg, "limit of 29") &&
	       !fs_exists(out), "30 bytes, a total limit of 29: refused at b/d (%s)", err.msg);
	lim = (struct arc_limits){ .members = 3, .member_bytes = 18, .total_bytes = 30 };
	tap_ok(arc_extract(a, out, &lim, &err) == 0, "at every limit exactly: extracted");
	fs_rm_rf(out);
}

/* Every prefix of an archive and every byte of it flipped (past the gzip header's time, flags
 * and OS, which nothing checks and nothing reads): refused, the directory gone. */
static void test_damage(void)
{
	_cleanup_free_ char *a = in_tmp("small.tar.gz"), *cut = in_tmp("cut.tar.gz");
	_cleanup_free_ char *out = in_tmp("dmg"), *bytes = NULL;
	struct lab_error err = { 0 };
	size_t n = 0, bad_cut = 0, bad_flip = 0;

	write_archive(a, small, 3);
	fs_read_file(a, 1u << 20, &bytes, &n);
	for (size_t len = 0; len < n; len++) {
		fs_write_atomic(cut, bytes, len);
		if (arc_extract(cut, out, NULL, &err) != -EINVAL || fs_exists(out)) {
			if (!bad_cut++)
				printf("# cut at %zu: accepted or left behind\n", len);
			fs_rm_rf(out);
		}
	}
	tap_ok(n > 0 && bad_cut == 0, "each of the %zu truncations refused, nothing left", n);
	for (size_t i = 10; i < n; i++) {
		bytes[i] ^= 0x55;
		fs_write_atomic(cut, bytes, n);
		bytes[i] ^= 0x55;
		if (arc_extract(cut, out, NULL, &err) != -EINVAL || fs_exists(out)) {
			if (!bad_flip++)
				printf("# byte %zu flipped: accepted or left behind\n", i);
			fs_rm_rf(out);
		}
	}
	tap_ok(n > 10 && bad_flip == 0, "each of the %zu flipped bytes refused, nothing left", n - 10);
	memcpy(bytes + n, "x", 1);
	fs_write_atomic(cut, bytes, n + 1);
	tap_ok(arc_extract(cut, out, NULL, &err) == -EINVAL && strstr(err.msg, "after the gzip") &&
	       !fs_exists(out), "a byte after the gzip stream: refused (%s)", err.msg);
}

static void test_edges(void)
{
	_cleanup_free_ char *a = in_tmp("empty.tar.gz"), *out = in_tmp("e");
	_cleanup_free_ char *missing = in_tmp("missing.tar.gz"), *deep = in_tmp("no/dir");
	struct lab_error err = { 0 };

	tap_ok(write_archive(a, NULL, 0) == 0 && arc_extract(a, out, NULL, &err) == 0 &&
	       is_dir(out, 0755), "an archive of no members: an empty directory");
	fs_rm_rf(out);
	tap_ok(arc_extract(missing, out, NULL, &err) == -ENOENT && !fs_exists(out),
	       "a missing archive: -ENOENT, no directory left (%s)", err.msg);
	tap_ok(arc_extract(a, deep, NULL, &err) == -ENOENT, "a directory whose parent is missing: -ENOENT");
}

static int extract_mode(int argc, char **argv)
{
	struct arc_limits lim = { 0 };
	struct lab_error err = { 0 };
	char line[1024];
	int r;

	for (int i = 4; i + 1 < argc; i += 2) {
		size_t v = strtoull(argv[i + 1], NULL, 0);

		if (!strcmp(argv[i], "--max-member"))
			lim.member_bytes = v;
		else if (!strcmp(argv[i], "--max-members"))
			lim.members = v;
		else if (!strcmp(argv[i], "--max-total"))
			lim.total_bytes = v;
	}
	if (argc < 4 || argc % 2) {
		fprintf(stderr, "usage: test_archive --extract ARCHIVE DIR [--max-member N] "
				"[--max-members N] [--max-total N]\n");
		return 1;
	}
	r = arc_extract(argv[2], argv[3], &lim, &err);
	if (r == 0)
		return 0;
	error_format(&err, line, sizeof(line));
	fprintf(stderr, "test_archive: %s%s%s\n", line, r == -EINVAL ? "" : ": ",
		r == -EINVAL ? "" : strerror(-r));
	return r == -EINVAL ? 2 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--extract"))
		return extract_mode(argc, argv);
	umask(022);
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	make_members();
	test_names();
	test_round_trip();
	test_writer_refusals();
	test_limits();
	test_damage();
	test_edges();
	fs_rm_rf(tmp);
	return tap_done();
}
