/* Workload parameters as runner options: the calling convention of PROTOCOL.md ("Runner
 * output"; rt_argv_build builds it) read backwards.  Job param `memory_split` is option
 * `--memory-split`; a true boolean is the bare option (false ones are left out); integers are
 * decimal; an enum or a string is itself; a task list is `N[,N...]`, `per-cpu` or `pow2`.
 *
 * A runner collects its options into a raw params object with wopts_set() and validates it
 * with workload_params_max(), the code that validates a job on the host, so the two accept
 * and refuse the same things: an option argument that is not even the right type (`--tasks
 * 1,,2`, `--memory-mib x`) is kept as a string for workload_params_max() to refuse with the
 * host's message.  Pure: never prints. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "proto/workload.h"

/* Longest option name (without "--") wopts_name() writes, NUL included. */
#define WOPTS_NAME_LEN 64

/* "--" less option name of parameter name: "memory_split" -> "memory-split". */
void wopts_name(const char *name, char *buf, size_t len);
/* The parameter of w that option opt (without "--") stands for, or NULL. */
const struct workload_param *wopts_find(const struct workload_def *w, const char *opt);
/* Store option p's argument (ignored for a boolean) into the raw params object under p's
 * name, replacing an earlier value.  0 or -ENOMEM. */
int wopts_set(json_t *raw, const struct workload_param *p, const char *arg);
/* The option an error path of workload_params_max() (with path "") is about: "tasks[2]" or
 * "memory_mib" -> "--tasks", "--memory-mib". */
void wopts_path_option(const char *path, char *buf, size_t len);
/* What --help shows after the option: "1..64 (default 1)", "anon|malloc|zero|shm (default
 * anon)", "N[,N...]|per-cpu|pow2 (default per-cpu)", "" for a boolean. */
void wopts_arg(const struct workload_param *p, char *buf, size_t len);

/* Values of a params object workload_params*() filled in. */
long long wopts_int(const json_t *params, const char *name);
int wopts_bool(const json_t *params, const char *name);
const char *wopts_string(const json_t *params, const char *name);
/* Index of the value of enum parameter name among its choices in w's table, -1 if none. */
int wopts_enum(const struct workload_def *w, const json_t *params, const char *name);
