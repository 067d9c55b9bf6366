#include "virt/virt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <libvirt/virterror.h>

#include "util/cleanup.h"
#include "util/fs.h"

/* qemu:///system and qemu:///session are this machine's daemons; a transport ("+ssh",
 * "+tcp", "+tls", "+libssh2" ...) or a host part means another daemon, reached over a socket. */
int virt_uri_remote(const char *uri)
{
	const char *colon = uri ? strchr(uri, ':') : NULL;
	const char *plus = uri ? strchr(uri, '+') : NULL;

	if (!colon)
		return 0;
	if (plus && plus < colon && strncmp(plus, "+unix", 5))
		return 1;
	return strncmp(colon, ":///", 4) != 0;
}

/* Library code never prints: libvirt's default handler writes errors to stderr. */
static void virt_silent_error(void *ud, virErrorPtr e)
{
	(void)ud;
	(void)e;
}

static void virt_save_error(struct virt_conn *vc, const char *what)
{
	snprintf(vc->last_error, sizeof(vc->last_error), "%s: %s", what,
		 virGetLastErrorMessage());
}

static void virt_wake(int timer, void *ud)
{
	(void)ud;
	virEventRemoveTimeout(timer);
}

static void *virt_loop(void *arg)
{
	struct virt_conn *vc = arg;

	while (!vc->loop_quit)
		virEventRunDefaultImpl();
	return NULL;
}

/* The embedded driver reads its own qemu.conf: run QEMU as root, and let QEMU write serial
 * files itself (no virtlogd daemon). */
/* The embedded driver's qemu.conf.  cgroup_controllers = []: by default libvirt gives each
 * vCPU thread a cpu cgroup of its own (and the main loop one for the emulator), and with
 * hundreds of busy vCPU groups on 2 host cores the scheduler's group fairness starved the
 * vCPUs a guest waits for: 4s-512c onlined its 510 CPUs in 156 s, with RCU stalls and CPUs
 * spinning on IPIs that were not answered, against 16-17 s with QEMU's threads in the lab's
 * own cgroup, as a bare QEMU's are.  The lab sets no cgroup limits; CPU time is read from
 * /proc without them. */
static int virt_write_embed_conf(const char *root)
{
	static const char conf[] = "# written by numalab for libvirt's embedded QEMU driver\n"
				   "user = \"root\"\n"
				   "group = \"root\"\n"
				   "stdio_handler = \"file\"\n"
				   "# QEMU runs as root on the lab's own files: no relabelling,\n"
				   "# and no owner to remember in xattrs.\n"
				   "security_driver = \"none\"\n"
				   "remember_owner = 0\n"
				   "# No cgroups: QEMU's threads stay in the lab's, as a bare QEMU's\n"
				   "# would (lab/virt/virt.c says why).\n"
				   "cgroup_controllers = [ ]\n";
	_cleanup_free_ char *etc = fs_join(root, "etc");
	_cleanup_free_ char *path = NULL;
	int r;

	if (!etc)
		return -ENOMEM;
	r = fs_mkdir_p(etc, 0755);
	if (r < 0)
		return r;
	path = fs_join(etc, "qemu.conf");
	if (!path)
		return -ENOMEM;
	return fs_write_atomic(path, conf, sizeof(conf) - 1);
}

/* The pid the lock file names (the lab holding it), 0 when unknown. */
static long virt_lock_owner(int fd)
{
	char buf[32] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	return n > 0 ? strtol(buf, NULL, 10) : 0;
}

/* One lab per embedded root: two embedded drivers on one root corrupt each other's state.
 * The holder writes its pid into the lock file, so that the one refused can name it. */
static int virt_lock_root(struct virt_conn *vc, const char *root)
{
	_cleanup_free_ char *lock = fs_join(root, "numalab.lock");
	char pid[32];
	int n;

	if (!lock)
		return -ENOMEM;
	vc->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (vc->lock_fd < 0)
		return -errno;
	/* A few seconds of patience: the guard of a lab that just died may still be exiting. */
	for (int i = 0; i < 50 && flock(vc->lock_fd, LOCK_EX | LOCK_NB) < 0; i++)
		usleep(100000);
	if (flock(vc->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		long owner = virt_lock_owner(vc->lock_fd);

		if (owner > 0)
			snprintf(vc->last_error, sizeof(vc->last_error),
				 "state directory %s is in use by another lab process (pid %ld); "
				 "one lab at a time per state directory", root, owner);
		else
			snprintf(vc->last_error, sizeof(vc->last_error),
				 "state directory %s is in use by another lab process", root);
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(vc->lock_fd, 0) < 0 || pwrite(vc->lock_fd, pid, (size_t)n, 0) != n) {
		/* Only the message of a lab refused later lacks the pid. */
	}
	return 0;
}

/* Domains still active under our locked root belong to an earlier lab that died. */
static void virt_reap_leftovers(struct virt_conn *vc)
{
	virDomainPtr *doms = NULL;
	int n = virConnectListAllDomains(vc->conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);

	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && strncmp(name, "numalab-", 8) == 0)
			virDomainDestroy(doms[i]);
		virDomainFree(doms[i]);
	}
	free(doms);
}

static int virt_start_loop(struct virt_conn *vc)
{
	static int registered;

	if (!registered) {
		if (virEventRegisterDefaultImpl() < 0)
			return -EIO;
		registered = 1;
	}
	vc->loop_quit = 0;
	if (pthread_create(&vc->loop_thread, NULL, virt_loop, vc) != 0)
		return -EAGAIN;
	vc->loop_started = 1;
	return 0;
}

int virt_open(struct virt_conn *vc, const char *uri, const char *state_dir)
{
	int r;

	memset(vc, 0, sizeof(*vc));
	vc->lock_fd = -1;
	if (!uri || !uri[0]) {
		_cleanup_free_ char *root = fs_join(state_dir, "libvirt");
		_cleanup_free_ char *log = fs_join(state_dir, "libvirt.log");
		char outputs[1200];

		if (!root || !log)
			return -ENOMEM;
		r = fs_mkdir_p(root, 0700);
		if (r < 0)
			return r;
		r = virt_write_embed_conf(root);
		if (r < 0)
			return r;
		r = virt_lock_root(vc, root);
		if (r < 0)
			return r;
		/* The embedded driver logs warnings to stderr; keep them in the state dir.  This
		 * must happen before the first libvirt call, which reads the environment. */
		snprintf(outputs, sizeof(outputs), "3:file:%s", log);
		setenv("LIBVIRT_LOG_OUTPUTS", outputs, 0);
		snprintf(vc->uri, sizeof(vc->uri), "qemu:///embed?root=%s", root);
		snprintf(vc->embed_root, sizeof(vc->embed_root), "%s", root);
		/* libvirt daemonizes QEMU; as a subreaper the lab becomes its parent and can
		 * reap it at once (see guest.c), whatever PID 1 does with orphans. */
		prctl(PR_SET_CHILD_SUBREAPER, 1);
		vc->embedded = 1;
		/* Before virConnectOpen: that is when libvirt probes QEMU's capabilities. */
		r = reap_start(&vc->reaper);
		if (r < 0)
			goto fail;
	} else {
		snprintf(vc->uri, sizeof(vc->uri), "%s", uri);
		vc->remote = virt_uri_remote(uri);
	}
	virSetErrorFunc(NULL, virt_silent_error);
	r = virt_start_loop(vc);
	if (r < 0)
		goto fail;
	vc->conn = virConnectOpen(vc->uri);
	if (!vc->conn) {
		virt_save_error(vc, vc->uri);
		r = -EIO;
		goto fail;
	}
	if (vc->embedded)
		virt_reap_leftovers(vc);
	/* A host that goes away without closing the socket (power, network) is noticed within
	 * about 5 x 3 s instead of at the next call's TCP timeout. */
	if (vc->remote && virConnectSetKeepAlive(vc->conn, 5, 3) < 0) {
		virt_save_error(vc, "keepalive");
		r = -EIO;
		goto fail;
	}
	return 0;
fail:
	virt_close(vc);
	return r;
}

void virt_close(struct virt_conn *vc)
{
	if (vc->pool) {
		virStoragePoolFree(vc->pool);
		vc->pool = NULL;
	}
	if (vc->conn) {
		virConnectClose(vc->conn);
		vc->conn = NULL;
	}
	if (vc->loop_started) {
		vc->loop_quit = 1;
		/* A zero timeout makes virEventRunDefaultImpl return so the thread sees quit. */
		virEventAddTimeout(0, virt_wake, NULL, NULL);
		pthread_join(vc->loop_thread, NULL);
		vc->loop_started = 0;
	}
	reap_stop(&vc->reaper);
	if (vc->lock_fd >= 0) {
		close(vc->lock_fd);
		vc->lock_fd = -1;
	}
}

int virt_versions(struct virt_conn *vc, unsigned long *hv, unsigned long *lib)
{
	if (virConnectGetVersion(vc->conn, hv) < 0 || virConnectGetLibVersion(vc->conn, lib) < 0) {
		virt_save_error(vc, "version");
		return -EIO;
	}
	return 0;
}

void virt_version_string(unsigned long v, char *buf, size_t len)
{
	snprintf(buf, len, "%lu.%lu.%lu", v / 1000000, (v / 1000) % 1000, v % 1000);
}

int virt_max_vcpus(struct virt_conn *vc, const char *virttype)
{
	_cleanup_free_ char *xml = virConnectGetDomainCapabilities(vc->conn, NULL, "x86_64", "q35",
								     virttype, 0);
	const char *p;
	int max;

	if (!xml) {
		virt_save_error(vc, "domain capabilities");
		return -ENOTSUP;
	}
	p = strstr(xml, "<vcpu max='");
	if (!p || sscanf(p + 11, "%d", &max) != 1)
		return -EPROTO;
	return max;
}
