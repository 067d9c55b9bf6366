/* The lab's one clock for durations: CLOCK_MONOTONIC, so that a changed wall clock never makes
 * a build, a boot or a timeout look longer or shorter than it was. */
#pragma once
#include <stddef.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds. */
double clock_now_s(void);
/* The wall clock now, for records (never durations): ISO 8601 UTC ("2026-12-07T01:00:00Z",
 * 21 bytes with its NUL), and as RFC 5322's Date: field in the local zone (a mail's). */
#define CLOCK_ISO_LEN 32
void clock_utc_iso(char *buf, size_t len);
void clock_rfc5322(char *buf, size_t len);
/* CLOCK_MONOTONIC s seconds from now (now when s <= 0 or NaN): the deadline of a
 * pthread_cond_timedwait on a condition variable set to that clock. */
struct timespec clock_deadline(double s);
/* Sleep s seconds (an interrupted sleep ends early: callers poll). */
void clock_sleep_s(double s);
