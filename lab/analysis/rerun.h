/* A deterministic report against its re-run (`lab rerun`): under icount and quantum a boot is
 * a function of its seed and its inputs, so every figure of every boot must come out equal to
 * the last digit.  Pure: two parsed reports in, the verdict and the first difference in words
 * out. */
#pragma once
#include <jansson.h>

struct rerun_diff {
	unsigned runs;           /* runs compared: those of the original the re-run has too */
	unsigned figures;        /* figures compared (metrics, counters, the NUMA model's) */
	int identical;           /* 1: every one equal, and the runs' statuses */
	char first[600];         /* the first that differs, in words ("" when identical) */
	char inputs[600];        /* what ran differently, when known: the kernels' bytes or
				  * configs, the QEMU build, the lab; "" when nothing known did */
};

/* orig's first runs against again's, run by run (index, kernel label, seed), each workload's
 * results' metrics, its perf counters, the NUMA cost model's counts.  0 with *d filled;
 * -EINVAL when the two are not runs of one job (labels or seeds differ: said in d->first). */
int rerun_compare(const json_t *orig, const json_t *again, struct rerun_diff *d);
