/* The lab's one clock for durations: CLOCK_MONOTONIC, so that a changed wall clock never makes
 * a build, a boot or a timeout look longer or shorter than it was. */
#pragma once

/* CLOCK_MONOTONIC in seconds. */
double clock_now_s(void);
/* Sleep s seconds (an interrupted sleep ends early: callers poll). */
void clock_sleep_s(double s);
