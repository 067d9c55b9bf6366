/* Thin layer over libvirt: a connection (embedded driver by default) with its event loop, and
 * a guest that is started, watched and always destroyed.  Knows nothing of jobs or reports. */
#pragma once
#include <libvirt/libvirt.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>

#include "core/outcome.h"
#include "virt/reap.h"

struct virt_conn {
	virConnectPtr conn;
	char uri[1024];
	int embedded;
	int remote;                 /* another daemon over a transport (virt_uri_remote): files
				     * travel as storage volumes (virt/volume.h), the serial ports
				     * as console streams */
	virStoragePoolPtr pool;     /* the lab's pool there, once volume_pool_ensure() ran */
	char embed_root[1024];
	int lock_fd;
	pthread_t loop_thread;
	int loop_started;
	volatile int loop_quit;
	struct virt_reaper reaper;  /* embedded driver: QEMU zombies reaped (virt/reap.h) */
	char last_error[512];
};

/* Open uri, or, when uri is NULL or empty, `qemu:///embed?root=STATE_DIR/libvirt` after
 * writing the embedded driver's qemu.conf.  The embedded root is locked (one lab per state
 * dir) and any domain a crashed earlier lab left running there is destroyed. */
int virt_open(struct virt_conn *vc, const char *uri, const char *state_dir);
void virt_close(struct virt_conn *vc);
/* Whether uri reaches another libvirt daemon by a transport (qemu+ssh://, qemu+tcp://h/,
 * qemu://host/...), so that artifacts must travel through libvirt; loopback counts.  NULL and
 * "" (the embedded driver) are not remote. */
int virt_uri_remote(const char *uri);
/* Versions as major*1000000+minor*1000+micro. */
int virt_versions(struct virt_conn *vc, unsigned long *hv, unsigned long *lib);
/* Max vCPUs the hypervisor allows for a q35 guest of virttype "qemu" or "kvm"; < 0 errno. */
int virt_max_vcpus(struct virt_conn *vc, const char *virttype);
void virt_version_string(unsigned long v, char *buf, size_t len);


/* Called for each complete line on the results channel (no newline; NUL-terminated).
 * Returning non-zero marks the line as progress (heartbeats, results). */
typedef int (*guest_line_fn)(const char *line, size_t len, double t_s, void *userdata);

struct guest_watch {
	const char *xml;
	const char *name;             /* the domain's name in xml (for the guard process) */
	const char *results_path;     /* the file the guest's results serial port writes (on a
				       * remote host: the lab writes it from the port's stream) */
	double boot_timeout_s;        /* until the first line */
	const char *console_path;     /* the console file, watched while booting (may be NULL) */
	double boot_silence_s;        /* before the first line, console silence this long ends
				       * the boot; 0 = not watched */
	double progress_timeout_s;    /* between lines once the first arrived */
	/* A silence counts as a hang only once the guest also had this much host CPU in it, or
	 * lasted progress_starved_max_s: a guest the host does not run cannot send a line, and
	 * a busy host is no reason to call it hung.  0 = the wall-clock silence alone. */
	double progress_min_cpu_s;
	double progress_starved_max_s;
	double total_timeout_s;       /* 0 = none */
	size_t max_line;              /* longer lines are dropped (counted in lines_dropped) */
	size_t max_total;             /* channel bytes accepted */
	size_t max_console;           /* console bytes accepted (0 = no bound; needs
				       * console_path) */
	guest_line_fn on_line;
	void *userdata;
	volatile sig_atomic_t *interrupt;
};

/* What the watcher saw of one guest run; enum outcome (core/outcome.h) is decided from it. */
struct guest_watch_result {
	enum guest_end end;
	int crashed;         /* libvirt reported a guest crash (pvpanic) */
	double t_first_line; /* seconds from start, -1 when none */
	double t_started;    /* seconds from start until libvirt had QEMU running (its domain
			      * start returned): libvirt's and QEMU's start-up; 0: it failed */
	double t_end;        /* seconds from start until the domain was gone */
	unsigned lines_dropped;
	double cpu_s;        /* CPU seconds QEMU used for the guest (libvirt's cpuTime, last read
			      * while it ran); -1 unknown */
	double silence_s;    /* the longest wait between progress lines after the first (or
			      * until the end), and the guest's CPU seconds in it (-1 unknown) */
	double silence_cpu_s;
	int host_lost;       /* the connection to the host died while the guest ran */
	char error[512];
};

/* Start a transient, auto-destroyed domain from w->xml and watch it until it stops or a
 * timeout fires; on every path out the domain is destroyed.  Returns 0 when the guest ran
 * (whatever it did, see out->end) and a negative errno for lab-side failures. */
int guest_run(struct virt_conn *vc, const struct guest_watch *w,
	      struct guest_watch_result *out);
