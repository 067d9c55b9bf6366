/* kbuild-tiny: a small C tree for the kbuild workload's tests (images/README.md). */
#ifndef TINY_H
#define TINY_H
#include <stddef.h>
#include <stdint.h>

struct tiny_rec {
	uint64_t key;
	uint32_t val;
	const char *name;
};

uint64_t unit00(uint64_t seed);
uint64_t unit01(uint64_t seed);
uint64_t unit02(uint64_t seed);
uint64_t unit03(uint64_t seed);
uint64_t unit04(uint64_t seed);
uint64_t unit05(uint64_t seed);
uint64_t unit06(uint64_t seed);
uint64_t unit07(uint64_t seed);
uint64_t unit08(uint64_t seed);
uint64_t unit09(uint64_t seed);
uint64_t unit10(uint64_t seed);
uint64_t unit11(uint64_t seed);
uint64_t unit12(uint64_t seed);
uint64_t unit13(uint64_t seed);
uint64_t unit14(uint64_t seed);
uint64_t unit15(uint64_t seed);

#endif
