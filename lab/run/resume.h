/* `lab run --resume` in the engine (lab/run/engine.c; the plan is lab/core/runresume.h): before
 * any run starts, the earlier report's runs are kept and the runs that were under way when the
 * lab was stopped recorded as interrupted, so that a lab stopped again loses neither. */
#pragma once

struct run_ctx;

/* Marks the slots of kept and interrupted runs as ended (the engine does not start them) and
 * writes each interrupted run's record: status infra-error, end "interrupted", this lab's
 * host and the run's kernel, its console.log named when the stopped run left one.  0 without
 * c->o->resume. */
int resume_slots(struct run_ctx *c);
