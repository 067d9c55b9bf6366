/* Sizing a timed workload by measurement: when is a rate known well enough to stop?  Pure.
 *
 * A duration workload (page_fault1-3, mmap_contention) counts operations while it runs, in
 * cycles (a map/touch/unmap round, a pass over a region).  Each task publishes its count at
 * the end of every whole cycle, with the time; the runner's coordinator looks every few
 * milliseconds, keeps each task's newest cycle end as a sample of that task's series, and asks
 * batchci_rate() for the 95 % interval of the team's rate: the method of batch means
 * with a fixed number of batches (Schmeiser 1982): the span so far cut into BATCHCI_BATCHES
 * equal batches, each batch's rate one observation, Student's t with BATCHCI_BATCHES - 1
 * degrees of freedom.  Consecutive operations are not independent (a map/touch/unmap cycle has
 * a slow and a fast part); batches much longer than a cycle are nearly so, and with a fixed
 * count the batches lengthen as the run does, so the interval becomes honest as it narrows.
 * The run stops at the first sample where the half-width is within the job's target (and the
 * span at least a minimum), or at its duration_s, the cap.
 *
 * Why cycle ends and not the running count: within a cycle the rate is uneven (nothing is
 * counted while unmapping), so a count read at a random moment puts a batch boundary off by up
 * to the unmapping time, about 3 % of a 100 ms batch for a 16 MiB page_fault1 cycle, and the
 * interval comes out several times too wide (lab/tests/golden/batchci.txt).  Between two cycle
 * ends the count is interpolated, which errs only by how uneven the cycles are among
 * themselves.
 *
 * The samples are kept in a fixed buffer: when it is full every other one is dropped (the
 * first and the newest always stay) and the sampling interval doubles, so a long cap costs no
 * more memory and no more wake-ups per second than a short one. */
#pragma once
#include <stddef.h>
#include <stdint.h>

#define BATCHCI_BATCHES 10
#define BATCHCI_MAX_SAMPLES 256

struct batchci_samples {
	double t[BATCHCI_MAX_SAMPLES];     /* seconds, ascending; t[0] the release */
	uint64_t ops[BATCHCI_MAX_SAMPLES]; /* cumulative operations at t[i], not decreasing */
	size_t n;
	double every; /* the sampling interval, doubled at each compaction */
};

/* Start at time t0 with no operations, sampling every `every` seconds (> 0). */
void batchci_init(struct batchci_samples *s, double t0, double every);
/* Add the count ops at time t (after the last sample).  -EINVAL when t is not later or ops is
 * less than the last sample's; the buffer then is unchanged. */
int batchci_add(struct batchci_samples *s, double t, uint64_t ops);
/* The team's rate (ops/s) and its 95 % half-width as a fraction of it, from BATCHCI_BATCHES
 * batch means over [t0, T], where t0 is the series' common start and T the earliest of their
 * newest samples, so that every series has counts up to T.  A batch's count is the sum over
 * the n series of each one's count at the boundaries, interpolated linearly between its
 * samples.  -EINVAL when n is 0 or T is not after t0 (a series without a sample yet), -ERANGE
 * when the rate is 0 (no relative width). */
int batchci_rate(const struct batchci_samples *s, size_t n, double *rate,
		 double *rel_half_width);
