/* page_fault1: will-it-scale's page_fault1, see rt_pagefault.c. */
#include "rt_pagefault.h"

int main(int argc, char **argv)
{
	return rt_pagefault_main(argc, argv, 1);
}
