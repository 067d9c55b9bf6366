/* The contention model's QEMU (images/qemu/): where its source is, and the key of a build.
 * Pure: the caller runs `apt-get --print-uris source` and reads the patches.
 *
 * The source is Debian's own "+ds" upstream tarball of the QEMU version the lab runs, found
 * through apt's deb-src index (which gives its URL and SHA256); Debian's packaging tarball is
 * not used (on the mirror the lab was built against, it was missing while the orig was
 * there).  A build is known by the sha256 of one "name value" line per input, version first,
 * so that a change to what goes in makes old keys unreachable instead of wrong. */
#pragma once
#include <stddef.h>

#define QEMUSRC_MAX_PATCHES 16

struct qemusrc_file {
	char url[1024];
	char name[256];
	unsigned long long size;
	char sha256[65];
};

/* From apt-get --print-uris output ("'URL' NAME SIZE SHA256:HEX" lines), the upstream
 * tarball: NAME ending in .orig.tar.xz (or .gz/.bz2).  -ENOENT when no line names one,
 * -EINVAL for a malformed one (a URL that is not http(s), a checksum that is not 64 hex
 * digits, a name with '/'). */
int qemusrc_parse_uris(const char *text, struct qemusrc_file *out);

struct qemusrc_input {
	const char *version;             /* Debian's version of qemu-system-x86 */
	const char *orig_sha256;
	const char *const *patch_sha256; /* in series order */
	unsigned nr_patches;
	const char *const *configure;    /* configure's arguments, in order */
	unsigned nr_configure;
	const char *compiler;            /* `cc --version` first line */
};

/* The build's key: 64 hex digits + NUL.  -EINVAL when an input is missing or spans lines. */
int qemusrc_key(const struct qemusrc_input *in, char out[65]);
