/* Bundle archives (util/archive.h), which `lab rerun BUNDLE` extracts whoever made them.  The
 * first byte says what the rest is: odd, the .tar.gz file as it is (the gzip layer: its CRC,
 * a cut, what follows the stream); even, a tar the harness gzips first, so that mutations
 * reach libarchive's tar reader and the member checks rather than die at the CRC.  It is
 * extracted into a fresh directory inside another, then: on success nothing but regular
 * files and directories below it, on a refusal no directory left, and never anything beside
 * it. */
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <zlib.h>

#include "fuzz/fuzz.h"
#include "util/archive.h"
#include "util/fs.h"

static char fuzz_archive_base[] = "/tmp/numalab-fuzz-archive.XXXXXX";
static int fuzz_archive_odd;

static int fuzz_archive_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path, (void)flag, (void)f;
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		fuzz_archive_odd = 1;
	return 0;
}

/* How many entries the base directory holds besides the input file and the target. */
static int fuzz_archive_beside(void)
{
	DIR *d = opendir(fuzz_archive_base);
	struct dirent *de;
	int n = 0;

	FUZZ_ASSERT(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		     strcmp(de->d_name, "in.tar.gz") && strcmp(de->d_name, "out");
	closedir(d);
	return n;
}

/* size bytes gzipped into *out (malloc'ed): its length, 0 when zlib failed. */
static size_t fuzz_archive_gzip(const uint8_t *data, size_t size, uint8_t **out)
{
	z_stream z;
	size_t cap;
	int r;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	cap = deflateBound(&z, (uLong)size) + 64;
	*out = malloc(cap);
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)size;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	r = *out ? deflate(&z, Z_FINISH) : Z_MEM_ERROR;
	deflateEnd(&z);
	return r == Z_STREAM_END ? cap - z.avail_out : 0;
}

static void fuzz_archive_cleanup(void)
{
	fs_rm_rf(fuzz_archive_base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Small limits: a member limit of 1 MiB is one of 64 MiB for the checks. */
	struct arc_limits lim = { .members = 64, .member_bytes = 1u << 20, .total_bytes = 4u << 20 };
	static char *file, *out;
	struct lab_error err = { 0 };
	uint8_t *gz = NULL;
	size_t len;
	int r;

	if (!file) {
		FUZZ_ASSERT(mkdtemp(fuzz_archive_base));
		atexit(fuzz_archive_cleanup);
		file = fs_join(fuzz_archive_base, "in.tar.gz");
		out = fs_join(fuzz_archive_base, "out");
		FUZZ_ASSERT(file && out);
	}
	if (size == 0)
		return 0;
	len = data[0] & 1 ? size - 1 : fuzz_archive_gzip(data + 1, size - 1, &gz);
	if (fs_write_atomic(file, gz ? gz : data + 1, len) == 0) {
		r = arc_extract(file, out, &lim, &err);
		if (r == 0) {
			fuzz_archive_odd = 0;
			FUZZ_ASSERT(nftw(out, fuzz_archive_entry, 16, FTW_PHYS) == 0);
			FUZZ_ASSERT(!fuzz_archive_odd);
		} else {
			if (r != -EINVAL)
				fprintf(stderr, "fuzz: arc_extract: %d %s: %s\n", r, err.path, err.msg);
			FUZZ_ASSERT(r == -EINVAL && err.msg[0] && !fs_exists(out));
		}
		FUZZ_ASSERT(fuzz_archive_beside() == 0);
		fs_rm_rf(out);
	}
	free(gz);
	return 0;
}
