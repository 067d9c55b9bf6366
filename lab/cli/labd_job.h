/* A job file as `lab job submit` sends it to labd, checked as far as the client can: JSON,
 * and references that mean the same on labd's side.  labd keeps its own copy of the job and
 * resolves names (a topology, kernel variants, image recipes) from its own checkout or
 * installation, so a relative path, which would resolve elsewhere there, is refused here with
 * its JSON path; so is a topology name that a file beside the job gives another meaning. */
#pragma once
#include <jansson.h>

/* EXIT_OK with *out (the job's JSON), or the error said as `lab run` says it (file, JSON
 * path, reason) and EXIT_BAD_INPUT (EXIT_LAB_ERROR out of memory). */
int labd_job_load(const char *file, json_t **out);
