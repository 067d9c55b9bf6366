/* Guest image recipes (images/NAME.json): validation with JSON-path errors, the canonical text
 * the cache key is the sha256 of, the mmdebstrap command line, and mmdebstrap's failures turned
 * back into JSON paths.  Pure: callers read the files and run the programs. */
#pragma once
#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "util/error.h"

#define IMG_MAX_PACKAGES 256
#define IMG_MAX_FILES 64
#define IMG_MAX_EXCLUDES 32
#define IMG_MAX_PROGRAMS 64
#define IMG_DEFAULT_MIRROR "http://deb.debian.org/debian"
#define IMG_DEFAULT_VARIANT "essential"
#define IMG_DEFAULT_SIZE_MIB 2048
/* Bumped whenever the layout the builder writes changes, so old images are not reused. */
#define IMG_BUILDER_VERSION "numalab.image/1"
/* Where the lab's programs live in every image; recipes may not put files there. */
#define IMG_LAB_DIR "/numalab"
#define IMG_AGENT_PATH "/numalab/agent"
#define IMG_BIN_DIR "/numalab/bin"
#define IMG_INIT_PATH "/sbin/init"

struct img_file {
	char src[PATH_MAX];   /* as written: relative to the recipe's directory, or absolute */
	char dest[256];       /* absolute path in the guest */
	unsigned mode;        /* permission bits */
};

struct img_recipe {
	char name[64];        /* the recipe file's base name without .json */
	char suite[32];
	char mirror[256];
	char variant[16];
	unsigned size_mib;
	unsigned nr_packages;
	char (*packages)[64];
	unsigned nr_excludes;
	char (*excludes)[128];   /* dpkg path-exclude globs */
	unsigned nr_files;
	struct img_file *files;
};

/* A file or program that goes into the image, with the sha256 of what decides its content. */
struct img_input {
	const char *name;     /* files: the guest path; programs: the program's name */
	const char *sha256;   /* 64 lower-case hex digits */
	unsigned mode;        /* files only */
};

/* name: the recipe's name (from its file name); must match [A-Za-z0-9._-]{1,63}. */
int img_recipe_from_json(const json_t *j, const char *name, struct img_recipe *r,
			 struct lab_error *err);
void img_recipe_free(struct img_recipe *r);
/* The recipe with its defaults filled in, as JSON (what `lab image list` shows). */
json_t *img_recipe_to_json(const struct img_recipe *r);
/* The text the cache key hashes: builder version, canonical recipe, each file (guest path,
 * mode, sha256) and each program (name, sha256), one per line.  Caller frees. */
char *img_key_text(const struct img_recipe *r, const struct img_input *files,
		   const struct img_input *programs, unsigned nr_programs);
/* What decides an executable's behaviour: for an ELF64 file the sha256 over its allocated
 * sections except notes (so debug info and the build-id, which change with the checkout's
 * path, do not change the key); for anything else the sha256 of its bytes. */
int img_program_digest(const void *data, size_t len, char out[65]);
/* The cache entry's directory name: NAME-<first 16 hex digits of key>. */
void img_entry_name(const struct img_recipe *r, const char *key, char *buf, size_t len);

/* mmdebstrap argv (NULL-terminated, caller frees with img_argv_free) building the root file
 * system of r as a tarball at out_tar; simulate adds --simulate, which resolves the package
 * list without downloading it (seconds instead of a minute for a typo in a package name). */
char **img_mmdebstrap_argv(const struct img_recipe *r, const char *out_tar, int simulate);
void img_argv_free(char **argv);
/* Turn mmdebstrap's output into an error that names the recipe's JSON path when it can
 * ("packages[3]: unknown package \"foo\" in bookworm"); always fills err. */
int img_mmdebstrap_error(const struct img_recipe *r, const char *output, int status,
			 struct lab_error *err);
