/* What the labd client commands (lab job submit, queue, status, cancel, logs) share: the options
 * that say where labd is, one call with its errors printed and its exit code, labd's JSON on
 * stdout, and a job's events, read once or followed until the job ends. */
#pragma once
#include <stdint.h>

#include "cli/labd_client.h"
#include "util/parseopt.h"

/* The options every client command takes, one group (util/parseopt.h) that each verb's
 * table joins: --json, --socket PATH, --url URL, --token-file F. */
extern const struct cli_opt labd_cli_opts[];

/* The long poll of a follow: labd answers within this many seconds (it allows up to 60). */
#define LABD_POLL_S 30L

struct labd_cli {
	struct labd_target t;
	int json;
	struct labd_client c;
};

/* cli_parse of opts, a table that joins labd_cli_opts: the group's values cleared first,
 * then put in l (where labd is, --json).  The index of the first operand, or -EINVAL (said
 * on stderr: the command exits EXIT_BAD_INPUT). */
int labd_cli_parse(struct labd_cli *l, int argc, char **argv, const struct cli_opt *opts);

/* EXIT_OK, or the error printed and EXIT_LAB_ERROR (a bad --url or token file: EXIT_BAD_INPUT). */
int labd_cli_open(struct labd_cli *l);
void labd_cli_close(struct labd_cli *l);
/* The arguments from first on must be exactly one job ID, a positive decimal number:
 * EXIT_OK with *id, else said on stderr and EXIT_BAD_INPUT. */
int labd_cli_one_id(int argc, char **argv, int first, int64_t *id);
/* "/v1/jobs/ID" + suffix (may be "") into buf. */
void labd_cli_job_path(char *buf, size_t len, int64_t id, const char *suffix);

/* One request that must succeed (HTTP 2xx): EXIT_OK with *out.  Otherwise the error printed,
 * "lab: VERB: [FILE: ][PATH: ]REASON", and the exit code: EXIT_BAD_INPUT when labd refused
 * what was asked (400, 404, 409, 413: a bad job, no such job, nothing to cancel),
 * EXIT_LAB_ERROR for the rest (not running, a refused token, 5xx). */
int labd_cli_call(struct labd_cli *l, const char *method, const char *path, const json_t *body,
		  size_t max, long timeout_s, const char *file, json_t **out);
/* The whole of `lab job status` and `lab job cancel`: labd_cli_opts alone, one job ID, one
 * request to the job's path + suffix.  EXIT_OK with *out (labd's answer; --json in l->json),
 * or the error said and its exit code. */
int labd_cli_job_request(struct labd_cli *l, int argc, char **argv, const char *method,
			 const char *suffix, json_t **out);
/* j on stdout, keys sorted, indented, with a newline: EXIT_OK or EXIT_LAB_ERROR. */
int labd_cli_print_json(const json_t *j);

/* 1 when a job in state (its "state" as labd says it) will not change any more. */
int labd_state_ended(const char *state);
/* One event, {"seq", "time", "job", "type", "data"}, as one line of text (no newline); only
 * printable characters. */
void labd_event_text(const json_t *ev, char *buf, size_t len);
/* The text of an event's data alone: what a line says after its time and type. */
void labd_event_what(const json_t *ev, char *buf, size_t len);

typedef void (*labd_event_fn)(void *ud, const json_t *ev);
/* Job id's events, oldest first, each to fn: those logged so far, or with follow every one
 * until the job ended (its "done" event, or a state that ended).  EXIT_OK, or the error
 * printed and its exit code. */
int labd_cli_events(struct labd_cli *l, int64_t id, int follow, labd_event_fn fn, void *ud);
