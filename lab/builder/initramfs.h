/* The guest's initramfs: the agent as /init, the runners, and the job. */
#pragma once
#include <jansson.h>

/* Directory of the static guest programs: $LAB_RUNNERS_DIR, else runners/ beside the lab
 * binary (build/runners), else an installed lab's (util/checkout.h).  Caller frees. */
char *initramfs_runners_dir(void);
/* Write a newc archive to out_path holding runners_dir/agent as /init, every other program of
 * runners_dir under /numalab/bin/, and guestjob as /numalab/job.json. */
int initramfs_write(const char *runners_dir, const json_t *guestjob, const char *kernel_config,
		    const char *out_path);
