/* Start a transient guest and watch it: results channel lines, lifecycle events, timeouts.
 * Every way out of guest_run() leaves the domain destroyed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>
#include <libvirt/virterror.h>

#include "util/cleanup.h"
#include "util/clock.h"
#include "util/linesplit.h"
#include "virt/guard.h"
#include "virt/relay.h"
#include "virt/virt.h"

#define GUEST_POLL_MS 50
/* How often the guest's CPU time is read (host-noise accounting, lab/core/hostnoise.h): the
 * last reading before the guest stops is what is kept, so this bounds what is missed. */
#define GUEST_CPU_READ_S 0.5
#define GUEST_READ_CHUNK 65536
#define GUEST_STOP_EVENT_MS 2000

struct guest_state {
	double t_cpu;            /* when the CPU time was last read, -1 never */
	int efd;                 /* written by the lifecycle callback (event-loop thread) */
	virDomainPtr dom;
	unsigned char uuid[VIR_UUID_BUFLEN];
	volatile int uuid_set;
	volatile int stopped;
	volatile int crashed;
	volatile int failed;     /* stopped with detail "failed": QEMU went away by itself */
	volatile int destroyed;  /* stopped with detail "destroyed", and not by the lab */
	struct linesplit split;  /* the results channel's lines, each at most max_line */
	size_t total;
	int got_line;
	double t_last_progress;
	double cpu_last_progress; /* the guest's CPU time then, -1 unknown */
	off_t console_size;      /* while booting: the console's size when last seen grow */
	double t_console;
	int relays;              /* a remote guest: its serial ports come as streams */
	struct relay rl_console, rl_results;
};

static int guest_lifecycle(virConnectPtr c, virDomainPtr d, int event, int detail, void *ud)
{
	struct guest_state *gs = ud;
	unsigned char uuid[VIR_UUID_BUFLEN];
	uint64_t one = 1;

	(void)c;
	/* Events for other domains of a shared connection are not ours. */
	if (!gs->uuid_set || virDomainGetUUID(d, uuid) < 0 ||
	    memcmp(uuid, gs->uuid, VIR_UUID_BUFLEN) != 0)
		return 0;
	if (event == VIR_DOMAIN_EVENT_CRASHED ||
	    (event == VIR_DOMAIN_EVENT_STOPPED && detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED))
		gs->crashed = 1;
	if (event == VIR_DOMAIN_EVENT_STOPPED && detail == VIR_DOMAIN_EVENT_STOPPED_FAILED)
		gs->failed = 1;
	if (event == VIR_DOMAIN_EVENT_STOPPED && detail == VIR_DOMAIN_EVENT_STOPPED_DESTROYED)
		gs->destroyed = 1;
	if (event == VIR_DOMAIN_EVENT_STOPPED) {
		gs->stopped = 1;
		if (write(gs->efd, &one, sizeof(one)) < 0) {
			/* The poll timeout still notices the stop via virDomainIsActive. */
		}
	}
	return 0;
}

/* The silence since the last progress line, kept when it is the longest so far. */
static void guest_silence_note(struct guest_state *gs, double t, struct guest_watch_result *out)
{
	if (!gs->got_line || t - gs->t_last_progress <= out->silence_s)
		return;
	out->silence_s = t - gs->t_last_progress;
	out->silence_cpu_s = gs->cpu_last_progress >= 0 && out->cpu_s >= 0
				     ? out->cpu_s - gs->cpu_last_progress : -1;
}

static void guest_progressed(struct guest_state *gs, double t, struct guest_watch_result *out)
{
	guest_silence_note(gs, t, out);
	gs->t_last_progress = t;
	gs->cpu_last_progress = out->cpu_s;
}

/* What one guest_feed() call hands each line with. */
struct guest_feed_ctx {
	struct guest_state *gs;
	const struct guest_watch *w;
	double t;
	struct guest_watch_result *out;
};

static void guest_on_line(const char *line, size_t len, void *ud)
{
	struct guest_feed_ctx *c = ud;

	if (c->w->on_line(line, len, c->t, c->w->userdata))
		guest_progressed(c->gs, c->t, c->out);
	if (!c->gs->got_line) {
		c->gs->got_line = 1;
		c->out->t_first_line = c->t;
	}
}

/* Feed bytes to the line splitter; calls on_line for each complete line. */
static void guest_feed(struct guest_state *gs, const struct guest_watch *w, const char *buf,
		       size_t n, double t, struct guest_watch_result *out)
{
	struct guest_feed_ctx c = { .gs = gs, .w = w, .t = t, .out = out };

	out->lines_dropped += linesplit_feed(&gs->split, buf, n, guest_on_line, &c);
}

/* Read what the guest appended to the results file since last time. */
static int guest_drain(struct guest_state *gs, const struct guest_watch *w, int *fd, double t,
		       struct guest_watch_result *out)
{
	char buf[GUEST_READ_CHUNK];

	if (*fd < 0) {
		*fd = open(w->results_path, O_RDONLY | O_CLOEXEC);
		if (*fd < 0)
			return 0; /* libvirt has not created it yet */
	}
	for (;;) {
		ssize_t r = read(*fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		if (gs->total + (size_t)r > w->max_total)
			return -EMSGSIZE;
		gs->total += (size_t)r;
		guest_feed(gs, w, buf, (size_t)r, t, out);
	}
}

/* libvirt waits for a stopped QEMU to vanish by polling kill(pid, 0), and a zombie still
 * answers.  When the lab is QEMU's parent (subreaper, see virt_open) nobody else reaps it, so
 * a thread waits for it at once (the connection's reaper, virt/reap.h, polls /proc every
 * 100 ms; whichever takes it first, the other's wait ends); seen here: under a PID 1 that
 * reaps lazily each guest took 1.6 s longer to stop. */
static void *guest_reaper(void *arg)
{
	pid_t pid = (pid_t)(intptr_t)arg;

	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return NULL;
}

static int guest_start_reaper(struct virt_conn *vc, virDomainPtr dom, pthread_t *t)
{
	char path[1200], buf[32] = "";
	_cleanup_close_ int fd = -1;
	ssize_t n;
	struct reap_stat st;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/run/qemu/%s.pid", vc->embed_root, virDomainGetName(dom));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	pid = n > 0 ? (pid_t)atol(buf) : 0;
	/* Only a child of ours can be waited for; anything else is left to its parent. */
	if (pid <= 0 || reap_proc_stat(pid, &st) < 0 || st.ppid != getpid())
		return -ECHILD;
	return -pthread_create(t, NULL, guest_reaper, (void *)(intptr_t)pid);
}

static void guest_destroy(virDomainPtr dom)
{
	/* Destroy is synchronous: when it returns the QEMU process has been reaped. Retry a
	 * few times because it fails with "Device or resource busy" while QEMU is exiting. */
	for (int i = 0; i < 20 && virDomainIsActive(dom) == 1; i++) {
		if (virDomainDestroy(dom) == 0)
			break;
		usleep(100000);
	}
}

/* Before the agent's first line the console is the only sign of life: a big guest may take
 * many minutes to boot under TCG but prints all along, while a hung kernel goes quiet. */
static int guest_console_silent(const struct guest_watch *w, struct guest_state *gs, double el)
{
	struct stat st;

	if (gs->got_line || !w->console_path || w->boot_silence_s <= 0)
		return 0;
	if (stat(w->console_path, &st) == 0 && st.st_size != gs->console_size) {
		gs->console_size = st.st_size;
		gs->t_console = el;
	}
	return el - gs->t_console > w->boot_silence_s;
}

/* Silent past the progress timeout, with the CPU to have spoken (struct guest_watch).  An
 * unknown CPU time counts as had: the wall clock alone decides then. */
static int guest_silent(const struct guest_watch *w, const struct guest_state *gs, double el,
			const struct guest_watch_result *out)
{
	double silence = el - gs->t_last_progress;

	if (!gs->got_line || !(w->progress_timeout_s > 0) || silence <= w->progress_timeout_s)
		return 0;
	if (!(w->progress_min_cpu_s > 0) || gs->cpu_last_progress < 0 || out->cpu_s < 0)
		return 1;
	return out->cpu_s - gs->cpu_last_progress >= w->progress_min_cpu_s ||
	       silence > w->progress_starved_max_s;
}

/* A guest that floods its console fills the host's disk, not the lab's memory (the console is
 * read from its end, boot.c): bounded all the same. */
static int guest_console_overflow(const struct guest_watch *w)
{
	struct stat st;

	return w->max_console && w->console_path && stat(w->console_path, &st) == 0 &&
	       (size_t)st.st_size > w->max_console;
}

static enum guest_end guest_check_timeouts(const struct guest_watch *w, struct guest_state *gs,
					   double el, const struct guest_watch_result *out)
{
	if (w->interrupt && *w->interrupt)
		return GUEST_END_INTERRUPTED;
	if (guest_console_overflow(w))
		return GUEST_END_CONSOLE_OVERFLOW;
	if (!gs->got_line && w->boot_timeout_s > 0 && el > w->boot_timeout_s)
		return GUEST_END_BOOT_TIMEOUT;
	if (guest_console_silent(w, gs, el))
		return GUEST_END_BOOT_SILENT;
	if (guest_silent(w, gs, el, out))
		return GUEST_END_PROGRESS_TIMEOUT;
	if (w->total_timeout_s > 0 && el > w->total_timeout_s)
		return GUEST_END_TOTAL_TIMEOUT;
	return GUEST_END_STOPPED;
}

/* QEMU's CPU time for the guest so far, while it runs (libvirt sums QEMU's threads). */
static void guest_read_cpu(struct guest_state *gs, double el, struct guest_watch_result *out)
{
	virDomainInfo info;

	gs->t_cpu = el;
	if (!gs->stopped && virDomainGetInfo(gs->dom, &info) == 0 && info.cpuTime > 0)
		out->cpu_s = (double)info.cpuTime / 1e9;
}

/* The domain is gone: its stop event, which says how (a QEMU that was killed: "failed"), may
 * still be on its way through the event loop thread. */
static void guest_await_stop_event(struct guest_state *gs)
{
	struct pollfd pfd = { .fd = gs->efd, .events = POLLIN };

	for (int i = 0; i < GUEST_STOP_EVENT_MS / GUEST_POLL_MS && !gs->stopped; i++)
		poll(&pfd, 1, GUEST_POLL_MS);
}

/* A remote guest's serial ports into their local files (virt/relay.h). */
static void guest_pump(struct guest_state *gs)
{
	if (!gs->relays)
		return;
	relay_pump(&gs->rl_console);
	relay_pump(&gs->rl_results);
}

/* After the domain is gone: what was still on its way, until both streams end (bounded). */
static void guest_pump_rest(struct guest_state *gs)
{
	for (int i = 0; gs->relays && i < GUEST_STOP_EVENT_MS / GUEST_POLL_MS; i++) {
		guest_pump(gs);
		if ((gs->rl_console.eof || gs->rl_console.failed) &&
		    (gs->rl_results.eof || gs->rl_results.failed))
			break;
		poll(NULL, 0, GUEST_POLL_MS);
	}
}

/* The remote daemon went away (stopped, host or network down): the guest is out of reach and
 * libvirt's calls fail; keepalive (virt.c) notices a silent peer too. */
static int guest_host_lost(struct virt_conn *vc, struct guest_state *gs,
			   struct guest_watch_result *out)
{
	if (!vc->remote || virConnectIsAlive(vc->conn) == 1)
		return 0;
	out->host_lost = 1;
	snprintf(out->error, sizeof(out->error), "%s: the libvirt connection died (%s)",
		 vc->uri, gs->rl_results.failed || gs->rl_console.failed
				  ? "its console streams failed" : "keepalive or socket");
	return 1;
}

/* A remote guest that looks stopped without the lab stopping it: a daemon going down destroys
 * the guests tied to its connections (AUTODESTROY) and closes them, or closes them first and
 * its calls fail.  Lost when the connection dies within a few seconds; a guest destroyed on a
 * host whose daemon lives on was destroyed by someone there (qemu-failed).  active: what
 * virDomainIsActive() said (-1 an error). */
static void guest_remote_stop(struct virt_conn *vc, struct guest_state *gs, int active,
			      struct guest_watch_result *out)
{
	if (!vc->remote || (gs->stopped && !gs->destroyed && active >= 0))
		return;
	for (int i = 0; i < 3000 / GUEST_POLL_MS; i++) {
		if (guest_host_lost(vc, gs, out)) {
			out->end = GUEST_END_HOST_LOST;
			return;
		}
		poll(NULL, 0, GUEST_POLL_MS);
	}
	if (gs->destroyed)
		out->end = GUEST_END_QEMU_FAILED;
}

static void guest_watch_loop(struct virt_conn *vc, const struct guest_watch *w,
			     struct guest_state *gs, double t0, struct guest_watch_result *out)
{
	_cleanup_close_ int fd = -1;
	struct pollfd pfd = { .fd = gs->efd, .events = POLLIN };

	for (;;) {
		double el;
		enum guest_end e;
		int active;

		poll(&pfd, 1, GUEST_POLL_MS);
		el = clock_now_s() - t0;
		if (gs->t_cpu < 0 || el - gs->t_cpu >= GUEST_CPU_READ_S)
			guest_read_cpu(gs, el, out);
		guest_pump(gs);
		if (guest_drain(gs, w, &fd, el, out) < 0) {
			out->end = GUEST_END_CHANNEL_OVERFLOW;
			break;
		}
		if (guest_host_lost(vc, gs, out)) {
			out->end = GUEST_END_HOST_LOST;
			break;
		}
		active = gs->stopped ? 0 : virDomainIsActive(gs->dom);
		if (active != 1) {
			guest_await_stop_event(gs);
			out->end = gs->failed ? GUEST_END_QEMU_FAILED : GUEST_END_STOPPED;
			guest_remote_stop(vc, gs, active, out);
			break;
		}
		e = guest_check_timeouts(w, gs, el, out);
		if (e != GUEST_END_STOPPED) {
			out->end = e;
			break;
		}
	}
	if (out->end != GUEST_END_HOST_LOST)
		guest_destroy(gs->dom);
	out->t_end = clock_now_s() - t0;
	guest_pump_rest(gs);
	/* What the guest wrote before it stopped still counts. */
	if (out->end != GUEST_END_CHANNEL_OVERFLOW &&
	    guest_drain(gs, w, &fd, out->t_end, out) < 0)
		out->end = GUEST_END_CHANNEL_OVERFLOW;
	guest_silence_note(gs, out->t_end, out);
	out->crashed = gs->crashed;
}

/* A remote guest starts paused: its serial ports are opened as streams before it runs, so
 * not a byte of its boot is lost, then it is resumed. */
static int guest_open_relays(struct virt_conn *vc, const struct guest_watch *w,
			     struct guest_state *gs, struct guest_watch_result *out)
{
	int r;

	if (!w->console_path)
		return -EINVAL;
	r = relay_open(vc->conn, gs->dom, "serial0", w->console_path,
		       w->max_console, &gs->rl_console);
	if (r == 0) {
		r = relay_open(vc->conn, gs->dom, "serial1", w->results_path, w->max_total,
			       &gs->rl_results);
		if (r < 0)
			relay_close(&gs->rl_console);
	}
	if (r == 0) {
		gs->relays = 1;
		if (virDomainResume(gs->dom) < 0)
			r = -EIO;
	}
	if (r < 0)
		snprintf(out->error, sizeof(out->error), "%s: the guest's serial ports: %s",
			 vc->uri, virGetLastErrorMessage());
	return r;
}

int guest_run(struct virt_conn *vc, const struct guest_watch *w,
	      struct guest_watch_result *out)
{
	struct guest_state gs = { .efd = -1, .t_cpu = -1, .cpu_last_progress = -1 };
	struct guard guard = { .pid = 0, .fd = -1 };
	pthread_t reaper;
	int reaper_started = 0;
	int cb = -1, r = 0;
	double t0;

	memset(out, 0, sizeof(*out));
	out->t_first_line = -1;
	out->cpu_s = -1;
	out->silence_cpu_s = -1;
	r = linesplit_init(&gs.split, w->max_line);
	gs.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r < 0 || gs.efd < 0) {
		r = r < 0 ? r : -errno;
		goto cleanup;
	}
	cb = virConnectDomainEventRegisterAny(vc->conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
					      VIR_DOMAIN_EVENT_CALLBACK(guest_lifecycle), &gs,
					      NULL);
	if (vc->embedded && w->name) {
		r = guard_start(&guard, w->name);
		if (r < 0)
			goto cleanup;
	}
	t0 = clock_now_s();
	/* If the lab dies, the guest must die with it: AUTODESTROY ties it to the connection,
	 * except with the embedded driver, which lacks it; there a guard process does it. */
	gs.dom = virDomainCreateXML(vc->conn, w->xml,
				    (vc->embedded ? 0 : VIR_DOMAIN_START_AUTODESTROY) |
					    (vc->remote ? VIR_DOMAIN_START_PAUSED : 0));
	if (!gs.dom) {
		out->end = GUEST_END_START_FAILED;
		snprintf(out->error, sizeof(out->error), "%s", virGetLastErrorMessage());
		out->t_end = clock_now_s() - t0;
		goto cleanup;
	}
	out->t_started = clock_now_s() - t0;
	if (virDomainGetUUID(gs.dom, gs.uuid) == 0)
		gs.uuid_set = 1;
	reaper_started = vc->embedded && guest_start_reaper(vc, gs.dom, &reaper) == 0;
	if (vc->remote && guest_open_relays(vc, w, &gs, out) < 0) {
		out->end = GUEST_END_START_FAILED;
		guest_destroy(gs.dom);
		out->t_end = clock_now_s() - t0;
		goto cleanup;
	}
	guest_watch_loop(vc, w, &gs, t0, out);
cleanup:
	if (reaper_started) {
		struct timespec ts;

		/* The domain is destroyed, so QEMU has exited; do not hang on a surprise. */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 10;
		if (pthread_timedjoin_np(reaper, NULL, &ts) != 0)
			pthread_detach(reaper);
	}
	guard_release(&guard);
	if (gs.relays) {
		relay_close(&gs.rl_console);
		relay_close(&gs.rl_results);
	}
	if (cb >= 0)
		virConnectDomainEventDeregisterAny(vc->conn, cb);
	if (gs.dom)
		virDomainFree(gs.dom);
	if (gs.efd >= 0)
		close(gs.efd);
	linesplit_free(&gs.split);
	return r;
}
