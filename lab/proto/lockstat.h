/* Lock evidence from a lock-counting twin kernel (CONFIG_LOCK_STAT): the classes the seeds'
 * mechanisms take, read from the guest's /proc/lock_stat before and after a measured window,
 * their deltas sent on the results channel and checked by the host before a report holds
 * them.  The text's format is kernel/locking/lockdep_proc.c's, "lock_stat version 0.4"
 * (Linux 2.6.25 to 6.12 at least): a class line is the name right-aligned in 40 columns
 * ("NAME-W", "NAME-R" when the class was taken both ways), a colon in column 41, then
 * con-bounces, contentions, waittime min/max/total/avg, acq-bounces, acquisitions, holdtime
 * min/max/total/avg, times in microseconds.  Classes of one name from several sites carry
 * "#N", subclasses "/N": they are summed.  Lockdep inflates hold and wait times, so only the
 * counts are comparable, and never with a kernel without it.  Pure. */
#pragma once
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* The largest /proc/lock_stat the agent reads (a few thousand classes). */
#define LOCKSTAT_MAX_TEXT (16u << 20)

enum lockstat_id {
	LOCKSTAT_PAGE_TABLE_LOCK, /* &mm->page_table_lock: PMDs without split PMD locks */
	LOCKSTAT_PTLOCK,          /* ptlock_ptr(ptdesc): the split page-table locks */
	LOCKSTAT_MMAP_LOCK_W,     /* &mm->mmap_lock taken for writing (mmap, munmap) */
	LOCKSTAT_MMAP_LOCK_R,     /* ... for reading (a fault without the per-VMA lock) */
	LOCKSTAT_VMA_LOCK_W,      /* &vma->vm_lock->lock: the per-VMA lock, written */
	LOCKSTAT_VMA_LOCK_R,      /* ... read (try-locked by faults: failures are in vmstat) */
	LOCKSTAT_NR,
};

struct lockstat_class {
	uint64_t con_bounces, contentions, acq_bounces, acquisitions;
	double wait_total_us, hold_total_us;
	int seen;
};

struct lockstat {
	struct lockstat_class c[LOCKSTAT_NR];
};

/* The report's key of class id ("page_table_lock", "ptlock", "mmap_lock_write", ...). */
const char *lockstat_key(enum lockstat_id id);
/* text[0..len) parsed into *out.  -EINVAL when it is not lock_stat version 0.4 text (no
 * twin, or another format): the caller says so rather than sending zeros. */
int lockstat_parse(const char *text, size_t len, struct lockstat *out);
/* {"KEY": {"acquisitions", "contentions", "acq_bounces", "con_bounces", "wait_total_us",
 * "hold_total_us"}} for each class seen in both: the window's deltas (a counter that went
 * down, e.g. /proc/lock_stat cleared in between, gives 0). */
json_t *lockstat_delta_json(const struct lockstat *before, const struct lockstat *after);
/* The host's check of a guest's delta object: known keys only, counts integers 0..2^53,
 * times finite and >= 0.  err names the JSON path below path. */
int lockstat_from_json(const json_t *j, const char *path, struct lockstat *out,
		       struct lab_error *err);
