/* One compilation unit, built 16 times (make's unitNN.o from this file with -DUNIT=NN): some
 * hashing, sorting and table code, enough for the compiler to work on. */
#include <stdlib.h>
#include <string.h>

#include "tiny.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(a) #a
#define STR(a) STR_(a)

#define STEP(n)                                                                \
	static uint64_t step_##n(uint64_t x)                                   \
	{                                                                      \
		x ^= x >> (7 + (n) % 11);                                      \
		x *= 0x9e3779b97f4a7c15ULL + (n) + (uint64_t)CAT(1, UNIT);     \
		for (int k = 0; k < (n) % 5 + 1; k++)                          \
			x = (x << 13 | x >> 51) + (uint64_t)k * (n);           \
		return x;                                                      \
	}
STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8)
STEP(9) STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15) STEP(16)

static uint64_t (*const steps[])(uint64_t) = {
	step_1, step_2, step_3, step_4, step_5, step_6, step_7, step_8,
	step_9, step_10, step_11, step_12, step_13, step_14, step_15, step_16,
};

static int cmp(const void *a, const void *b)
{
	const struct tiny_rec *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

uint64_t CAT(unit, UNIT)(uint64_t seed)
{
	struct tiny_rec recs[64];
	uint64_t h = seed + (uint64_t)CAT(1, UNIT);

	for (size_t k = 0; k < sizeof(recs) / sizeof(recs[0]); k++) {
		h = steps[k % 16](h);
		recs[k] = (struct tiny_rec){.key = h, .val = (uint32_t)k, .name = STR(UNIT)};
	}
	qsort(recs, sizeof(recs) / sizeof(recs[0]), sizeof(recs[0]), cmp);
	for (size_t k = 0; k < sizeof(recs) / sizeof(recs[0]); k++)
		h = h * 31 + recs[k].val + strlen(recs[k].name);
	return h;
}
