/* Report files into the history index (lab/history/history.h): `lab history rebuild` and
 * `lab history index` (cmd_history.c reads their command line), and lab run's
 * cli_history_add (cli.h). */
#pragma once

/* Where `lab run` writes reports unless told otherwise (lab/run/engine.c). */
#define DEFAULT_REPORTS "reports"

/* The reports files[0..nr_files) name (none: DEFAULT_REPORTS) into the index db, in one
 * transaction, after dropping what it held when rebuild; a report that cannot be read is
 * named on stderr and skipped, the counts said on stdout.  The exit code: EXIT_OK,
 * EXIT_BAD_INPUT (an argument that names nothing), EXIT_LAB_ERROR (the index). */
int cli_history_write(const char *db, int rebuild, char **files, int nr_files);
