/* The lab's own version and the commit it was built from: `lab --version`, and every report's
 * "lab" object, so that a figure says which lab measured it.  Both are set by the Makefile
 * (LAB_VERSION there, the commit from git at build time: lab/scripts/commit-id.sh). */
#pragma once

/* "0.37" */
const char *version_lab(void);
/* The commit's short hash, "-dirty" appended when the tree had uncommitted changes; "unknown"
 * when it was not built from a git checkout. */
const char *version_commit(void);
