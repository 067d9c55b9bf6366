/* core/cpio: byte-exact golden archive, an independent parse of the headers, error cases, and
 * GNU cpio (when installed) reading what we wrote.
 * NUMALAB_UPDATE_GOLDEN=1 rewrites the golden file instead of comparing. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cpio.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/fs.h"

extern char **environ;

#define GOLDEN "lab/tests/golden/cpio-small.hex"
#define JOB_TEXT "{\"schema\": \"numalab.guestjob/1\"}\n"

static const char *const expected_names[] = {
	"dev", "dev/console", "numalab", "numalab/bin", "numalab/job.json", "init", "bin/sh",
	"empty",
};

static int build_small(struct cpio_buf *b)
{
	int r = 0;

	r = r ? r : cpio_add_dir(b, "dev", 0755);
	r = r ? r : cpio_add_node(b, "/dev/console", S_IFCHR | 0600, 5, 1);
	r = r ? r : cpio_add_dir(b, "numalab", S_IFDIR | 0755);
	r = r ? r : cpio_add_dir(b, "numalab/bin", 0755);
	r = r ? r : cpio_add_file(b, "/numalab/job.json", 0644, JOB_TEXT, strlen(JOB_TEXT));
	r = r ? r : cpio_add_file(b, "init", 0755, "\x7f" "ELF", 4);
	r = r ? r : cpio_add_symlink(b, "bin/sh", "/init");
	r = r ? r : cpio_add_file(b, "empty", 0600, NULL, 0);
	return r ? r : cpio_finish(b);
}

static char *hexdump(const unsigned char *p, size_t n)
{
	size_t cap = n / 16 * 60 + 64, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i += 16) {
		len += (size_t)snprintf(s + len, cap - len, "%08zx:", i);
		for (size_t j = i; j < i + 16 && j < n; j++)
			len += (size_t)snprintf(s + len, cap - len, " %02x", p[j]);
		len += (size_t)snprintf(s + len, cap - len, "\n");
	}
	return s;
}

static unsigned long hexfield(const unsigned char *h, int idx)
{
	char f[9];

	memcpy(f, h + 6 + 8 * idx, 8);
	f[8] = '\0';
	return strtoul(f, NULL, 16);
}

/* Walk the archive the way the kernel does; check alignment, names, modes and the trailer. */
static void check_parse(const struct cpio_buf *b)
{
	size_t off = 0, i = 0, n = sizeof(expected_names) / sizeof(expected_names[0]);
	int ok = 1, trailer = 0;

	while (ok && off + 110 <= b->len) {
		const unsigned char *h = b->data + off;
		unsigned long namesize = hexfield(h, 11), filesize = hexfield(h, 6);
		const char *name = (const char *)h + 110;

		ok = !memcmp(h, "070701", 6) && hexfield(h, 5) == 0 /* mtime */ &&
		     off + 110 + namesize <= b->len && name[namesize - 1] == '\0';
		if (!ok)
			break;
		if (!strcmp(name, "TRAILER!!!")) {
			trailer = 1;
			break;
		}
		ok = i < n && !strcmp(name, expected_names[i]);
		if (ok && !strcmp(name, "dev/console"))
			ok = hexfield(h, 1) == (S_IFCHR | 0600) && hexfield(h, 9) == 5 &&
			     hexfield(h, 10) == 1;
		if (ok && !strcmp(name, "numalab/job.json"))
			ok = filesize == strlen(JOB_TEXT) && hexfield(h, 1) == (S_IFREG | 0644);
		off = (off + 110 + namesize + 3) & ~(size_t)3;
		off = (off + filesize + 3) & ~(size_t)3;
		i++;
	}
	tap_ok(ok && trailer && i == n, "headers parse back: %zu entries in order, then trailer", i);
	tap_ok(b->len % 512 == 0, "archive padded to 512 (len %zu)", b->len);
}

static void check_golden(const struct cpio_buf *b)
{
	_cleanup_free_ char *hex = hexdump(b->data, b->len);
	_cleanup_free_ char *want = NULL;
	const char *dir = getenv("NUMALAB_SRC");
	_cleanup_free_ char *path = fs_join(dir && dir[0] ? dir : ".", GOLDEN);
	int r;

	if (!hex || !path) {
		tap_ok(0, "golden: out of memory");
		return;
	}
	if (getenv("NUMALAB_UPDATE_GOLDEN")) {
		r = fs_write_atomic(path, hex, strlen(hex));
		tap_ok(r == 0, "golden rewritten: %s", path);
		return;
	}
	r = fs_read_file(path, 1 << 20, &want, NULL);
	if (r < 0) {
		tap_ok(0, "golden %s: %s", path, strerror(-r));
		return;
	}
	if (!tap_ok(!strcmp(hex, want), "archive matches %s byte for byte", GOLDEN)) {
		const char *a = hex, *w = want;

		while (*a && *a == *w)
			a++, w++;
		printf("# first difference at dump offset %zu\n", (size_t)(a - hex));
	}
}

/* Run argv with stdin from in_path; capture up to cap-1 bytes of stdout.  Returns the exit
 * status, or a negative errno when it could not run. */
static int run_capture(char *const argv[], const char *in_path, char *out, size_t cap)
{
	posix_spawn_file_actions_t fa;
	int p[2], st, r;
	size_t len = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in_path, O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	r = -posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (r < 0) {
		close(p[0]);
		return r;
	}
	for (;;) {
		ssize_t n = read(p[0], out + len, cap - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len == cap - 1)
			break;
	}
	out[len] = '\0';
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void check_gnu_cpio(const struct cpio_buf *b)
{
	char tmpl[] = "/tmp/numalab-test-cpio-XXXXXX";
	char *list_argv[] = { "cpio", "-it", "--quiet", NULL };
	char *cat_argv[] = { "cpio", "-i", "--quiet", "--to-stdout", "numalab/job.json", NULL };
	char out[4096], want[1024] = "";
	int fd = mkstemp(tmpl), r;

	if (fd < 0 || write(fd, b->data, b->len) != (ssize_t)b->len) {
		tap_ok(0, "write temporary archive: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		unlink(tmpl);
		return;
	}
	close(fd);
	for (size_t i = 0; i < sizeof(expected_names) / sizeof(expected_names[0]); i++) {
		strcat(want, expected_names[i]);
		strcat(want, "\n");
	}
	r = run_capture(list_argv, tmpl, out, sizeof(out));
	if (r == -ENOENT) {
		tap_ok(1, "cpio -it lists the entries # SKIP cpio not installed");
		tap_ok(1, "cpio extracts job.json # SKIP cpio not installed");
	} else {
		tap_ok(r == 0 && !strcmp(out, want), "cpio -it lists the entries (exit %d)", r);
		if (strcmp(out, want))
			printf("# got:\n%s", out);
		r = run_capture(cat_argv, tmpl, out, sizeof(out));
		tap_ok(r == 0 && !strcmp(out, JOB_TEXT), "cpio extracts job.json intact (exit %d)",
		       r);
	}
	unlink(tmpl);
}

static void check_errors(void)
{
	struct cpio_buf b = { 0 };

	tap_ok(cpio_add_dir(&b, "", 0755) == -EINVAL, "empty path refused");
	tap_ok(cpio_add_dir(&b, "/", 0755) == -EINVAL, "root path refused");
	tap_ok(cpio_add_file(&b, "a/../b", 0644, "x", 1) == -EINVAL, "'..' refused");
	tap_ok(cpio_add_file(&b, "a//b", 0644, "x", 1) == -EINVAL, "'//' refused");
	tap_ok(cpio_add_dir(&b, "a/", 0755) == -EINVAL, "trailing '/' refused");
	tap_ok(cpio_add_file(&b, "./a", 0644, "x", 1) == -EINVAL, "'.' component refused");
	tap_ok(cpio_add_node(&b, "dev/x", 0600, 1, 3) == -EINVAL, "node without type refused");
	tap_ok(cpio_add_file(&b, "f", S_IFDIR | 0644, "x", 1) == -EINVAL,
	       "file with directory type refused");
	tap_ok(cpio_add_file(&b, "f", 0644, NULL, 3) == -EINVAL, "NULL data with length refused");
	tap_ok(b.len == 0, "refused entries wrote nothing");
	tap_ok(cpio_finish(&b) == 0 && cpio_finish(&b) == -EINVAL, "finish twice refused");
	tap_ok(cpio_add_dir(&b, "late", 0755) == -EINVAL, "add after finish refused");
	tap_ok(b.len == 512, "empty archive is one 512-byte block (%zu)", b.len);
	cpio_buf_free(&b);
	tap_ok(b.data == NULL && b.len == 0, "free resets the buffer");
}

int main(void)
{
	struct cpio_buf a = { 0 }, b = { 0 };

	tap_ok(build_small(&a) == 0, "build small archive");
	tap_ok(build_small(&b) == 0 && a.len == b.len && !memcmp(a.data, b.data, a.len),
	       "output is deterministic");
	check_parse(&a);
	check_golden(&a);
	check_gnu_cpio(&a);
	check_errors();
	cpio_buf_free(&a);
	cpio_buf_free(&b);
	return tap_done();
}
