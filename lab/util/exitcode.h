/* One exit-code table for every lab command (lab(1), EXIT STATUS), so that CI, `git bisect
 * run`, systemd units and labd tell a regression from a tool failure the same way:
 *   0  ok, or no regression
 *   1  a regression
 *   2  usage or bad input (nothing was changed)
 *   3  undecided, or runs failed
 *   4  the lab itself failed
 * `--git-bisect` (lab compare, lab run) maps them for `git bisect run`. */
#pragma once

#define EXIT_OK 0
#define EXIT_REGRESSION 1
#define EXIT_BAD_INPUT 2
#define EXIT_UNDECIDED 3
#define EXIT_RUN_FAILED 3
#define EXIT_LAB_ERROR 4

/* git bisect run's codes: good, bad, skip, and 128+ to stop the bisection. */
#define EXIT_GIT_GOOD 0
#define EXIT_GIT_BAD 1
#define EXIT_GIT_SKIP 125
#define EXIT_GIT_ABORT 128

/* The table as lab's help texts print it. */
#define EXIT_TABLE_HELP                                                                    \
	"Exit status, every lab command: 0 ok or no regression, 1 a regression, 2 usage\n"  \
	"or bad input, 3 undecided or runs failed, 4 the lab itself failed.\n"
