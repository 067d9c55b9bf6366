/* labd: the lab as a daemon.  A durable queue of jobs (queue.h), an HTTP/JSON API on a unix
 * socket and optionally TCP with a bearer token (api.h), and a worker that runs one job at a
 * time through `lab run` (worker.h).  One labd per state directory (a lock).  SIGTERM/SIGINT:
 * stop accepting, let the job under way go on for the grace period, else interrupt it (it
 * continues with its next run when labd starts again), exit 0.  Its log is stderr (the
 * journal under systemd); what happened to each job is in the queue's event log. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/api.h"
#include "daemon/queue.h"
#include "daemon/worker.h"
#include "util/cleanup.h"
#include "util/fs.h"
#include "util/parseopt.h"
#include "util/statedir.h"

#define LABD_VERSION "labd/1"
#define LABD_DEFAULT_SOCKET "/run/numalab/labd.sock"
#define LABD_DEFAULT_GRACE_S 30.0
#define LABD_SLURM_TIME_MIN 360 /* a job's --time without an estimate: 6 h */
/* Jobs in Slurm at once, by default: labd watches each (one thread, a squeue query and its
 * output file every WORKER_SLURM_POLL_S), and Slurm places them on its nodes. */
#define LABD_SLURM_JOBS 16
#define LABD_SLURM_JOBS_MAX 256
/* lab run's state directory on a Slurm node: the one the epilog and health check default to
 * (lab/slurm/) and labd's own under systemd. */
#define LABD_SLURM_NODE_STATE "/var/lib/numalab"
#define LABD_GROUP "numalab"
#define TOKEN_MAX 4096

/* In backend_words' order. */
enum { BACKEND_LOCAL, BACKEND_SLURM };

struct labd_args {
	const char *socket, *listen, *token_file, *lab;
	const char *slurm_partition, *slurm_node_state;
	int backend;
	unsigned slurm_time_min, slurm_jobs;
	double grace_s;
	char state[PATH_MAX];
};

/* The worker's lines, on stderr: the journal under systemd. */
static void labd_log(const char *line)
{
	fprintf(stderr, "labd: %s\n", line);
}

/* One command line a process: what the table writes to (main copies args into its labd). */
static struct labd_args args;
static struct {
	const char *state;
	int help, version;
} cmdline;

static const char *const backend_words[] = { "local", "slurm", NULL };

/* bind() takes the path in a sockaddr_un. */
static int opt_socket(const struct cli_opt *o, const char *arg, struct opt_error *e)
{
	size_t max = sizeof(((struct sockaddr_un *)0)->sun_path) - 1;
	char what[64];

	if (strlen(arg) > max) {
		snprintf(what, sizeof(what), "a path of at most %zu bytes (a unix socket's)", max);
		return opt_invalid(o, arg, what, e);
	}
	args.socket = arg;
	return 0;
}

static const struct cli_opt options[] = {
	OPT_STRING(0, "state", &cmdline.state, "DIR",
		   "the lab's state directory, labd's files in DIR/labd/ (default as lab run's: "
		   "$LAB_STATE_DIR or ~/.local/state/numalab)"),
	OPT_CALL(0, "socket", NULL, "PATH", opt_socket,
		 "the API's unix socket (default " LABD_DEFAULT_SOCKET "), mode 0660, group "
		 LABD_GROUP " when that group exists"),
	OPT_STRING(0, "listen", &args.listen, "HOST:PORT",
		   "also serve TCP, every request with the token of --token-file"),
	OPT_STRING(0, "token-file", &args.token_file, "FILE",
		   "the bearer token for --listen, in a file of mode 0600"),
	OPT_DOUBLE(0, "grace", &args.grace_s, "S", 0, 86400,
		   "on SIGTERM, how long the job under way may go on before it is interrupted"),
	OPT_STRING(0, "lab", &args.lab, "PATH",
		   "the lab binary that runs jobs (default: 'lab' beside labd)"),
	OPT_CHOICE(0, "backend", &args.backend, "local|slurm", backend_words,
		   "where jobs run: one at a time on this machine, or each one Slurm batch job"),
	OPT_STRING(0, "slurm-partition", &args.slurm_partition, "P",
		   "the partition (default: the cluster's default)"),
	OPT_UINT(0, "slurm-time", &args.slurm_time_min, "MIN", 1, 525600,
		 "a job's time limit when the history has no estimate of it"),
	OPT_UINT(0, "slurm-jobs", &args.slurm_jobs, "N", 1, LABD_SLURM_JOBS_MAX,
		 "jobs handed to Slurm at once; the rest wait in labd's queue"),
	OPT_STRING(0, "slurm-node-state", &args.slurm_node_state, "DIR",
		   "lab run's state directory on a node, node-local"),
	OPT_FLAG('h', "help", &cmdline.help, NULL),
	OPT_FLAG(0, "version", &cmdline.version, NULL),
	OPT_END(),
};

/* The defaults, also what --help shows. */
static void set_defaults(void)
{
	memset(&args, 0, sizeof(args));
	memset(&cmdline, 0, sizeof(cmdline));
	args.socket = LABD_DEFAULT_SOCKET;
	args.grace_s = LABD_DEFAULT_GRACE_S;
	args.backend = BACKEND_LOCAL;
	args.slurm_time_min = LABD_SLURM_TIME_MIN;
	args.slurm_jobs = LABD_SLURM_JOBS;
	args.slurm_node_state = LABD_SLURM_NODE_STATE;
}

static void help(void)
{
	set_defaults();
	opt_synopsis(stdout, "labd", NULL, options);
	printf("\nThe numalab daemon: a durable queue of lab jobs, run one at a time, with an\n"
	       "HTTP/JSON API ('lab job submit', 'lab job list', 'lab job status', 'lab job\n"
	       "cancel', 'lab job logs').  Each option at length: man labd.\n\nOPTIONS\n");
	opt_print(stdout, options);
	printf("\nExit status: 0 after SIGTERM/SIGINT, 1 when it cannot start (another labd holds\n"
	       "the state directory, the socket cannot be made), 2 bad arguments.\n");
}

/* The options against the table, said as labd says its errors: "labd: ...", and a usage
 * error followed by the usage, as getopt_long's were. */
static int parse_options(int argc, char **argv)
{
	struct opt_error e;
	int first;

	set_defaults();
	first = parseopt(argc, argv, options, NULL, &e);
	if (first < 0) {
		fprintf(stderr, "labd: %s\n", e.msg);
		if (e.usage)
			opt_synopsis(stderr, "labd", NULL, options);
	}
	return first;
}

static int parse_args(int argc, char **argv, struct labd_args *a)
{
	int first = parse_options(argc, argv);

	if (first < 0)
		return -EINVAL;
	if (cmdline.help) {
		help();
		exit(0);
	}
	if (cmdline.version) {
		printf("%s\n", LABD_VERSION);
		exit(0);
	}
	if (first < argc) {
		fprintf(stderr, "labd: unexpected argument '%s'\n", argv[first]);
		return -EINVAL;
	}
	if (!!args.listen != !!args.token_file) {
		fprintf(stderr, "labd: --listen and --token-file go together: TCP only with a token\n");
		return -EINVAL;
	}
	*a = args;
	if (cmdline.state)
		snprintf(a->state, sizeof(a->state), "%s", cmdline.state);
	else if (statedir_default(a->state, sizeof(a->state)) < 0)
		return fprintf(stderr, "labd: no state directory (--state)\n"), -EINVAL;
	return 0;
}

/* One labd per state directory: the lock is held for labd's life. */
static int lock_state(const char *dir)
{
	_cleanup_free_ char *path = fs_join(dir, "lock");
	int fd = path ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640) : -1;

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(fd);
		return e == EWOULDBLOCK ? -EBUSY : -e;
	}
	return fd;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_free_ char *dir = fs_dirname(path);
	struct stat st;
	struct group *g;
	int fd, r;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (dir && (r = fs_mkdir_p(dir, 0755)) < 0)
		return r;
	/* A socket left by a labd that died: ours now (the state lock says no other runs on
	 * this state directory; another state directory's labd must use another socket). */
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 128) < 0 ||
	    chmod(path, 0660) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	g = getgrnam(LABD_GROUP);
	if (g && chown(path, (uid_t)-1, g->gr_gid) < 0)
		fprintf(stderr, "labd: %s: cannot give it to group %s: %s\n", path, LABD_GROUP,
			strerror(errno));
	return fd;
}

static int listen_tcp(const char *hostport)
{
	char host[256];
	const char *colon = strrchr(hostport, ':');
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *ai = NULL;
	int fd = -1, one = 1, r;

	if (!colon || colon == hostport || (size_t)(colon - hostport) >= sizeof(host))
		return -EINVAL;
	snprintf(host, sizeof(host), "%.*s", (int)(colon - hostport), hostport);
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || !ai)
		return -EADDRNOTAVAIL;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 128) < 0) {
		r = -errno;
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return r;
	}
	freeaddrinfo(ai);
	return fd;
}

/* The bearer token: the file must be ours and 0600 (anyone who can read it can run jobs). */
static int read_token(const char *path, char *tok, size_t len)
{
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t n = 0;
	int r;

	if (stat(path, &st) < 0)
		return -errno;
	if ((st.st_mode & 0077) || st.st_uid != geteuid())
		return -EPERM;
	if ((r = fs_read_file(path, TOKEN_MAX, &text, &n)) < 0)
		return r;
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' '))
		n--;
	if (n < 16 || n >= len)
		return -EINVAL;
	memcpy(tok, text, n);
	tok[n] = '\0';
	return 0;
}

/* The lab binary: --lab, else `lab` beside labd. */
static int find_lab(const char *given, char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (given) {
		snprintf(out, len, "%s", given);
		return access(out, X_OK) == 0 ? 0 : -errno;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return -errno;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	snprintf(out, len, "%s/lab", self);
	return access(out, X_OK) == 0 ? 0 : -errno;
}

struct labd {
	struct labd_args a;
	char dir[PATH_MAX + 8], jobs[PATH_MAX + 16], lab[PATH_MAX], token[TOKEN_MAX];
	char batch[PATH_MAX + 32];
	struct queue *q;
	struct worker w[LABD_SLURM_JOBS_MAX]; /* the local backend: w[0] alone */
	unsigned nw;
	struct api_ctx ctx;
	struct api_server *api;
	int lock_fd, unix_fd, tcp_fd;
};

/* The batch script of every Slurm job: it runs its arguments, so no command is ever a
 * string.  exec: the script is lab run itself, and Slurm's SIGINT (--signal=B:INT, scancel
 * --batch) reaches it. */
static int write_batch_script(struct labd *d)
{
	static const char text[] = "#!/bin/sh\n"
				   "# labd's Slurm batch script: runs its arguments (lab run ...).\n"
				   "exec \"$@\"\n";
	int r;

	snprintf(d->batch, sizeof(d->batch), "%s/slurm-batch.sh", d->dir);
	if ((r = fs_write_atomic(d->batch, text, strlen(text))) < 0)
		return r;
	return chmod(d->batch, 0755) < 0 ? -errno : 0;
}

/* A job under way, for the API's health (the first worker's that has one). */
static int64_t labd_current(void *ud)
{
	const struct labd *d = ud;

	for (unsigned i = 0; i < d->nw; i++)
		if (worker_current(&d->w[i]))
			return worker_current(&d->w[i]);
	return 0;
}

static int labd_start(struct labd *d)
{
	struct lab_error err = { 0 };
	char dbpath[PATH_MAX + 32];
	unsigned recovered = 0;
	int r;

	snprintf(d->dir, sizeof(d->dir), "%s/labd", d->a.state);
	snprintf(d->jobs, sizeof(d->jobs), "%s/jobs", d->dir);
	if ((r = fs_mkdir_p(d->dir, 0750)) < 0)
		return fprintf(stderr, "labd: cannot make %s: %s\n", d->dir, strerror(-r)), r;
	d->lock_fd = lock_state(d->dir);
	if (d->lock_fd == -EBUSY)
		return fprintf(stderr, "labd: another labd runs on %s\n", d->a.state), -EBUSY;
	if (d->lock_fd < 0)
		return fprintf(stderr, "labd: cannot lock %s: %s\n", d->dir, strerror(-d->lock_fd)),
		       d->lock_fd;
	if ((r = find_lab(d->a.lab, d->lab, sizeof(d->lab))) < 0)
		return fprintf(stderr, "labd: no lab binary at %s (--lab): %s\n", d->lab,
			       strerror(-r)), r;
	snprintf(dbpath, sizeof(dbpath), "%s/%s", d->dir, QUEUE_DB_NAME);
	if ((r = queue_open(dbpath, &d->q, &err)) < 0)
		return fprintf(stderr, "labd: %s: %s\n", dbpath, err.msg), r;
	if ((r = queue_recover(d->q, &recovered, &err)) < 0)
		return fprintf(stderr, "labd: recovering the queue: %s\n", err.msg), r;
	if (recovered)
		fprintf(stderr, "labd: %u job(s) cut short by the last labd queued again; they "
			"continue with their next run\n", recovered);
	if (d->a.token_file && (r = read_token(d->a.token_file, d->token, sizeof(d->token))) < 0)
		return fprintf(stderr, "labd: --token-file %s: %s\n", d->a.token_file,
			       r == -EPERM ? "must be owned by labd's user and mode 0600"
			       : r == -EINVAL ? "the token must be 16 to 4095 characters"
					      : strerror(-r)), r;
	d->unix_fd = listen_unix(d->a.socket);
	if (d->unix_fd < 0)
		return fprintf(stderr, "labd: cannot listen on %s: %s\n", d->a.socket,
			       strerror(-d->unix_fd)), d->unix_fd;
	if (d->a.listen && (d->tcp_fd = listen_tcp(d->a.listen)) < 0)
		return fprintf(stderr, "labd: cannot listen on %s: %s\n", d->a.listen,
			       strerror(-d->tcp_fd)), d->tcp_fd;
	int slurm = d->a.backend == BACKEND_SLURM;

	d->nw = slurm ? d->a.slurm_jobs : 1;
	for (unsigned i = 0; i < d->nw; i++)
		d->w[i] = (struct worker){ .q = d->q, .lab_exe = d->lab, .state_dir = d->a.state,
				.grace_s = d->a.grace_s, .log = labd_log,
				.slurm = slurm, .slurm_script = d->batch,
				.slurm_partition = d->a.slurm_partition,
				.slurm_time_min = d->a.slurm_time_min,
				.slurm_node_state = d->a.slurm_node_state };
	if (slurm && (r = write_batch_script(d)) < 0)
		return fprintf(stderr, "labd: cannot write %s: %s\n", d->batch, strerror(-r)), r;
	if (slurm)
		fprintf(stderr, "labd: jobs run as Slurm batch jobs, %u at once at most (%s)\n",
			d->nw, getenv("SLURM_CONF") ? getenv("SLURM_CONF")
						    : "Slurm's default configuration");
	d->ctx = (struct api_ctx){ .q = d->q, .state_dir = d->a.state, .jobs_dir = d->jobs,
				   .lab_exe = d->lab, .version = LABD_VERSION,
				   .slurm = slurm, .current_job = labd_current, .ud = d };
	for (unsigned i = 0; i < d->nw; i++)
		if ((r = worker_start(&d->w[i])) < 0)
			return fprintf(stderr, "labd: cannot start the worker: %s\n", strerror(-r)), r;
	r = api_start(&d->ctx, d->unix_fd, d->tcp_fd, d->a.listen ? d->token : NULL, &d->api);
	if (r < 0)
		return fprintf(stderr, "labd: cannot start the API: %s\n", strerror(-r)), r;
	d->unix_fd = d->tcp_fd = -1; /* the server's now */
	fprintf(stderr, "labd: %s serving %s%s%s (state %s)\n", LABD_VERSION, d->a.socket,
		d->a.listen ? " and " : "", d->a.listen ? d->a.listen : "", d->a.state);
	return 0;
}

static void labd_stop(struct labd *d)
{
	/* Stop accepting first: a client then gets "not running", not a job that never runs. */
	api_stop(d->api);
	d->api = NULL;
	unlink(d->a.socket);
	worker_stop(d->w, d->nw);
	if (d->q)
		queue_close(d->q);
	if (d->unix_fd >= 0)
		close(d->unix_fd);
	if (d->tcp_fd >= 0)
		close(d->tcp_fd);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
}

int main(int argc, char **argv)
{
	static struct labd d = { .lock_fd = -1, .unix_fd = -1, .tcp_fd = -1 };
	sigset_t set;
	int sig = 0, r;

	if (parse_args(argc, argv, &d.a) < 0)
		return 2;
	/* Signals are taken by sigwait below, never by a thread at a random point. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	r = labd_start(&d);
	if (r < 0) {
		labd_stop(&d);
		return 1;
	}
	while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
		; /* nothing to reload yet */
	fprintf(stderr, "labd: %s: stopping (the job under way has %.0f s to finish)\n",
		strsignal(sig), d.a.grace_s);
	labd_stop(&d);
	fprintf(stderr, "labd: stopped\n");
	return 0;
}
