/* Artifacts for a remote libvirt host: files uploaded through libvirt's storage API into a
 * directory pool the lab owns there ("numalab"), so that a host needs libvirtd with QEMU and
 * nothing of numalab (no scp, no shared file system).  Cached volumes are named by their
 * content's sha256; a marker volume NAME.ok, created once the upload finished, tells a
 * complete one from one cut off mid-upload.  Knows nothing of jobs. */
#pragma once
#include <stddef.h>

#include "virt/virt.h"

#define VOLUME_POOL_NAME "numalab"

struct volume_upload {
	char name[160];     /* the volume's name in the pool */
	char path[1024];    /* its path on the remote host, for the domain XML */
	int hit;            /* already there (cached by content hash) */
	unsigned long long bytes;
	double seconds;     /* hashing excluded; the upload, or the lookup of a hit */
};

/* The pool "numalab" at dir on the host: looked up, else defined, built and started. */
int volume_pool_ensure(struct virt_conn *vc, const char *dir);
/* Upload local_path as a cached volume "SHA256-suffix" (suffix: a short name such as
 * "bzImage"), unless a complete one is there.  sha256: the file's, when the caller knows it
 * (NULL: computed).  vc->last_error says what failed. */
int volume_put_cached(struct virt_conn *vc, const char *local_path, const char *sha256,
		      const char *suffix, struct volume_upload *out);
/* Upload local_path as volume name, replacing one of that name (a run's own files). */
int volume_put(struct virt_conn *vc, const char *local_path, const char *name,
	       struct volume_upload *out);
/* Delete volume name of the pool (missing is fine). */
int volume_delete(struct virt_conn *vc, const char *name);
/* Copy volume name to local_path (a run's disk overlay back, for its post-mortem). */
int volume_get(struct virt_conn *vc, const char *name, const char *local_path);
/* A qcow2 volume name whose backing file is the volume at backing_path (on the host): a run's
 * disk overlay there.  out->path is set. */
int volume_overlay(struct virt_conn *vc, const char *name, const char *backing_path,
		   unsigned long long capacity, struct volume_upload *out);
