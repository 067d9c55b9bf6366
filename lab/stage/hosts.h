/* The hosts one `lab run` uses: its own (the embedded driver, or --connect URI), or a pool
 * (core/hostpool.h), each a libvirt connection with what the lab decided about it (KVM or
 * TCG, the timing model, capacity).  Runs take a host for each attempt and give it back;
 * a host whose connection died is down, retried with back-off, and a run waits for a host
 * of its class at most HOSTS_WAIT_MAX_S while none is up. */
#pragma once
#include <pthread.h>
#include <signal.h>

#include "core/hostpool.h"
#include "core/runreport.h"
#include "virt/virt.h"

#define HOSTS_BACKOFF_MIN_S 5
#define HOSTS_BACKOFF_MAX_S 60
#define HOSTS_WAIT_MAX_S 300

struct host_member {
	struct hostpool_entry cfg;  /* name "" and class "": the lab's only host, no pool */
	struct virt_conn vc;
	struct run_host host;       /* as runs on it report it */
	int opened;                 /* vc open (it may have died since) */
	int up;                     /* connected, and as far as the lab knows alive */
	int usable;                 /* in the job's class, with the job's timing model, memory */
	char why[256];              /* down or not usable: why */
	double down_since, retry_at;
	unsigned backoff_s;
	unsigned slots, running, runs; /* guests at once there; now; started there in all */
	unsigned cpus;
	unsigned long mem_mib;      /* the host's memory (capped by cfg), free when opened */
	unsigned long long up_bytes; /* artifacts uploaded, and the uploads and cache hits */
	unsigned uploads, hits;
	double up_s;
};

struct hosts {
	struct host_member *m;
	unsigned n;
	int pool;                   /* from a pool file */
	double wait_max_s;
	pthread_mutex_t lock;
	pthread_cond_t cond;        /* a host was given back or came back */
};

/* A pool file (core/hostpool.h) read and checked; err names the file and the JSON path. */
int hosts_load_file(const char *path, struct hostpool *p, struct lab_error *err);
/* One member, the lab's own host (uri NULL or "": the embedded driver). */
int hosts_init_single(struct hosts *h, const char *uri);
int hosts_init_pool(struct hosts *h, const struct hostpool *p);
void hosts_free(struct hosts *h);
/* Open member m and read what it is (versions, CPUs, free memory); on failure m is down with
 * m->why saying why, and the errno is returned. */
int hosts_connect(struct host_member *m, const char *state_dir);
/* A host for one attempt: a usable one that is up with a free slot, the least busy first and
 * never avoid when another will do.  Waits while they are busy; while none is up, reconnects
 * those due and gives up after h->wait_max_s with -EHOSTDOWN and why saying what each host
 * is.  -EINTR when interrupted. */
int hosts_acquire(struct hosts *h, const struct host_member *avoid, const char *state_dir,
		  volatile sig_atomic_t *interrupt, struct host_member **out, char *why,
		  size_t len);
/* The attempt is over; lost: its connection died (the host is down from now, why says how). */
void hosts_release(struct hosts *h, struct host_member *m, int lost, const char *why);
/* The libvirt domain name of run index on m: numalab-PID-INDEX on this machine; on a remote
 * host, which other labs may share, numalab-HOST-PID-INDEX (HOST: 8 hex digits of the sha256
 * of this machine's name), so that two labs of equal PID never collide there. */
void hosts_domain_name(const struct host_member *m, unsigned index, char *buf, size_t len);
/* Whether m's connection died (a remote daemon gone). */
int hosts_lost(struct host_member *m);
/* `lab hosts`: member m opened on its own (not beside a run), as JSON: {"name","uri","class",
 * "state" up|down|in-use, "why","cpus","memory_mib","qemu_version","timing_models" [the
 * models its cached KVM verdict allows; [] before a first run], "guests","pool_dir",
 * "running" [the lab's domains active there]}.  Never fails for a host that is down. */
json_t *hosts_survey(struct host_member *m, const char *state_dir);
/* {"name","uri","class","state","why","cpus","memory_mib","slots","running","runs",
 * "timing","uploads","upload_hits","upload_mib","upload_s"}. */
json_t *hosts_member_json(const struct host_member *m);
