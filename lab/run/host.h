/* Where one `lab run` runs its guests: the host, one libvirt connection (this machine's
 * embedded driver, or --connect URI, local or remote) with what the lab learnt of it (versions,
 * CPUs, memory; the KVM verdict and timing model are filled in by run/engine.c).  run/engine.c,
 * run/slot.c and `lab hosts` call down into it; it calls nothing of theirs.  Many hosts are
 * Slurm's business (labd --backend slurm): a run never waits for a host or moves to another,
 * and a host whose connection died stays lost for the rest of the run (lab run --resume
 * completes the job later). */
#pragma once
#include <pthread.h>

#include "core/runreport.h"
#include "virt/virt.h"

/* A remote host's directory for the lab's storage pool "numalab" (artifacts uploaded there,
 * by content hash): `lab run --pool-dir` overrides it. */
#define HOSTS_DEFAULT_POOL_DIR "/var/lib/numalab-pool"

struct host {
	char uri[1024];             /* "" = the embedded driver */
	char class_name[64];        /* a label for the reports (--host-class), "" none */
	char pool_dir[512];         /* a remote host's storage pool directory */
	struct virt_conn vc;
	struct run_host host;       /* as runs on it report it */
	unsigned cpus;
	unsigned long mem_mib;      /* memory a guest can have there when it was opened */
	pthread_mutex_t lock;       /* guards up and why (runs side by side) */
	int inited;                 /* by hosts_init: what hosts_free undoes */
	int opened;                 /* vc open (it may have died since) */
	int up;                     /* connected, and as far as the lab knows alive */
	char why[256];              /* down: why */
};

/* uri NULL or "": the embedded driver; class_name NULL: none; pool_dir NULL: the default. */
int hosts_init(struct host *h, const char *uri, const char *class_name, const char *pool_dir);
/* Closes h; a struct host zeroed and never initialised is left alone. */
void hosts_free(struct host *h);
/* Open h and read what it is (versions, CPUs, memory available); on failure h is down with
 * h->why saying why, and the errno is returned.  -EBUSY: the embedded driver is held by
 * another lab. */
int hosts_connect(struct host *h, const char *state_dir);
/* The libvirt domain name of run index: numalab-PID-INDEX on this machine; on a remote host,
 * which other labs may share, numalab-HOST-PID-INDEX (HOST: 8 hex digits of the sha256 of this
 * machine's name), so that two labs of equal PID never collide there. */
void hosts_domain_name(const struct host *h, unsigned index, char *buf, size_t len);
/* Whether h's connection died (a remote daemon gone). */
int hosts_lost(struct host *h);
/* A run lost h: it stays down for the rest of this lab run, why saying how. */
void hosts_mark_lost(struct host *h, const char *why);
/* 1 when h is up; else 0 with why (the host and how it was lost) in buf. */
int hosts_usable(struct host *h, char *buf, size_t len);
/* `lab hosts`: h opened on its own (not beside a run), as JSON: {"uri","state" up|down|in-use,
 * "why","cpus","memory_mib","qemu_version","timing_models" [the models its cached KVM verdict
 * allows; [] before a first run],"running" [the lab's domains active there]}; closed again.
 * Never fails for a host that is down. */
json_t *hosts_survey(struct host *h, const char *state_dir);
