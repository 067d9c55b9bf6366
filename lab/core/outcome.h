/* How a run ended, from what the watcher saw, what the guest said and what the console shows.
 * Pure. */
#pragma once
#include <stddef.h>

#include "core/kwarn.h"

enum outcome {
	OUTCOME_OK = 0,
	OUTCOME_WORKLOAD_FAILURE, /* guest fine, a workload exited non-zero or sent bad output */
	OUTCOME_HANG,             /* agent started, then no progress within the timeout */
	OUTCOME_BOOT_FAILURE,     /* the agent never started */
	OUTCOME_PANIC,            /* oops/BUG/panic on the console, or a guest crash event */
	OUTCOME_BUILD_FAILURE,    /* the kernel or image could not be built */
	OUTCOME_INFRA_ERROR,      /* the lab or the host failed, not the guest */
};

/* Why the watcher stopped watching (filled by virt/guest.c). */
enum guest_end {
	GUEST_END_STOPPED = 0,      /* the domain stopped by itself (poweroff, reboot, crash) */
	GUEST_END_BOOT_TIMEOUT,     /* nothing on the results channel within the boot timeout */
	GUEST_END_PROGRESS_TIMEOUT, /* results channel silent for the progress timeout */
	GUEST_END_TOTAL_TIMEOUT,
	GUEST_END_INTERRUPTED,      /* SIGINT/SIGTERM */
	GUEST_END_START_FAILED,     /* libvirt refused to start it */
	GUEST_END_CHANNEL_OVERFLOW, /* the guest sent more than the channel allows */
	GUEST_END_BOOT_SILENT,      /* before the first line, the console silent too long */
	GUEST_END_CONSOLE_OVERFLOW, /* the guest wrote more to its console than the lab keeps */
	GUEST_END_QEMU_FAILED,      /* QEMU went away without the guest shutting down (killed or
				     * crashed on the host: libvirt's stop event "failed") */
	GUEST_END_HOST_LOST,        /* the connection to the guest's host died while it ran (a
				     * remote libvirt daemon stopped, the host or network down) */
};

struct console_scan {
	int panic;             /* a panic/oops/BUG signature was found */
	char signature[160];   /* the first matching line, trimmed */
	char *excerpt;         /* malloc'd lines around it (bounded), NULL when none */
	char *tail;            /* malloc'd last lines of the log (bounded), NULL when empty */
	struct kwarn_list warnings; /* the kernel's warnings (core/kwarn.h): reported, no
				     * outcome of their own */
};

struct outcome_input {
	enum guest_end end;
	int crashed;           /* libvirt reported a guest crash */
	int hello;             /* the agent said hello */
	int done;              /* the agent said done */
	int workloads_failed;  /* workloads that exited non-zero or sent invalid output */
	int workloads_missing; /* workloads the agent never reported */
	double boot_timeout_s, boot_silence_s, progress_timeout_s, total_timeout_s;
	double silence_s, silence_cpu_s; /* the longest silence and the guest's CPU in it (-1) */
	const struct console_scan *console;
	const char *start_error;
	const char *death;     /* how a workload died (collect_death_note), "" or NULL: none */
	/* What the results channel carried that the host ignored (guest.bad_lines): lines it
	 * could not parse or check, and lines over the longest it reads (dropped unread). */
	unsigned bad_lines, long_lines;
	unsigned channel_max_mib, console_max_mib; /* the bounds, for the reasons */
};

const char *outcome_name(enum outcome o);
/* The outcome a report's status names (outcome_name), or -EINVAL. */
int outcome_parse(const char *s, enum outcome *o);
const char *guest_end_name(enum guest_end e);
/* Find the first panic signature in a console log; excerpt bounded to ~16 KiB; the tail of
 * the log kept too (bounded to ~8 KiB), for runs that failed without a panic.  Both are
 * valid UTF-8: a byte that is not becomes '?'.  The kernel's warnings (kwarn_scan) too: the
 * first line of a warning's report is no panic signature, even a "BUG: " one (a soft lockup,
 * sleeping in atomic context, KASAN, KFENCE, lockdep), since the kernel carries on; a panic
 * that follows one (panic_on_warn, softlockup_panic) is still a panic.  -ENOMEM; cs is set
 * (free it with console_scan_free) whatever happens. */
int outcome_scan_console(const char *text, size_t len, struct console_scan *cs);
void console_scan_free(struct console_scan *cs);
/* Decide the outcome; reason is a one-line explanation. */
enum outcome outcome_classify(const struct outcome_input *in, char *reason, size_t len);
/* The report's overall status: the most severe outcome of all runs. */
enum outcome outcome_worst(enum outcome a, enum outcome b);
