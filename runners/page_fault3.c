/* page_fault3: will-it-scale's page_fault3, see rt_pagefault.c. */
#include "rt_pagefault.h"

int main(int argc, char **argv)
{
	return rt_pagefault_main(argc, argv, 3);
}
