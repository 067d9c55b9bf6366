/* The hosts of one run: see hosts.h. */
#include "stage/hosts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/timing.h"
#include "stage/accel.h"
#include "stage/run.h"
#include "util/cleanup.h"
#include "util/clock.h"
#include "util/jsonio.h"
#include "util/sha256.h"
#include "virt/volume.h"

int hosts_load_file(const char *path, struct hostpool *p, struct lab_error *err)
{
	_cleanup_json_ json_t *j = NULL;
	int r = jsonio_load_file(path, 1 << 20, &j, err);

	error_set_file(err, path);
	return r < 0 ? r : hostpool_from_json(j, p, err);
}

static int hosts_alloc(struct hosts *h, unsigned n)
{
	memset(h, 0, sizeof(*h));
	h->m = calloc(n, sizeof(*h->m));
	if (!h->m)
		return -ENOMEM;
	h->n = n;
	h->wait_max_s = HOSTS_WAIT_MAX_S;
	for (unsigned i = 0; i < n; i++)
		h->m[i].vc.lock_fd = -1;
	pthread_mutex_init(&h->lock, NULL);
	pthread_cond_init(&h->cond, NULL);
	return 0;
}

int hosts_init_single(struct hosts *h, const char *uri)
{
	int r = hosts_alloc(h, 1);

	if (r < 0)
		return r;
	snprintf(h->m[0].cfg.uri, sizeof(h->m[0].cfg.uri), "%s", uri ? uri : "");
	h->m[0].cfg.guests = 1;
	return 0;
}

int hosts_init_pool(struct hosts *h, const struct hostpool *p)
{
	int r = hosts_alloc(h, p->n);

	if (r < 0)
		return r;
	h->pool = 1;
	for (unsigned i = 0; i < p->n; i++)
		h->m[i].cfg = p->hosts[i];
	return 0;
}

void hosts_free(struct hosts *h)
{
	for (unsigned i = 0; h->m && i < h->n; i++)
		virt_close(&h->m[i].vc);
	free(h->m);
	if (h->n) {
		pthread_cond_destroy(&h->cond);
		pthread_mutex_destroy(&h->lock);
	}
	memset(h, 0, sizeof(*h));
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

static void member_capacity(struct host_member *m)
{
	virNodeInfo info;
	unsigned long total = 0, avail = 0;

	int have_info = virNodeGetInfo(m->vc.conn, &info) == 0;

	if (have_info)
		m->cpus = info.cpus;
	if (m->vc.remote) {
		avail = remote_available_mib(&m->vc);
		total = have_info ? info.memory / 1024 : 0;
	} else {
		run_host_memory(&total, &avail);
	}
	if (m->cfg.memory_mib && (!avail || avail > m->cfg.memory_mib))
		avail = m->cfg.memory_mib;
	if (m->cfg.vcpus && (!m->cpus || m->cpus > m->cfg.vcpus))
		m->cpus = m->cfg.vcpus;
	m->mem_mib = avail;
	m->host.mem_total_mib = total;
	m->host.mem_available_mib = avail;
}

/* "numalab-" plus, for a remote host, this machine's tag, plus "PID-". */
static void name_prefix(const struct host_member *m, char *buf, size_t len)
{
	char host[256] = "", hex[65];

	if (!m->vc.remote || gethostname(host, sizeof(host) - 1) < 0 ||
	    sha256_hex(host, strlen(host), hex) < 0) {
		snprintf(buf, len, "numalab-%ld-", (long)getpid());
		return;
	}
	snprintf(buf, len, "numalab-%.8s-%ld-", hex, (long)getpid());
}

void hosts_domain_name(const struct host_member *m, unsigned index, char *buf, size_t len)
{
	char prefix[64];

	name_prefix(m, prefix, sizeof(prefix));
	snprintf(buf, len, "%s%u", prefix, index);
}

/* The run volumes (stage/boot.c: NAME-initrd.cpio, NAME-overlay.qcow2) a dead connection kept
 * this process from deleting. */
static void member_drop_volumes(struct host_member *m, const char *prefix)
{
	virStoragePoolPtr pool = virStoragePoolLookupByName(m->vc.conn, VOLUME_POOL_NAME);
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
static void member_reap_ours(struct host_member *m)
{
	virDomainPtr *doms = NULL;
	char prefix[64];
	int n;

	name_prefix(m, prefix, sizeof(prefix));
	n = virConnectListAllDomains(m->vc.conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && !strncmp(name, prefix, strlen(prefix)))
			virDomainDestroy(doms[i]);
		virDomainFree(doms[i]);
	}
	free(doms);
	member_drop_volumes(m, prefix);
}

int hosts_connect(struct host_member *m, const char *state_dir)
{
	unsigned long hv = 0, lib = 0;
	int r;

	if (m->opened)
		virt_close(&m->vc);
	m->opened = 0;
	r = virt_open(&m->vc, m->cfg.uri, state_dir);
	if (r < 0) {
		m->up = 0;
		snprintf(m->why, sizeof(m->why), "cannot open libvirt: %s",
			 m->vc.last_error[0] ? m->vc.last_error : strerror(-r));
		return r;
	}
	m->opened = m->up = 1;
	m->why[0] = '\0';
	virt_versions(&m->vc, &hv, &lib);
	virt_version_string(hv, m->host.qemu_version, sizeof(m->host.qemu_version));
	virt_version_string(lib, m->host.libvirt_version, sizeof(m->host.libvirt_version));
	snprintf(m->host.uri, sizeof(m->host.uri), "%s", m->vc.uri);
	snprintf(m->host.name, sizeof(m->host.name), "%s", m->cfg.name);
	snprintf(m->host.class_name, sizeof(m->host.class_name), "%s", m->cfg.class_name);
	member_capacity(m);
	if (m->vc.remote)
		member_reap_ours(m);
	return 0;
}

int hosts_lost(struct host_member *m)
{
	return m->vc.remote && m->vc.conn && virConnectIsAlive(m->vc.conn) != 1;
}

void hosts_release(struct hosts *h, struct host_member *m, int lost, const char *why)
{
	double now = clock_now_s();

	pthread_mutex_lock(&h->lock);
	m->running--;
	if (lost && m->up) {
		m->up = 0;
		m->down_since = now;
		m->backoff_s = HOSTS_BACKOFF_MIN_S;
		m->retry_at = now + m->backoff_s;
		snprintf(m->why, sizeof(m->why), "%s", why && why[0] ? why : "connection lost");
	}
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->lock);
}

/* Under h->lock: the usable member up with a free slot and the fewest guests for its slots
 * (then the fewest runs, so that repetitions spread), avoid only when nothing else is free. */
static struct host_member *pick(struct hosts *h, const struct host_member *avoid)
{
	struct host_member *best = NULL;

	for (int pass = 0; pass < 2 && !best; pass++)
		for (unsigned i = 0; i < h->n; i++) {
			struct host_member *m = &h->m[i];

			if (!m->usable || !m->up || m->running >= m->slots ||
			    (pass == 0 && m == avoid))
				continue;
			if (!best || m->running * best->slots < best->running * m->slots ||
			    (m->running * best->slots == best->running * m->slots &&
			     m->runs < best->runs))
				best = m;
		}
	return best;
}

/* Under h->lock, which it drops while connecting: members down and due are tried again;
 * returns whether any usable member is up. */
static int revive(struct hosts *h, const char *state_dir)
{
	double now = clock_now_s();
	int any = 0;

	for (unsigned i = 0; i < h->n; i++) {
		struct host_member *m = &h->m[i];

		if (!m->usable || m->up || m->running || now < m->retry_at)
			continue;
		m->retry_at = now + 3600; /* nobody else tries it meanwhile */
		pthread_mutex_unlock(&h->lock);
		int r = hosts_connect(m, state_dir);
		pthread_mutex_lock(&h->lock);
		if (r == 0) {
			pthread_cond_broadcast(&h->cond);
			continue;
		}
		m->backoff_s = m->backoff_s * 2 > HOSTS_BACKOFF_MAX_S ? HOSTS_BACKOFF_MAX_S
								   : m->backoff_s * 2;
		m->retry_at = clock_now_s() + m->backoff_s;
	}
	for (unsigned i = 0; i < h->n; i++)
		any |= h->m[i].usable && h->m[i].up;
	return any;
}

static void why_none(struct hosts *h, double waited, char *why, size_t len)
{
	size_t used = (size_t)snprintf(why, len, "no host up for %.0f s:", waited);

	for (unsigned i = 0; i < h->n && used < len; i++)
		if (h->m[i].usable)
			used += (size_t)snprintf(why + used, len - used, " %s (%s): %s;",
						 h->m[i].cfg.name, h->m[i].cfg.uri,
						 h->m[i].why[0] ? h->m[i].why : "down");
}

int hosts_acquire(struct hosts *h, const struct host_member *avoid, const char *state_dir,
		  volatile sig_atomic_t *interrupt, struct host_member **out, char *why,
		  size_t len)
{
	double t0 = clock_now_s(), none_since = -1;
	int r = 0;

	pthread_mutex_lock(&h->lock);
	for (;;) {
		struct host_member *m = pick(h, avoid);
		struct timespec ts;

		if (m) {
			m->running++;
			m->runs++;
			*out = m;
			break;
		}
		if (interrupt && *interrupt) {
			r = -EINTR;
			break;
		}
		if (revive(h, state_dir)) {
			none_since = -1;
		} else {
			double now = clock_now_s();

			if (none_since < 0)
				none_since = now;
			if (now - none_since > h->wait_max_s) {
				why_none(h, now - t0, why, len);
				r = -EHOSTDOWN;
				break;
			}
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&h->cond, &h->lock, &ts);
	}
	pthread_mutex_unlock(&h->lock);
	return r;
}

json_t *hosts_member_json(const struct host_member *m)
{
	const char *state = !m->opened && !m->why[0] ? "unknown"
			    : m->up			? (m->running ? "busy" : "up")
							: "down";

	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:s,s:I,s:I,s:f,s:f}",
			 "name", m->cfg.name, "uri", m->cfg.uri, "class", m->cfg.class_name,
			 "state", state, "why", m->why, "cpus", (json_int_t)m->cpus,
			 "memory_mib", (json_int_t)m->mem_mib, "slots", (json_int_t)m->slots,
			 "running", (json_int_t)m->running, "runs", (json_int_t)m->runs,
			 "timing", m->host.accel[0] ? timing_info(m->host.timing)->name : "",
			 "uploads", (json_int_t)m->uploads, "upload_hits", (json_int_t)m->hits,
			 "upload_mib", (double)m->up_bytes / (1 << 20), "upload_s", m->up_s);
}

/* The lab's guests active on m: numalab-* domains, whichever lab started them. */
static json_t *running_domains(struct host_member *m)
{
	virDomainPtr *doms = NULL;
	json_t *a = json_array();
	int n = virConnectListAllDomains(m->vc.conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);

	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (a && name && !strncmp(name, "numalab-", 8))
			json_array_append_new(a, json_string(name));
		virDomainFree(doms[i]);
	}
	free(doms);
	return a;
}

static json_t *timing_models(struct host_member *m, const char *state_dir)
{
	struct accel_verdict v;
	json_t *a = json_array();

	if (accel_cached(&m->vc, state_dir, &v) < 0) {
		/* Not probed yet: KVM unknown, unless the host plainly lacks it. */
		if (accel_kvm_offered(&m->vc, v.reason, sizeof(v.reason)))
			return a;
		v.kvm = 0;
	}
	if (v.kvm)
		json_array_append_new(a, json_string(timing_info(TIMING_KVM)->name));
	json_array_append_new(a, json_string(timing_info(TIMING_TCG)->name));
	/* Models with rounds run on the lab's QEMU build, made on this machine only
	 * (stage/run.c): a remote host offers the others. */
	for (int t = TIMING_ICOUNT; t < TIMING__COUNT; t++)
		if (!timing_info(t)->rounds || !m->vc.remote)
			json_array_append_new(a, json_string(timing_info(t)->name));
	return a;
}

json_t *hosts_survey(struct host_member *m, const char *state_dir)
{
	int r = hosts_connect(m, state_dir);
	const char *state = r == 0 ? "up" : r == -EBUSY ? "in-use" : "down";
	json_t *j = json_pack("{s:s,s:s,s:s,s:s,s:s,s:I,s:s}", "name", m->cfg.name, "uri",
			      m->cfg.uri, "class", m->cfg.class_name, "state", state, "why",
			      m->why, "guests", (json_int_t)m->cfg.guests, "pool_dir",
			      m->cfg.pool_dir);

	if (!j || r < 0)
		return j;
	json_object_set_new(j, "cpus", json_integer(m->cpus));
	json_object_set_new(j, "memory_mib", json_integer((json_int_t)m->mem_mib));
	json_object_set_new(j, "qemu_version", json_string(m->host.qemu_version));
	json_object_set_new(j, "timing_models", timing_models(m, state_dir));
	json_object_set_new(j, "running", running_domains(m));
	virt_close(&m->vc);
	m->opened = 0;
	return j;
}
