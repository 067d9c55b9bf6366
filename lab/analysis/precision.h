/* Adaptive repetitions: whether the boots run so far pin every primary metric of every kernel
 * to the precision a job asks for (its "precision", configs/README.md).  Pure.
 *
 * For each series of a primary metric (lab/proto/workload.c) and each kernel variant, the
 * repetitions of each boot are averaged (lab/analysis/verdict.h: the boot is the unit) and
 * the 95 % interval of the mean over boots is taken; its half-width, in % of the mean (the
 * wider side for a harmonic mean's asymmetric interval), must be at most the target. */
#pragma once
#include <jansson.h>
#include <stddef.h>

struct precision_status {
	int reached;          /* every primary series of every variant is within the target */
	double worst_pct;     /* the widest half-width, % of the mean; INFINITY while a series has
			       * fewer than two boots; NAN when there is no primary series */
	char worst[256];      /* which series and variant */
	size_t series;        /* primary series looked at */
};

/* runs: the array of run objects of a report being written (numalab.report/1 shape).
 * -EINVAL when a run is malformed (err not kept: the lab wrote them), -ENOMEM. */
int precision_check(json_t *runs, double target_pct, struct precision_status *st);
