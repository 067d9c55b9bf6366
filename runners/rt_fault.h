/* The hostile-guest faults (lab/proto/fault.h): what the agent sends when a job's "debug"
 * asks it to flood or garble the results channel or the console.  Tests of the host's
 * bounds only; a real job never asks for them. */
#pragma once
#include "proto/fault.h"

/* Perform f on the results channel fd `channel` or the console fd `console`: 1 when f is one
 * of the hostile faults (done, or given up at the first failed write, which a host that
 * stopped reading causes), 0 for any other fault (nothing done). */
int rt_fault_hostile(enum fault f, int channel, int console);
