#include "core/timing.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct timing_info models[TIMING__COUNT] = {
	[TIMING_KVM] = {
		.name = "kvm",
		.title = "KVM (hardware virtualisation)",
		.measures = "wall-clock time on real CPUs running in parallel",
		.cannot = "be compared with runs on other hosts or other loads without noise",
		.accel = DOMAIN_ACCEL_KVM,
	},
	[TIMING_TCG] = {
		.name = "tcg",
		.title = "multi-threaded TCG (emulated, host-clock timed)",
		.measures = "emulated code timed by the host clock, one host thread per vCPU: the "
			    "shape of parallel scaling as far as the host's cores go",
		.cannot = "give stable figures on a busy or small host (10-13 % between boots on 2 "
			  "cores), nor real speed-ups beyond the host's core count",
		.accel = DOMAIN_ACCEL_TCG,
	},
	[TIMING_ICOUNT] = {
		.name = "icount",
		.title = "deterministic (single-threaded TCG, instruction-counted time)",
		.measures = "the instruction cost of a code path per operation, spinning included: "
			    "guest time advances 1 ns per guest instruction whatever the host does",
		.cannot = "show real parallel speed-up or contention between truly concurrent CPUs "
			  "(all vCPUs take turns on one host thread); tick-based CPU times stay "
			  "noisy",
		.accel = DOMAIN_ACCEL_TCG_ICOUNT,
		.deterministic = 1,
	},
};

const struct timing_info *timing_info(enum timing_model m)
{
	return (unsigned)m < TIMING__COUNT ? &models[m] : NULL;
}

int timing_parse(const char *s, enum timing_model *out)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "auto")) {
		*out = TIMING_AUTO;
		return 0;
	}
	for (unsigned i = 0; i < TIMING__COUNT; i++)
		if (!strcmp(s, models[i].name)) {
			*out = (enum timing_model)i;
			return 0;
		}
	return -EINVAL;
}

enum timing_model timing_choose(enum timing_model req, int kvm_ok, unsigned vcpus, int ab,
				char *why, size_t len)
{
	if (req != TIMING_AUTO) {
		snprintf(why, len, "%s: asked for", models[req].name);
		return req;
	}
	if (kvm_ok) {
		snprintf(why, len, "kvm: KVM works on this host");
		return TIMING_KVM;
	}
	if (ab && vcpus <= TIMING_ICOUNT_MAX_VCPUS) {
		snprintf(why, len, "icount: no working KVM, and an A/B verdict needs figures the "
				   "host's load cannot move");
		return TIMING_ICOUNT;
	}
	if (ab)
		snprintf(why, len, "tcg: no working KVM, and %u vCPUs are too many for one host "
				   "thread (icount is kept to %u)", vcpus, TIMING_ICOUNT_MAX_VCPUS);
	else
		snprintf(why, len, "tcg: no working KVM; one kernel, so the shape of scaling "
				   "matters more than boot-to-boot precision");
	return TIMING_TCG;
}

unsigned timing_parallel(enum timing_model m, unsigned asked, unsigned free_cpus, unsigned fit,
			 unsigned runs, char *why, size_t len)
{
	unsigned n = asked ? asked : free_cpus;
	const char *from = asked ? "asked for" : "one per free host core";

	if (!models[m].deterministic) {
		if (asked > 1)
			snprintf(why, len, "1 guest at a time, not the %u asked for: under %s a "
				 "guest beside another moves its figures", asked, models[m].name);
		else
			snprintf(why, len, "1 guest at a time: under %s a guest beside another "
				 "moves its figures", models[m].name);
		return 1;
	}
	if (n < 1)
		n = 1;
	if (fit < 1)
		fit = 1;
	if (n > fit) {
		n = fit;
		from = "as many as the host's memory holds";
	}
	if (runs && n > runs) {
		n = runs;
		from = "one per run";
	}
	snprintf(why, len, "%u guest%s at once (%s): under %s a guest's figures do not depend on "
		 "what else runs", n, n == 1 ? "" : "s", from, models[m].name);
	return n;
}
