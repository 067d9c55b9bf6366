/* Booting from a disk image (PROTOCOL.md, "Booting from a disk image").
 *
 * Stage 1 is the agent as /init of the lab's small per-run initramfs: it loads the disk and
 * file-system drivers the initramfs carries, mounts the image's root, puts the job in a tmpfs
 * /run there and executes the image's init, which is the agent again (stage 2).  Stage 2 keeps
 * its log and every results line on the disk too, each write fdatasync'd, so that the host
 * can recover them from the disk after a panic or a hang. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#define RT_STAGE1_CONFIG "/numalab/stage1.json"
#define RT_STAGE1_JOB "/numalab/job.json"
#define RT_DISK_JOB "/run/numalab/job.json"
#define RT_DISK_OUT "/numalab/out"

/* Stage 1.  Returns 0 at once when RT_STAGE1_CONFIG does not exist (this is not stage 1);
 * otherwise it only returns on failure, with a negative errno and err saying what failed. */
int rt_stage1(char *err, size_t len);
/* Stage 2: 1 when the job was handed over by stage 1 (the agent runs from a disk). */
int rt_disk_booted(void);
/* Create RT_DISK_OUT and open agent.log and results.jsonl in it.  0 or -errno. */
int rt_disk_open(void);
/* Append to the disk's log / results file and fdatasync; no-ops until rt_disk_open. */
void rt_disk_log(const char *buf, size_t n);
void rt_disk_result(const json_t *j);
/* {"source": "/dev/vda1", "fstype": "ext4"} of the file system at /, from
 * /proc/self/mountinfo; NULL when it cannot be read. */
json_t *rt_root_json(void);
