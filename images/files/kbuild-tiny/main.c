/* kbuild-tiny's program: calls every unit, prints a checksum. */
#include <inttypes.h>
#include <stdio.h>

#include "tiny.h"

static uint64_t (*const units[])(uint64_t) = {
	unit00,
	unit01,
	unit02,
	unit03,
	unit04,
	unit05,
	unit06,
	unit07,
	unit08,
	unit09,
	unit10,
	unit11,
	unit12,
	unit13,
	unit14,
	unit15,
};

int main(void)
{
	uint64_t h = 1;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		h = units[i](h);
	printf("%016" PRIx64 "\n", h);
	return 0;
}
