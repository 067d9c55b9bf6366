/* The host pool: the libvirt hosts a lab may run guests on (`lab run --hosts FILE`, labd's
 * `--hosts FILE`, `lab hosts`).  One converter from JSON to these structs.  Pure.
 *
 * HOSTS.json:
 *   {"hosts": [
 *     {"name": "here",                      [a-z0-9._-], unique; in reports as host.name
 *      "uri": "",                           "" : the lab's own embedded driver (at most one);
 *                                           else a libvirt URI: qemu:///system, qemu+ssh://h/system,
 *                                           qemu+tls://h/system, qemu+tcp://127.0.0.1:N/system
 *      "class": "epyc-2s",                  hosts of one class have the same hardware and
 *                                           software; A and B of a comparison run on one class
 *      "pool_dir": "/var/lib/numalab-pool", a remote host's directory for the lab's libvirt
 *                                           storage pool (artifacts uploaded there, by hash)
 *      "guests": 1,                         measuring guests at once there (1..64; more only
 *                                           where the timing model allows, lab/core/timing.h)
 *      "memory_mib": 0, "vcpus": 0}]}       caps below what libvirt reports (0: none)
 * Errors name the JSON path ("hosts[1].uri: must be a string"). */
#pragma once
#include <jansson.h>
#include <limits.h>

#include "util/error.h"

#define HOSTPOOL_MAX 32
#define HOSTPOOL_DEFAULT_POOL_DIR "/var/lib/numalab-pool"

struct hostpool_entry {
	char name[64];
	char uri[1024];          /* "" = the embedded driver */
	char class_name[64];
	char pool_dir[512];
	unsigned guests;
	unsigned long memory_mib; /* 0: what libvirt reports */
	unsigned vcpus;           /* 0: what libvirt reports */
};

struct hostpool {
	unsigned n;
	struct hostpool_entry hosts[HOSTPOOL_MAX];
};

int hostpool_from_json(const json_t *j, struct hostpool *p, struct lab_error *err);
/* The pool as JSON again (sorted keys when dumped): what `lab hosts --json` starts from. */
json_t *hostpool_entry_json(const struct hostpool_entry *e);
/* Whether uri reaches another libvirt daemon by a transport (qemu+ssh://, qemu+tcp://h/,
 * qemu://host/...), so that artifacts must travel through libvirt; loopback counts. */
int hostpool_uri_remote(const char *uri);
