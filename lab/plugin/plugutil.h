/* What the lab's TCG plugins (lockinsn.c, numacost.c, profile.c) share: recognising the
 * release store, reading a guest register and finding the registers they read, the arguments
 * map=FILE and out=FILE, finding an address's symbol in a sorted map.  Header-only: each plugin is one shared object of its own.
 * GPL-2.0-or-later, as the qemu-plugin.h it uses. */
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "qemu-plugin.h"

/* `movb $0, mem` (spin_unlock()'s release on x86): legacy and REX prefixes, then C6 /0 with a memory operand, imm8 0 last. */
static inline int plugutil_is_zero_byte_store(const uint8_t *b, size_t n)
{
	size_t i = 0;

	while (i < n && (b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x36 ||
			 b[i] == 0x64 || b[i] == 0x65 || (b[i] & 0xf0) == 0x40))
		i++;
	if (i + 2 >= n || b[i] != 0xc6)
		return 0;
	return ((b[i + 1] >> 3) & 7) == 0 && (b[i + 1] >> 6) != 3 && b[n - 1] == 0;
}

/* A register's value, its first 8 bytes little-endian (x86); 0 without a handle. */
static inline uint64_t plugutil_reg_read(struct qemu_plugin_register *r)
{
	g_autoptr(GByteArray) buf = g_byte_array_new();
	uint64_t v = 0;
	int n;

	if (!r)
		return 0;
	n = qemu_plugin_read_register(r, buf);
	if (n > 0)
		memcpy(&v, buf->data, n < 8 ? (size_t)n : 8);
	return v;
}

/* The handles of the named registers of the vCPU being initialised: names[i] -> *out[i] (left
 * as they are when the vCPU has no such register). */
static inline void plugutil_regs_find(const char *const *names, struct qemu_plugin_register ***out,
				      unsigned n)
{
	g_autoptr(GArray) regs = qemu_plugin_get_registers();

	for (guint i = 0; regs && i < regs->len; i++) {
		qemu_plugin_reg_descriptor *d = &g_array_index(regs, qemu_plugin_reg_descriptor, i);

		for (unsigned k = 0; k < n; k++)
			if (!strcmp(d->name, names[k]))
				*out[k] = d->handle;
	}
}

/* The arguments of a plugin that takes map=FILE and out=FILE, both needed, on x86_64 only
 * (lockinsn.c, profile.c): 0, or -1 after saying why on stderr, each line "WHO: ...". */
static inline int plugutil_map_out_args(const char *who, const qemu_info_t *info, int argc,
					char **argv, const char **map, char **out)
{
	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "%s: x86_64 only, not %s\n", who, info->target_name);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "map=", 4))
			*map = argv[i] + 4;
		else if (!strncmp(argv[i], "out=", 4))
			*out = argv[i] + 4;
		else {
			fprintf(stderr, "%s: unknown argument %s (map=FILE, out=FILE)\n", who, argv[i]);
			return -1;
		}
	}
	if (!*map || !*out) {
		fprintf(stderr, "%s: map=FILE and out=FILE are needed\n", who);
		return -1;
	}
	return 0;
}

/* How many of the n sorted addresses are at or below addr: the symbol of addr is the one
 * before that index (none when 0). */
static inline size_t plugutil_below(const uint64_t *addr, size_t n, uint64_t a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
