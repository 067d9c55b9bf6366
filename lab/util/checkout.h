/* Finding the lab's own files: kernels/, images/, configs/topologies/, lab/report/ of the
 * checkout, and the programs built beside the lab binary.  One search order for all of them,
 * the first candidate that exists wins:
 *   1. $LAB_ROOT/REL, when LAB_ROOT is set and not empty (the tests set it);
 *   2. REL in the checkout the running binary was built in: build/lab -> ../REL;
 *   3. REL in the data of an installed lab (`make install`): PREFIX/bin/lab ->
 *      PREFIX/share/numalab/REL;
 *   4. REL under the current directory.
 * The binary's checkout comes before the current directory so that a lab run from elsewhere
 * still uses the kernels, recipes and assets of its own version. */
#pragma once
#include <stddef.h>

/* Where `make install` puts the lab's files, relative to PREFIX (the Makefile says the same). */
#define CHECKOUT_INSTALLED_DATA "share/numalab"
#define CHECKOUT_INSTALLED_RUNNERS "lib/numalab/runners"

/* Write the first existing candidate for rel (a file or a directory) into buf.  -ENOENT when
 * none exists: buf then holds the candidate in the binary's checkout (or under the current
 * directory when /proc/self/exe cannot be read), for the message. */
int checkout_find(const char *rel, char *buf, size_t len);
/* The directory of the running binary (build/ for build/lab); -errno when unknown. */
int checkout_bin_dir(char *buf, size_t len);
/* The static guest programs: runners/ beside the binary (build/runners), else those of an
 * installed lab (PREFIX/lib/numalab/runners).  -ENOENT when neither exists: buf then holds
 * the first, for the message. */
int checkout_runners_dir(char *buf, size_t len);
