/* lab/util helpers the stages share: the checkout resolver's search order, the host-kernel
 * pick (highest version, not alphabetical), fs_rm_rf, sha256 of a file, control characters,
 * and spawn_run (environment overrides, working directory, lines, tail, exit status). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "util/cachedir.h"
#include "util/checkout.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/hostkernel.h"
#include "util/linesplit.h"
#include "util/sha256.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/text.h"

static char tmp[] = "/tmp/numalab-test-util.XXXXXX";

static void touch(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	fs_write_atomic(path, "x", 1);
}

static void test_checkout(void)
{
	char buf[PATH_MAX], bin[PATH_MAX], want[PATH_MAX * 2], cwd[PATH_MAX], root[PATH_MAX];
	const char *saved = getenv("LAB_ROOT");
	int r;

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	snprintf(root, sizeof(root), "%s/root", tmp);
	fs_mkdir_p(root, 0755);
	touch("root/only-in-root");
	touch("only-in-cwd");

	tap_ok(checkout_bin_dir(bin, sizeof(bin)) == 0 && !strcmp(strrchr(bin, '/'), "/tests"),
	       "the binary's directory is build/tests (%s)", bin);
	/* This binary's checkout is build/: tests/test_util is found there, without "..". */
	unsetenv("LAB_ROOT");
	r = checkout_find("tests/test_util", buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s/test_util", bin);
	tap_ok(r == 0 && !strcmp(buf, want) && !strstr(buf, ".."),
	       "the binary's checkout, canonical (%s)", buf);

	setenv("LAB_ROOT", root, 1);
	r = checkout_find("only-in-root", buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s/only-in-root", root);
	tap_ok(r == 0 && !strcmp(buf, want), "$LAB_ROOT first (%s)", buf);
	snprintf(want, sizeof(want), "%s/test_util", bin);
	tap_ok(checkout_find("tests/test_util", buf, sizeof(buf)) == 0 && !strcmp(buf, want),
	       "$LAB_ROOT without the file: the binary's checkout next");
	if (chdir(tmp) == 0) {
		tap_ok(checkout_find("only-in-cwd", buf, sizeof(buf)) == 0 &&
			       !strcmp(buf, "./only-in-cwd"), "the current directory last (%s)", buf);
		r = checkout_find("nowhere", buf, sizeof(buf));
		snprintf(want, sizeof(want), "%.*s/nowhere", (int)(strrchr(bin, '/') - bin), bin);
		tap_ok(r == -ENOENT && !strcmp(buf, want),
		       "none: -ENOENT, buf names the binary's checkout (%s)", buf);
		if (cwd[0] && chdir(cwd) < 0)
			tap_ok(0, "back to %s", cwd);
	}
	if (saved)
		setenv("LAB_ROOT", saved, 1);
	else
		unsetenv("LAB_ROOT");
}

static void test_hostkernel(void)
{
	char dir[PATH_MAX], pattern[PATH_MAX + 16], out[PATH_MAX + 32];

	snprintf(dir, sizeof(dir), "%s/boot", tmp);
	fs_mkdir_p(dir, 0755);
	touch("boot/vmlinuz-6.1.0-9-amd64");
	touch("boot/vmlinuz-6.1.0-10-amd64");
	touch("boot/vmlinuz-5.10.0-30-amd64");
	snprintf(pattern, sizeof(pattern), "%s/vmlinuz-*", dir);
	tap_ok(hostkernel_pick(pattern, out, sizeof(out)) == 0 &&
		       !strcmp(strrchr(out, '/'), "/vmlinuz-6.1.0-10-amd64"),
	       "the highest version wins, -10 over -9 (%s)", out);
	snprintf(pattern, sizeof(pattern), "%s/bzImage-*", dir);
	tap_ok(hostkernel_pick(pattern, out, sizeof(out)) == -ENOENT, "no match: -ENOENT");
}

static void test_clean_copy(void)
{
	char b[8];

	text_clean_copy(b, sizeof(b), "a\nb\x1b[");
	tap_ok(!strcmp(b, "a?b?["), "clean copy: control characters become '?' (got \"%s\")", b);
	text_clean_copy(b, sizeof(b), "abcdefghij");
	tap_ok(!strcmp(b, "abcdefg"), "clean copy: cut to the buffer");
	/* "abcdef" + e-acute (2 bytes) would need 9 bytes with the NUL: the cut drops the whole
	 * character, never half of it. */
	text_clean_copy(b, sizeof(b), "abcdef\xc3\xa9");
	tap_ok(!strcmp(b, "abcdef"), "clean copy: a cut inside a UTF-8 sequence drops it whole");
	text_clean_copy(b, sizeof(b), "abcde\xc3\xa9x");
	tap_ok(!strcmp(b, "abcde\xc3\xa9"), "clean copy: a whole sequence before the cut stays");
	text_clean_copy(b, sizeof(b), "ab\xe2\x82\xac\xe2\x82\xac");
	tap_ok(!strcmp(b, "ab\xe2\x82\xac"), "clean copy: a 3-byte sequence cut in its middle goes");
	tap_ok(text_utf8_valid("") && text_utf8_valid("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80") &&
		       !text_utf8_valid("a\xff") && !text_utf8_valid("\xe2\x82") &&
		       !text_utf8_valid("\xed\xa0\x80") && !text_utf8_valid("\xc0\x80"),
	       "utf8_valid: whole sequences; a stray byte, a cut, a surrogate, an overlong not");
}

static void test_fs_sha_text(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], hex[65];

	snprintf(dir, sizeof(dir), "%s/tree/a/b", tmp);
	fs_mkdir_p(dir, 0755);
	touch("tree/a/b/c");
	snprintf(path, sizeof(path), "%s/tree/a/link", tmp);
	tap_ok(symlink(tmp, path) == 0, "a symlink out of the tree");
	snprintf(path, sizeof(path), "%s/tree", tmp);
	tap_ok(fs_rm_rf(path) == 0 && !fs_exists(path), "fs_rm_rf removes the tree");
	tap_ok(fs_exists(tmp), "... without following the symlink");
	tap_ok(fs_rm_rf(path) == 0, "fs_rm_rf of a missing path: 0");

	snprintf(path, sizeof(path), "%s/abc", tmp);
	fs_write_atomic(path, "abc", 3);
	tap_ok(sha256_file_hex(path, hex) == 0 &&
		       !strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	       "sha256_file_hex of \"abc\" is the FIPS 180-2 vector");
	tap_ok(sha256_file_hex("/nonexistent/x", hex) == -ENOENT, "a missing file: -ENOENT");

	tap_ok(!text_has_control_chars("plain text, UTF-8 \xc3\xa9"), "plain text has none");
	tap_ok(text_has_control_chars("a\nb") && text_has_control_chars("a\x7f") &&
		       text_has_control_chars("\t"), "newline, DEL and tab are control characters");
	test_clean_copy();
}

struct lines {
	unsigned n;
	char last[64];
};

static void on_line(void *ud, const char *l)
{
	struct lines *ls = ud;

	ls->n++;
	snprintf(ls->last, sizeof(ls->last), "%s", l);
}

static void test_spawn(void)
{
	/* A script file run by its path: no shell string. */
	static const char script[] = "#!/bin/sh\necho $NUMALAB_T; pwd; echo err >&2; exit 3\n";
	char path[PATH_MAX];
	char *argv[] = { path, NULL };
	const char *env[] = { "NUMALAB_T=over", NULL };
	struct spawn_job *j = calloc(1, sizeof(*j));
	struct lines ls = { 0 };
	char want[PATH_MAX + 64];
	int st = -1, r;

	if (!j)
		return;
	snprintf(path, sizeof(path), "%s/t.sh", tmp);
	if (!tap_ok(fs_write_atomic(path, script, strlen(script)) == 0 && chmod(path, 0755) == 0,
		    "spawn: test script written")) {
		free(j);
		return;
	}
	setenv("NUMALAB_T", "inherited", 1);
	*j = (struct spawn_job){ .argv = argv, .env = env, .cwd = tmp, .log_fd = -1,
				 .line = on_line, .ud = &ls };
	r = spawn_run(j, &st);
	snprintf(want, sizeof(want), "over\n%s\nerr\n", tmp);
	tap_ok(r == 0 && st == 3, "exit status 3 (r %d, status %d)", r, st);
	tap_ok(!strcmp(j->tail, want), "tail holds stdout and stderr, env overridden, cwd set");
	tap_ok(ls.n == 3 && !strcmp(ls.last, "err"), "three lines to the callback");
	free(j);
}

struct split_seen {
	unsigned n;
	size_t total;
	char lines[4][16];
};

static void split_line_seen(const char *line, size_t len, void *ud)
{
	struct split_seen *s = ud;

	if (s->n < 4)
		snprintf(s->lines[s->n], sizeof(s->lines[0]), "%s", line);
	s->n++;
	s->total += len;
}

/* The results channel's framing: lines cut anywhere between reads, over-long ones dropped
 * whole, a last line without its newline kept for later. */
static void test_linesplit(void)
{
	static const char text[] = "ab\n0123456789\n\nxyz\ntail";
	struct split_seen seen = { 0 };
	struct linesplit ls;
	size_t dropped = 0;

	if (!tap_ok(linesplit_init(&ls, 4) == 0, "linesplit_init"))
		return;
	for (size_t i = 0, n = sizeof(text) - 1; i < n; i += 3)
		dropped += linesplit_feed(&ls, text + i, n - i < 3 ? n - i : 3, split_line_seen,
					  &seen);
	tap_ok(seen.n == 3 && !strcmp(seen.lines[0], "ab") && !strcmp(seen.lines[1], "") &&
		       !strcmp(seen.lines[2], "xyz"),
	       "lines fed 3 bytes at a time: ab, the empty line, xyz (%u lines)", seen.n);
	tap_ok(dropped == 1, "the 10-byte line over a 4-byte bound dropped whole (%zu)", dropped);
	tap_ok(ls.len == 4 && !memcmp(ls.line, "tail", 4), "the unfinished last line waits");
	linesplit_feed(&ls, "\n", 1, split_line_seen, &seen);
	tap_ok(seen.n == 4 && !strcmp(seen.lines[3], "tail"), "and comes with its newline");
	linesplit_free(&ls);
}

static void test_csv(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "plain", "plain," },         { "", "," },
		{ "a,b", "\"a,b\"," },        { "say \"hi\"", "\"say \"\"hi\"\"\"," },
		{ "two\nlines", "\"two\nlines\"," }, { "\"", "\"\"\"\"," },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
		_cleanup_free_ char *got = NULL;

		int r;

		strbuf_append_csv(&sb, cases[i].in, ",");
		r = strbuf_take(&sb, &got);
		tap_ok(r == 0 && !strcmp(got, cases[i].out), "csv field %zu: %s", i, got);
	}
}

static void test_cachedir(void)
{
	char b[256];

	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	setenv("HOME", "/home/u", 1);
	cachedir_default("kernels", 0, b, sizeof(b));
	tap_ok(!strcmp(b, "/var/cache/numalab/kernels"), "cachedir: root's is the system's (%s)", b);
	cachedir_default("kernels", 1000, b, sizeof(b));
	tap_ok(!strcmp(b, "/x/cache/numalab/kernels"), "cachedir: a user's under XDG_CACHE_HOME (%s)",
	       b);
	unsetenv("XDG_CACHE_HOME");
	cachedir_default("images", 1000, b, sizeof(b));
	tap_ok(!strcmp(b, "/home/u/.cache/numalab/images"), "cachedir: else ~/.cache (%s)", b);
	setenv("XDG_CACHE_HOME", "relative", 1);
	unsetenv("HOME");
	cachedir_default("qemu", 1000, b, sizeof(b));
	tap_ok(!strcmp(b, "/var/cache/numalab/qemu"), "cachedir: no usable home: the system's (%s)",
	       b);
}

static void test_distance(void)
{
	static const struct {
		const char *a, *b;
		unsigned d;
	} cases[] = {
		{ "compare", "compare", 0 }, { "comapre", "compare", 1 }, { "compar", "compare", 1 },
		{ "compaare", "compare", 1 }, { "cmopare", "compare", 1 }, { "xompare", "compare", 1 },
		{ "", "run", 3 },             { "run", "", 3 },            { "kernal", "kernel", 1 },
		{ "ca", "abc", 3 },           { "status", "stats", 1 },    { "nightyl", "nightly", 1 },
	};
	char longer[TEXT_DISTANCE_MAX + 2];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned d = text_distance(cases[i].a, cases[i].b);

		tap_ok(d == cases[i].d, "distance \"%s\" \"%s\": %u (got %u)", cases[i].a,
		       cases[i].b, cases[i].d, d);
	}
	{
		static const char *const c[] = { "compare", "report", "run", "name", "repeats" };

		tap_ok(text_nearest("comapre", c, 5) == c[0], "nearest: a swap is one edit");
		tap_ok(text_nearest("repeat", c, 5) == c[4], "nearest: repeat -> repeats");
		tap_ok(!text_nearest("nice", c, 5), "nearest: nice is not name (2 edits in 4)");
		tap_ok(!text_nearest("xyz", c, 5), "nearest: nothing near");
		tap_ok(!text_nearest("run", c, 5), "nearest: the name itself is no suggestion");
	}
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	tap_ok(text_distance(longer, "a") == TEXT_DISTANCE_MAX + 1, "distance: a string too long "
	       "is farther than any bound");
}

int main(void)
{
	char path[PATH_MAX + 16];

	if (!mkdtemp(tmp))
		return tap_ok(0, "mkdtemp"), tap_done();
	test_checkout();
	test_hostkernel();
	test_fs_sha_text();
	test_spawn();
	test_linesplit();
	test_distance();
	test_csv();
	test_cachedir();
	snprintf(path, sizeof(path), "%s", tmp);
	fs_rm_rf(path);
	return tap_done();
}
