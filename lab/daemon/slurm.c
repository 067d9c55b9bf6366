/* Slurm's commands for labd: see slurm.h. */
#include "daemon/slurm.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/clock.h"
#include "util/spawn.h"
#include "util/text.h"

/* The last line of a command's output, for an error. */
static const char *last_line(char *out)
{
	const char *l = text_last_line(out);

	return l[0] ? l : "no output";
}

static int run(char *const *argv, char **out, int *st, struct lab_error *err)
{
	int r = spawn_capture(argv, SLURM_OUTPUT_MAX, SLURM_CMD_TIMEOUT_S, out, st);

	if (r < 0) {
		error_set(err, "", "%s: %s", argv[0], strerror(-r));
		return r;
	}
	if (*st == 127) { /* spawn's child could not exec it */
		error_set(err, "", "%s is not installed (Debian: slurm-client)", argv[0]);
		return -ENOENT;
	}
	return 0;
}

int slurm_submit(const struct slurm_batch *b, long long *id, struct lab_error *err)
{
	struct slurm_argv_bufs bufs;
	char *argv[SLURM_ARGV_MAX], *end = NULL;
	_cleanup_free_ char *out = NULL;
	int st = 0, r;

	if ((r = slurmfmt_sbatch_argv(b, &bufs, argv)) < 0)
		return error_set(err, "", r == -E2BIG ? "the command is too long for sbatch"
						       : "\"%s\" is not a node feature", b->constraint);
	if ((r = run(argv, &out, &st, err)) < 0)
		return r;
	if (st != 0)
		return error_set(err, "", "sbatch: %s", last_line(out));
	errno = 0;
	*id = strtoll(out, &end, 10);
	if (errno || end == out || *id <= 0 || (*end && *end != ';' && *end != '\n'))
		return error_set(err, "", "sbatch said \"%s\", not a job id", last_line(out));
	return 0;
}

/* One squeue answer for every job labd watches: each watching thread asks twice a second,
 * and a cluster's controller should not see a query per job per half second.  squeue 22.05
 * ignores --jobs with --json anyway (it lists every job), so one listing of the user's own
 * jobs (--me: labd submits them all) serves all threads for SLURM_QUERY_MAX_AGE_S. */
static pthread_mutex_t listing_lock = PTHREAD_MUTEX_INITIALIZER;
static char *listing;
static double listing_at;

/* *fresh: whether the listing was fetched now (a job missing from an older one may have been
 * submitted since). */
static int listing_refresh(int force, int *fresh, struct lab_error *err)
{
	char *argv[] = { "squeue", "--json", "--states=all", "--me", NULL };
	char *text = NULL;
	int st = 0, r;

	*fresh = 0;
	if (!force && listing && clock_now_s() - listing_at < SLURM_QUERY_MAX_AGE_S)
		return 0;
	if ((r = run(argv, &text, &st, err)) < 0)
		return r;
	if (st != 0) {
		error_set(err, "", "squeue: %s", last_line(text));
		free(text);
		return -EIO;
	}
	free(listing);
	listing = text;
	listing_at = clock_now_s();
	*fresh = 1;
	return 0;
}

int slurm_query(long long id, struct slurm_job_info *out, struct lab_error *err)
{
	int r, fresh;

	pthread_mutex_lock(&listing_lock);
	r = listing_refresh(0, &fresh, err);
	if (r == 0)
		r = slurmfmt_parse_job(listing, strlen(listing), id, out, err);
	if (r == -ENOENT && !fresh && (r = listing_refresh(1, &fresh, err)) == 0)
		r = slurmfmt_parse_job(listing, strlen(listing), id, out, err);
	pthread_mutex_unlock(&listing_lock);
	return r;
}

int slurm_cancel(long long id, int soft, struct lab_error *err)
{
	char ids[32];
	char *soft_argv[] = { "scancel", "--batch", "--signal=INT", ids, NULL };
	char *hard_argv[] = { "scancel", ids, NULL };
	_cleanup_free_ char *out = NULL;
	int st = 0, r;

	snprintf(ids, sizeof(ids), "%lld", id);
	if ((r = run(soft ? soft_argv : hard_argv, &out, &st, err)) < 0)
		return r;
	if (st != 0)
		return error_set(err, "", "scancel %lld: %s", id, last_line(out));
	return 0;
}

int slurm_nodes(json_t **out, struct lab_error *err)
{
	char *argv[] = { "sinfo", "--json", NULL };
	_cleanup_free_ char *text = NULL;
	int st = 0, r;

	if ((r = run(argv, &text, &st, err)) < 0)
		return r;
	if (st != 0)
		return error_set(err, "", "sinfo: %s", last_line(text));
	return slurmfmt_parse_nodes(text, strlen(text), out, err);
}
