/* Kernel variants (kernels/NAME.json) and Kconfig text: parsing, merging config fragments,
 * checking what stuck after olddefconfig, the cache keys, known confounds.  Pure: callers
 * read the files; nothing here touches the file system or spawns anything. */
#pragma once
#include <jansson.h>
#include <limits.h>
#include <stddef.h>

#include "util/error.h"

#define KVARIANT_MAX_PATCHES 64
#define KVARIANT_MAX_FRAGMENTS 16
#define KVARIANT_URL_MAX 2048
/* A .config of the lean kernel is ~40 KiB, a distribution one ~300 KiB. */
#define KCONFIG_MAX_TEXT (2u << 20)
#define KCONFIG_MAX_OPTIONS 20000

enum ksrc_type {
	KSRC_DEBIAN = 0, /* {"debian": "linux-source-6.12"}: /usr/src/linux-source-6.12.tar.xz */
	KSRC_GIT,        /* {"git": "/path/to/linux", "ref": "v6.12"} */
	KSRC_URL,        /* {"url": "https://... or file://...", "sha256": "..."} */
};

struct ksrc {
	enum ksrc_type type;
	char package[64];             /* debian */
	char path[PATH_MAX];          /* debian: the tarball; git: the tree (absolute or as given) */
	char ref[256];                /* git */
	char url[KVARIANT_URL_MAX];   /* url */
	char sha256[65];              /* url: expected, lower-case hex */
};

struct kpatch {
	char path[PATH_MAX];          /* local patch or mbox, resolved against the variant's dir */
	char url[KVARIANT_URL_MAX];   /* or fetched from here ... */
	char sha256[65];              /* ... and checked against this (required with url) */
};

struct kvariant {
	char name[64];
	char description[256];
	struct ksrc src;
	char base[32];                /* make target the fragments go onto: "tinyconfig", ... */
	unsigned nr_patches;
	struct kpatch *patches;
	unsigned nr_fragments;
	char (*fragments)[PATH_MAX];  /* resolved against the variant's dir */
};

/* j is the parsed kernels/NAME.json; name its base name; dir the directory relative paths
 * resolve against.  Errors name the JSON path ("source.sha256: must be 64 hex digits"). */
int kvariant_from_json(const json_t *j, const char *name, const char *dir, struct kvariant *v,
		       struct lab_error *err);
void kvariant_free(struct kvariant *v);
/* [a-z0-9][a-z0-9._-]{0,62}: goes into directory names. */
int kvariant_name_ok(const char *s);
/* The file GNU patch could not patch, from its output (out: what it printed, whose file
 * names come from the patch): the "patching file X" before a FAILED hunk, or the "|--- a/X"
 * header quoted after "can't find file to patch"; "(unknown file)" when neither is there. */
void kpatch_failing_file(const char *out, char *file, size_t len);
/* The subject of the first mail in a patch ("Subject: [PATCH v2 3/7] mm: x" -> "mm: x"), its
 * first line; -ENOENT when text has no Subject: line (a bare diff). */
int kpatch_subject(const char *text, char *buf, size_t len);
/* The first hunk GNU patch says FAILED, as "hunk #N at line L"; "" when it names none. */
void kpatch_failing_hunk(const char *out, char *hunk, size_t len);
/* Whether text (len bytes) is a patch patch(1) can apply: a unified diff ("--- ", "+++ ",
 * "@@ -") or a context diff ("*** ", "--- ", "***************"), or an mbox of them; -EINVAL
 * with why otherwise (binary data, no diff at all). */
int kpatch_check_text(const char *text, size_t len, char *why, size_t wlen);

/* ---- Kconfig text -------------------------------------------------------------------------- */

struct kopt {
	char *name;     /* without the CONFIG_ prefix */
	char *value;    /* "y", "m", "n" (from "# CONFIG_X is not set"), a number or "\"str\"" */
	unsigned line;  /* 1-based line in the text it came from */
};

struct kconfig {
	unsigned n;
	struct kopt *opts;  /* in file order; a later line for the same name replaces an earlier */
};

/* Parse .config or fragment text.  Blank lines and other comments are skipped; any other
 * line is an error naming it ("line 3: expected CONFIG_NAME=VALUE or # CONFIG_NAME is not
 * set").  strict = 0 (for a kernel-written .config) ignores such lines instead. */
int kconfig_parse(const char *text, int strict, struct kconfig *out, struct lab_error *err);
void kconfig_free(struct kconfig *c);
/* Value of NAME (no CONFIG_ prefix) or NULL when the .config does not mention it. */
const char *kconfig_get(const struct kconfig *c, const char *name);
/* The file of a build that QEMU boots: KCONFIG_IMAGE_PVH ("vmlinux") when the final .config
 * has the PVH entry point (CONFIG_PVH=y), else KCONFIG_IMAGE_BZ ("bzImage").  With PVH QEMU
 * loads the ELF's segments itself and enters the kernel in protected mode, so the guest skips
 * the bzImage's decompressor and real-mode set-up (kernels/base.config says what that saves);
 * the kernel that runs is the same. */
#define KCONFIG_IMAGE_PVH "vmlinux"
#define KCONFIG_IMAGE_BZ "bzImage"
const char *kconfig_boot_image(const char *config_text);
/* base with every option of the fragments applied in order (a later one wins), as .config
 * text: base lines whose option a fragment sets are dropped, fragment assignments appended.
 * Caller frees *out. */
int kconfig_merge(const char *base, const struct kconfig *frags, unsigned nfrags, char **out);

/* One requested option that did not stick. */
struct kmismatch {
	char name[128];
	char wanted[128];
	char got[128];      /* "n (absent: dependencies not met)" when .config lacks it */
	char where[PATH_MAX + 16]; /* "fragment:line" */
};

/* Compare every option requested by frags (names[i] labels fragment i, e.g. its path) with
 * final.  Fills up to max mismatches; returns how many there are in total. */
unsigned kconfig_check(const struct kconfig *frags, const char *const *names, unsigned nfrags,
		       const struct kconfig *final, struct kmismatch *out, unsigned max);
/* "CONFIG_X: wanted y, got n (kernels/base.config:12)". */
void kmismatch_format(const struct kmismatch *m, char *buf, size_t len);

/* The files Kconfig read, as Kbuild lists them in O/include/config/auto.conf.cmd (a
 * "deps_config := \" line, then one tab-indented path a line ending " \"): *list gets
 * them one a line, relative to the source tree, in the file's order; returns how many.
 * -EINVAL when the text has no such list, or a path is absolute, climbs out ("..") or holds a
 * space.  Caller frees *list. */
int kconfig_cmd_deps(const char *text, char **list);

/* ---- cache keys ---------------------------------------------------------------------------- */

/* What a build depends on.  Each member is a string the caller computed (identity of the
 * source, sha256 of each patch's bytes, of the final .config, the compiler's version line). */
struct kkey_input {
	const char *source_id;          /* "debian:linux-source-6.12:sha256:..." | "git:SHA" | ... */
	const char *const *patch_sha256; /* nr_patches entries, in series order */
	unsigned nr_patches;
	const char *config_sha256;      /* artifact key: of the final .config */
	const char *base;               /* recipe key: base target */
	const char *const *fragment_sha256; /* recipe key: of each fragment's bytes */
	unsigned nr_fragments;
	const char *compiler;           /* `gcc --version` first line */
};

/* The artifact's key: sha256 over (source, patches, final .config, compiler); 64 hex + NUL. */
int kkey_artifact(const struct kkey_input *in, char out[65]);
/* The recipe's key, known without configuring: (source, patches, base, fragments, compiler).
 * Maps to an artifact key in the cache index so that a cache hit needs no `make`. */
int kkey_recipe(const struct kkey_input *in, char out[65]);
/* Source tree key: (source, patches). */
int kkey_source(const struct kkey_input *in, char out[65]);
/* The key of what configuring reads (lab/builder/kernel_make.c keeps an O= tree's .config
 * while it is unchanged): base, fragments and compiler from in, and files, one "PATH SHA256"
 * line per file Kconfig reads ("PATH -" for one that is absent).  Not the source identity:
 * a commit that touches no Kconfig input gets the same key. */
int kkey_kconfig(const struct kkey_input *in, const char *files, char out[65]);

/* ---- what the report says about a kernel ---------------------------------------------------- */

/* Known confounds of a final .config: options that change together with the one a variant
 * switches ([{"option", "value", "also": ["HUGETLB_PMD_PAGE_TABLE_SHARING=n"], "note"}]).
 * Always an array (empty when none). */
json_t *kconfig_confounds(const struct kconfig *final);
/* {"CONFIG_X": "y", ...} for the options the report shows: every option the fragments name,
 * those of the known confounds and a fixed list relevant to MM scaling; "n" when absent. */
json_t *kconfig_subset(const struct kconfig *c, const struct kconfig *frags, unsigned nfrags);
/* "extends": a variant that says only what differs from another.  base is the other's JSON
 * (already extended itself), base_dir its directory; child the variant's own JSON, naming
 * it with "extends".  *out gets base with its relative paths (patches, config fragments, a
 * git source) made absolute, then the child's "description", "source" and "base" over it and
 * its "patches" and "config" appended; kvariant_from_json(*out, ..., the child's dir) parses
 * the result.  A child without a description gets the base's, marked "(+ NAME)".  -EINVAL
 * with err naming the JSON path (an unknown key, a wrong type), -ENOMEM. */
int kvariant_extend(const json_t *base, const char *base_dir, const json_t *child,
		    const char *name, json_t **out, struct lab_error *err);
