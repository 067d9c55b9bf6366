/* The host of one run: see run/host.h. */
#include "run/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/timing.h"
#include "run/accel.h"
#include "run/hostload.h"
#include "util/sha256.h"
#include "virt/volume.h"

int hosts_init(struct host *h, const char *uri, const char *class_name, const char *pool_dir)
{
	memset(h, 0, sizeof(*h));
	h->vc.lock_fd = -1;
	snprintf(h->uri, sizeof(h->uri), "%s", uri ? uri : "");
	snprintf(h->class_name, sizeof(h->class_name), "%s", class_name ? class_name : "");
	snprintf(h->pool_dir, sizeof(h->pool_dir), "%s",
		 pool_dir && pool_dir[0] ? pool_dir : HOSTS_DEFAULT_POOL_DIR);
	h->inited = pthread_mutex_init(&h->lock, NULL) == 0;
	return h->inited ? 0 : -ENOMEM;
}

void hosts_free(struct host *h)
{
	if (!h->inited)
		return;
	virt_close(&h->vc);
	pthread_mutex_destroy(&h->lock);
	memset(h, 0, sizeof(*h));
	h->vc.lock_fd = -1;
}

/* A remote host's memory a guest can have now: free plus what the kernel gives back from its
 * caches (MemAvailable's idea; libvirt reports the parts). */
static unsigned long remote_available_mib(struct virt_conn *vc)
{
	int n = 0;
	virNodeMemoryStatsPtr st = NULL;
	unsigned long long kib = 0;

	if (virNodeGetMemoryStats(vc->conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, NULL, &n, 0) < 0 ||
	    n <= 0 || !(st = calloc((size_t)n, sizeof(*st))))
		return 0;
	if (virNodeGetMemoryStats(vc->conn, VIR_NODE_MEMORY_STATS_ALL_CELLS, st, &n, 0) == 0)
		for (int i = 0; i < n; i++)
			if (!strcmp(st[i].field, VIR_NODE_MEMORY_STATS_FREE) ||
			    !strcmp(st[i].field, VIR_NODE_MEMORY_STATS_BUFFERS) ||
			    !strcmp(st[i].field, VIR_NODE_MEMORY_STATS_CACHED))
				kib += st[i].value;
	free(st);
	return (unsigned long)(kib / 1024);
}

static void host_capacity(struct host *h)
{
	virNodeInfo info;
	unsigned long total = 0, avail = 0;

	int have_info = virNodeGetInfo(h->vc.conn, &info) == 0;

	if (have_info)
		h->cpus = info.cpus;
	if (h->vc.remote) {
		avail = remote_available_mib(&h->vc);
		total = have_info ? info.memory / 1024 : 0;
	} else {
		hostload_memory(&total, &avail);
	}
	h->mem_mib = avail;
	h->host.mem_total_mib = total;
	h->host.mem_available_mib = avail;
}

/* "numalab-" plus, for a remote host, this machine's tag, plus "PID-". */
static void name_prefix(const struct host *h, char *buf, size_t len)
{
	char host[256] = "", hex[65];

	if (!h->vc.remote || gethostname(host, sizeof(host) - 1) < 0 ||
	    sha256_hex(host, strlen(host), hex) < 0) {
		snprintf(buf, len, "numalab-%ld-", (long)getpid());
		return;
	}
	snprintf(buf, len, "numalab-%.8s-%ld-", hex, (long)getpid());
}

void hosts_domain_name(const struct host *h, unsigned index, char *buf, size_t len)
{
	char prefix[64];

	name_prefix(h, prefix, sizeof(prefix));
	snprintf(buf, len, "%s%u", prefix, index);
}

/* The run volumes (run/boot.c: NAME-initrd.cpio, NAME-overlay.qcow2) a dead connection kept
 * this process from deleting. */
static void host_drop_volumes(struct host *h, const char *prefix)
{
	virStoragePoolPtr pool = virStoragePoolLookupByName(h->vc.conn, VOLUME_POOL_NAME);
	virStorageVolPtr *vols = NULL;
	int n;

	if (!pool)
		return;
	virStoragePoolRefresh(pool, 0);
	n = virStoragePoolListAllVolumes(pool, &vols, 0);
	for (int i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);

		if (name && !strncmp(name, prefix, strlen(prefix)))
			virStorageVolDelete(vols[i], 0);
		virStorageVolFree(vols[i]);
	}
	free(vols);
	virStoragePoolFree(pool);
}

/* The lab's own guests a dead connection left on a host that is back: they were started by
 * this process (numalab-PID-N), and nobody else will stop them. */
static void host_reap_ours(struct host *h)
{
	virDomainPtr *doms = NULL;
	char prefix[64];
	int n;

	name_prefix(h, prefix, sizeof(prefix));
	n = virConnectListAllDomains(h->vc.conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && !strncmp(name, prefix, strlen(prefix)))
			virDomainDestroy(doms[i]);
		virDomainFree(doms[i]);
	}
	free(doms);
	host_drop_volumes(h, prefix);
}

int hosts_connect(struct host *h, const char *state_dir)
{
	unsigned long hv = 0, lib = 0;
	int r;

	if (h->opened)
		virt_close(&h->vc);
	h->opened = 0;
	r = virt_open(&h->vc, h->uri, state_dir);
	if (r < 0) {
		h->up = 0;
		snprintf(h->why, sizeof(h->why), "cannot open libvirt: %s",
			 h->vc.last_error[0] ? h->vc.last_error : strerror(-r));
		return r;
	}
	h->opened = h->up = 1;
	h->why[0] = '\0';
	virt_versions(&h->vc, &hv, &lib);
	virt_version_string(hv, h->host.qemu_version, sizeof(h->host.qemu_version));
	virt_version_string(lib, h->host.libvirt_version, sizeof(h->host.libvirt_version));
	snprintf(h->host.uri, sizeof(h->host.uri), "%s", h->vc.uri);
	snprintf(h->host.class_name, sizeof(h->host.class_name), "%s", h->class_name);
	host_capacity(h);
	if (h->vc.remote)
		host_reap_ours(h);
	return 0;
}

int hosts_lost(struct host *h)
{
	return h->vc.remote && h->vc.conn && virConnectIsAlive(h->vc.conn) != 1;
}

void hosts_mark_lost(struct host *h, const char *why)
{
	pthread_mutex_lock(&h->lock);
	if (h->up)
		snprintf(h->why, sizeof(h->why), "%s", why && why[0] ? why : "connection lost");
	h->up = 0;
	pthread_mutex_unlock(&h->lock);
}

int hosts_usable(struct host *h, char *buf, size_t len)
{
	int up;

	pthread_mutex_lock(&h->lock);
	up = h->up;
	if (!up)
		snprintf(buf, len, "the host %s was lost earlier in this run: %s",
			 h->uri[0] ? h->uri : "(embedded driver)", h->why[0] ? h->why : "down");
	pthread_mutex_unlock(&h->lock);
	return up;
}

/* The lab's guests active on h: numalab-* domains, whichever lab started them. */
static json_t *running_domains(struct host *h)
{
	virDomainPtr *doms = NULL;
	json_t *a = json_array();
	int n = virConnectListAllDomains(h->vc.conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);

	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (a && name && !strncmp(name, "numalab-", 8))
			json_array_append_new(a, json_string(name));
		virDomainFree(doms[i]);
	}
	free(doms);
	return a;
}

static json_t *timing_models(struct host *h, const char *state_dir)
{
	struct accel_verdict v;
	json_t *a = json_array();

	if (accel_cached(&h->vc, state_dir, &v) < 0) {
		/* Not probed yet: KVM unknown, unless the host plainly lacks it. */
		if (accel_kvm_offered(&h->vc, v.reason, sizeof(v.reason)))
			return a;
		v.kvm = 0;
	}
	if (v.kvm)
		json_array_append_new(a, json_string(timing_info(TIMING_KVM)->name));
	json_array_append_new(a, json_string(timing_info(TIMING_TCG)->name));
	/* Models with rounds run on the lab's QEMU build, made on this machine only
	 * (run/engine.c): a remote host offers the others. */
	for (int t = TIMING_ICOUNT; t < TIMING__COUNT; t++)
		if (!timing_info(t)->rounds || !h->vc.remote)
			json_array_append_new(a, json_string(timing_info(t)->name));
	return a;
}

json_t *hosts_survey(struct host *h, const char *state_dir)
{
	int r = hosts_connect(h, state_dir);
	const char *state = r == 0 ? "up" : r == -EBUSY ? "in-use" : "down";
	json_t *j = json_pack("{s:s,s:s,s:s,s:b}", "uri", h->uri, "state", state, "why", h->why,
			      "remote", virt_uri_remote(h->uri));

	if (!j || r < 0)
		return j;
	json_object_set_new(j, "cpus", json_integer(h->cpus));
	json_object_set_new(j, "memory_mib", json_integer((json_int_t)h->mem_mib));
	json_object_set_new(j, "qemu_version", json_string(h->host.qemu_version));
	json_object_set_new(j, "timing_models", timing_models(h, state_dir));
	json_object_set_new(j, "running", running_domains(h));
	virt_close(&h->vc);
	h->opened = 0;
	return j;
}
