/* page_fault1/2/3 share one implementation (rt_pagefault.c); each runner is its main(). */
#pragma once

/* variant 1: private anonymous, 2: private file-backed, 3: shared file-backed. */
int rt_pagefault_main(int argc, char **argv, int variant);
