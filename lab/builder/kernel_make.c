/* Running the kernel's make: niced, in its own process group, output to a log, progress from
 * Kbuild's "  CC      mm/memory.o" lines; configuring a variant's O= tree. */
#include "builder/kernel_make.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/text.h"

#define LOG_TAIL_MAX (16u * 1024) /* bytes of a log read for its last lines */

char *kbuild_log_tail(const char *path, unsigned lines)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	off_t size, from;
	ssize_t n;
	char *p;

	if (fd < 0)
		return NULL;
	size = lseek(fd, 0, SEEK_END);
	from = size > (off_t)LOG_TAIL_MAX ? size - (off_t)LOG_TAIL_MAX : 0;
	buf = malloc(LOG_TAIL_MAX + 1);
	if (!buf || (n = pread(fd, buf, LOG_TAIL_MAX, from)) < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	for (size_t i = 0; i < (size_t)n; i++)
		if (buf[i] == '\0' || (unsigned char)buf[i] >= 0x80)
			buf[i] = '?'; /* the report is JSON: keep it plain ASCII */
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	p = buf + n;
	while (p > buf && lines > 0)
		if (*--p == '\n')
			lines--;
	if (*p == '\n')
		p++;
	memmove(buf, p, strlen(p) + 1);
	return buf;
}

/* ---- make --------------------------------------------------------------------------------- */

static const char *const make_env[] = {
	"KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970", /* ccache hits for version.c */
	"KBUILD_BUILD_USER=numalab", "KBUILD_BUILD_HOST=numalab", "LC_ALL=C",
	/* Not the O= tree's build counter: a variant's tree copied from a sibling's counts on
	 * from it, and two builds of one source differed in "#1" against "#2" and build id. */
	"KBUILD_BUILD_VERSION=1", NULL,
};

/* make [-n] TARGET in the variant's O= tree (dry: print what would run, run nothing). */
static int run_make(struct kctx *c, const char *target, int dry, int log_fd,
		    void (*line)(void *, const char *), void *ud, int *status, char *tail,
		    size_t tail_len)
{
	char o_arg[PATH_MAX + 128], j_arg[32], ccache_env[4][PATH_MAX + 32];
	const char *env[16];
	struct spawn_job *s = calloc(1, sizeof(*s));
	unsigned jobs = c->o->jobs ? c->o->jobs : (unsigned)get_nprocs();
	int have_ccache = fs_exists("/usr/bin/ccache"), n = 0, r;
	char *argv[12];

	if (!s)
		return -ENOMEM;
	snprintf(o_arg, sizeof(o_arg), "O=%s", c->obj_dir);
	snprintf(j_arg, sizeof(j_arg), "-j%u", jobs ? jobs : 1);
	argv[n++] = "make", argv[n++] = "-C", argv[n++] = c->src_dir, argv[n++] = o_arg;
	argv[n++] = j_arg;
	if (dry)
		argv[n++] = "-n";
	if (have_ccache)
		argv[n++] = "CC=ccache gcc";
	argv[n++] = (char *)target;
	argv[n] = NULL;
	n = 0;
	for (const char *const *e = make_env; *e; e++)
		env[n++] = *e;
	/* One store under the cache dir; paths relative to it so that the O= trees of
	 * different variants (all at obj/NAME) share hits. */
	snprintf(ccache_env[0], sizeof(ccache_env[0]), "CCACHE_DIR=%s/ccache", c->cache);
	snprintf(ccache_env[1], sizeof(ccache_env[1]), "CCACHE_BASEDIR=%s", c->cache);
	snprintf(ccache_env[2], sizeof(ccache_env[2]), "CCACHE_NOHASHDIR=1");
	snprintf(ccache_env[3], sizeof(ccache_env[3]), "CCACHE_MAXSIZE=5G");
	for (int i = 0; i < 4; i++)
		env[n++] = ccache_env[i];
	env[n] = NULL;
	*s = (struct spawn_job){ .argv = argv, .env = env, .log_fd = log_fd, .line = line,
				 .ud = ud };
	r = kctx_spawn(c, s, status);
	if (tail)
		snprintf(tail, tail_len, "%s", s->tail);
	free(s);
	return r;
}

static int read_config(struct kctx *c, char **text)
{
	_cleanup_free_ char *path = fs_join(c->obj_dir, ".config");

	if (!path)
		return -ENOMEM;
	return fs_read_file(path, KCONFIG_MAX_TEXT, text, NULL);
}

static int make_step(struct kctx *c, const char *target)
{
	char tail[2048];
	int st = 0, r = run_make(c, target, 0, -1, NULL, NULL, &st, tail, sizeof(tail));

	if (r == -EINTR)
		return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted during make %s", target);
	if (r < 0 || st != 0) {
		char *nl = strrchr(tail, '\n');

		while (nl && nl > tail && nl[1] == '\0') {
			*nl = '\0';
			nl = strrchr(tail, '\n');
		}
		return kctx_fail(c, KERNEL_FAIL_CONFIG, r < 0 ? r : -EIO, "make %s failed (exit %d): "
				 "%s", target, st, nl ? nl + 1 : tail);
	}
	return 0;
}

/* ---- keeping a configuration ----------------------------------------------------------------
 * Configuring takes 21 s on 2 idle cores (tinyconfig 15 s, olddefconfig 6.5 s: Kconfig parses
 * every Kconfig file and probes the compiler), and the .config it rewrites makes the build's
 * Kbuild run syncconfig again (6 s more).  A bisection step or a patch that touches no Kconfig
 * file gets the same .config every time: measured on the bisection test's tree, an
 * incremental build of a comment change took 41.7 s, half of it configuring.  So after a
 * build the O= tree keeps a record, CONFIG_RECORD: the key of everything configuring reads
 * (base, fragments, compiler, and the content of each file Kconfig read, as Kbuild lists them
 * in include/config/auto.conf.cmd, plus the top Makefile and the scripts/ directory's .sh
 * files, which Kconfig runs) and the sha256 of the .config it gave.  A build whose key and
 * .config match keeps the .config untouched.  A changed Kconfig file, fragment or compiler changes the key; a new
 * file can only be read through a changed one.  Kbuild still checks the tools' versions it
 * recorded in auto.conf.cmd and runs syncconfig itself when they changed; a .config changed
 * that way no longer matches the record, and the next build configures. */
#define CONFIG_RECORD ".numalab-config"
#define CONFIG_CMD "include/config/auto.conf.cmd"
#define CONFIG_CMD_MAX (4u << 20)

/* "PATH SHA256\n" (or "PATH -\n" when absent) of one source file, appended to sb. */
static int file_line(struct kctx *c, struct strbuf *sb, const char *rel, size_t n)
{
	char path[PATH_MAX * 2], sha[65];

	if ((size_t)snprintf(path, sizeof(path), "%s/%.*s", c->src_dir, (int)n, rel) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	if (sha256_file_hex(path, sha) < 0)
		snprintf(sha, sizeof(sha), "-");
	return strbuf_appendf(sb, "%.*s %s\n", (int)n, rel, sha);
}

static int sh_name(const struct dirent *e)
{
	size_t len = strlen(e->d_name);

	return len >= 4 && !strcmp(e->d_name + len - 3, ".sh");
}

/* The scripts Kconfig runs ($(shell,...) in scripts/Kconfig.include and init/Kconfig), in
 * name order: the .sh files of scripts/ (none when there is no such directory). */
static int script_lines(struct kctx *c, struct strbuf *sb)
{
	_cleanup_free_ char *dir = fs_join(c->src_dir, "scripts");
	struct dirent **ents = NULL;
	int n = dir ? scandir(dir, &ents, sh_name, alphasort) : -1, r = 0;

	if (n < 0)
		return !dir ? -ENOMEM : errno == ENOENT ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		char rel[NAME_MAX + 16];
		int len = snprintf(rel, sizeof(rel), "scripts/%s", ents[i]->d_name);

		if (r == 0)
			r = file_line(c, sb, rel, (size_t)len);
		free(ents[i]);
	}
	free(ents);
	return r;
}

/* The key of what configuring this O= tree would read now; -ENOENT without auto.conf.cmd
 * (a tree never built). */
static int config_key(struct kctx *c, char key[65])
{
	_cleanup_free_ char *cmd = NULL, *deps = NULL, *files = NULL;
	_cleanup_free_ char *path = fs_join(c->obj_dir, CONFIG_CMD);
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const char **fsha = calloc(c->v->nr_fragments + 1, sizeof(*fsha));
	struct kkey_input in = { .base = c->v->base, .fragment_sha256 = fsha,
				 .nr_fragments = c->v->nr_fragments, .compiler = c->compiler };
	int r = path && fsha ? fs_read_file(path, CONFIG_CMD_MAX, &cmd, NULL) : -ENOMEM;

	for (unsigned i = 0; fsha && i < c->v->nr_fragments; i++)
		fsha[i] = c->frag_sha[i];
	if (r == 0 && (r = kconfig_cmd_deps(cmd, &deps)) > 0)
		r = 0;
	for (const char *p = deps; r == 0 && p && *p;) {
		const char *nl = strchr(p, '\n');

		r = file_line(c, &sb, p, (size_t)(nl - p));
		p = nl + 1;
	}
	if (r == 0 && (r = file_line(c, &sb, "Makefile", 8)) == 0 &&
	    (r = script_lines(c, &sb)) == 0 && (r = strbuf_take(&sb, &files)) == 0)
		r = kkey_kconfig(&in, files, key);
	free(fsha);
	return r;
}

/* A patch applied again, or a checkout, gives a Kconfig file a new mtime with the same bytes,
 * and Kbuild would run syncconfig for it (7 s on the bisection test's tree): what syncconfig
 * writes (make treats its four outputs as one) is as current as the key just showed, so they
 * are given the current time.  One that is absent is left to Kbuild. */
static void synced_now(struct kctx *c)
{
	static const char *const outputs[] = { "include/config/auto.conf.cmd",
		"include/config/auto.conf", "include/generated/autoconf.h",
		"include/generated/rustc_cfg", NULL };

	for (unsigned i = 0; outputs[i]; i++) {
		_cleanup_free_ char *p = fs_join(c->obj_dir, outputs[i]);

		if (p)
			utimensat(AT_FDCWD, p, NULL, 0);
	}
}

/* 1 with *final the tree's .config when its record says configuring would give it again. */
static int config_kept(struct kctx *c, char **final)
{
	_cleanup_free_ char *rec = fs_join(c->obj_dir, CONFIG_RECORD), *text = NULL, *cfg = NULL;
	char key[65], sha[65], want[160];

	if (c->o->force || !rec || fs_read_file(rec, 256, &text, NULL) < 0 ||
	    config_key(c, key) < 0 || read_config(c, &cfg) < 0 ||
	    sha256_hex(cfg, strlen(cfg), sha) < 0)
		return 0;
	snprintf(want, sizeof(want), "%s %s\n", key, sha);
	if (strcmp(text, want))
		return 0;
	synced_now(c);
	*final = cfg;
	cfg = NULL;
	return 1;
}

int kbuild_config_record(struct kctx *c, const char *final)
{
	_cleanup_free_ char *rec = fs_join(c->obj_dir, CONFIG_RECORD);
	char key[65], sha[65], text[160];
	int r;

	if (!rec)
		return -ENOMEM;
	/* No key (a build system that does not write auto.conf.cmd): no record, configure. */
	if (config_key(c, key) < 0 || (r = sha256_hex(final, strlen(final), sha)) < 0) {
		unlink(rec);
		return 0;
	}
	snprintf(text, sizeof(text), "%s %s\n", key, sha);
	return fs_write_atomic(rec, text, strlen(text));
}

static int configure_make(struct kctx *c, char **final)
{
	_cleanup_free_ char *base = NULL, *merged = NULL, *rec = fs_join(c->obj_dir, CONFIG_RECORD);
	_cleanup_free_ char *cfg_path = fs_join(c->obj_dir, ".config");
	int r;

	if (!cfg_path || !rec)
		return -ENOMEM;
	unlink(rec); /* the .config is about to change: the record is no longer of it */
	kctx_progress(c, "%s: configuring (%s + %u fragment(s), olddefconfig)", c->v->name,
		      c->v->base, c->v->nr_fragments);
	if ((r = make_step(c, c->v->base)) < 0 || (r = read_config(c, &base)) < 0 ||
	    (r = kconfig_merge(base, c->frags, c->v->nr_fragments, &merged)) < 0 ||
	    (r = fs_write_atomic(cfg_path, merged, strlen(merged))) < 0 ||
	    (r = make_step(c, "olddefconfig")) < 0 || (r = read_config(c, final)) < 0)
		return c->a->fail ? r : kctx_fail(c, KERNEL_FAIL_LAB, r, "configuring: %s",
						   strerror(-r));
	return 0;
}

int kbuild_configure(struct kctx *c, char **final)
{
	const char **names = calloc(c->v->nr_fragments + 1, sizeof(*names));
	struct kconfig fin;
	struct kmismatch mm[4];
	struct lab_error err = { 0 };
	unsigned bad;
	int r;

	if (!names)
		return -ENOMEM;
	for (unsigned i = 0; i < c->v->nr_fragments; i++)
		names[i] = c->v->fragments[i];
	if (config_kept(c, final))
		kctx_progress(c, "%s: configuration kept (no Kconfig file, fragment or compiler "
			      "changed since this tree's last build)", c->v->name);
	else if ((r = configure_make(c, final)) < 0) {
		free(names);
		return r;
	}
	r = kconfig_parse(*final, 0, &fin, &err);
	bad = r < 0 ? 0 : kconfig_check(c->frags, names, c->v->nr_fragments, &fin, mm, 4);
	free(names);
	kconfig_free(&fin);
	if (r < 0)
		return kctx_fail(c, KERNEL_FAIL_CONFIG, r, "final .config: %s", err.msg);
	if (bad) {
		char one[PATH_MAX + 512];

		kmismatch_format(&mm[0], one, sizeof(one));
		if (bad > 1)
			return kctx_fail(c, KERNEL_FAIL_CONFIG, -EINVAL, "after olddefconfig %s; and "
					 "%u more option(s) did not stick", one, bad - 1);
		return kctx_fail(c, KERNEL_FAIL_CONFIG, -EINVAL, "after olddefconfig %s", one);
	}
	return 0;
}

/* ---- progress ------------------------------------------------------------------------------ */

/* A percentage is of the steps this build will take, as Kbuild itself counts them before it
 * starts (`make -n bzImage`, dry_steps), not of the last build's: a variant whose config
 * differs from its tree's last build rebuilds 40 or 1100 steps, and an estimate from the last
 * build said "99 %" for nine minutes.  Counted only where the config is new to the O= tree (a
 * full build, a tree copied from a sibling built with another config): most of the tree then
 * rebuilds, and make -n's overcount is small against it.  A build of the same config after a
 * source change (a patch, a bisection step) is short, and there make -n misleads: Kbuild's
 * FORCE'd archives and headers look out of date to it (measured on baseline's tree: 197
 * steps counted, 4 run, in 8.5 s against the build's 6.4 s), so such a build says its steps
 * and time, no percentage.  Steps are not equal: linking vmlinux (the kallsyms passes, the
 * compressed image) is a few steps of seconds each; the ETA is from the steps' rate, and
 * from the link on the line says "linking", not a percentage it cannot stand behind. */
#define RATE_SAMPLES 12 /* one a progress line (5 s): the ETA's rate is of the last minute */

struct kprogress {
	struct kctx *c;
	unsigned steps, expected; /* expected: 0 when make -n could not say */
	int linking;
	double start, last;
	double at[RATE_SAMPLES];   /* when each of the last progress lines was printed */
	unsigned done[RATE_SAMPLES], nr_samples;
};

/* Seconds to go at the rate of the last minute's steps, not the build's whole: its first
 * seconds (host tools, headers, objtool) run a few steps slowly, and an ETA from the mean
 * rate said 53 s where 29 were left (measured, warm ccache). */
static double eta_s(struct kprogress *p, double now)
{
	unsigned i = p->nr_samples % RATE_SAMPLES, oldest;
	double since, rate;

	p->at[i] = now;
	p->done[i] = p->steps;
	p->nr_samples++;
	oldest = p->nr_samples > RATE_SAMPLES ? p->nr_samples % RATE_SAMPLES : 0;
	if (p->nr_samples == 1 || (since = now - p->at[oldest]) <= 0 ||
	    p->steps <= p->done[oldest])
		return (now - p->start) * (p->expected - p->steps) / p->steps;
	rate = (p->steps - p->done[oldest]) / since;
	return (p->expected - p->steps) / rate;
}

static void fmt_dur(char *buf, size_t len, double s)
{
	if (s < 0)
		s = 0;
	snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
}

/* Kbuild's quiet line of a step: two spaces, an upper-case tag; under make -n the same text
 * inside the command, "echo '  CC      mm/memory.o'". */
static const char *step_text(const char *l, int dry)
{
	if (dry) {
		const char *e = strstr(l, "echo ");

		if (!e || (e[5] != '\'' && e[5] != '"'))
			return NULL;
		l = e + 6;
	}
	return strncmp(l, "  ", 2) || l[2] < 'A' || l[2] > 'Z' ? NULL : l + 2;
}

static void on_dry_line(void *ud, const char *l)
{
	if (step_text(l, 1))
		(*(unsigned *)ud)++;
}

/* *n: the steps `make TARGET` will run in this O= tree, as make -n prints them; 0 when it
 * cannot say (a dry run that fails says nothing about the build; the build then says why).
 * 0, or -EINTR. */
static int dry_steps(struct kctx *c, const char *target, unsigned *n)
{
	int st = 0, r = run_make(c, target, 1, -1, on_dry_line, n, &st, NULL, 0);

	if (r == -EINTR)
		return r;
	if (r < 0 || st != 0)
		*n = 0;
	return 0;
}

/* "LD      vmlinux.o" and after: the link, a few long steps. */
static int link_step(const char *t)
{
	return !strncmp(t, "LD      vmlinux", 15) || !strncmp(t, "LD      .tmp_vmlinux", 20);
}

static void on_line(void *ud, const char *l)
{
	struct kprogress *p = ud;
	double now = clock_now_s(), el = now - p->start, pct;
	const char *t = step_text(l, 0);
	char e[16], eta[16];

	if (!t)
		return;
	p->steps++;
	if (!p->linking && link_step(t))
		p->linking = 1;
	if (now - p->last < 5.0)
		return;
	p->last = now;
	fmt_dur(e, sizeof(e), el);
	if (p->linking) {
		kctx_progress(p->c, "%s: linking (%u/%u steps: %s), %s elapsed", p->c->v->name,
			      p->steps, p->expected > p->steps ? p->expected : p->steps, t, e);
		return;
	}
	if (!p->expected || p->steps > p->expected) {
		kctx_progress(p->c, "%s: building (%u steps), %s elapsed", p->c->v->name, p->steps,
			      e);
		return;
	}
	pct = 100.0 * p->steps / p->expected;
	fmt_dur(eta, sizeof(eta), eta_s(p, now));
	kctx_progress(p->c, "%s: building %3.0f%% (%u/%u steps), %s elapsed, ETA %s",
		      p->c->v->name, pct, p->steps, p->expected, e, eta);
}

int kbuild_make(struct kctx *c, const char *target, const char *log_path, int count)
{
	_cleanup_close_ int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	_cleanup_free_ char *vmlinux = fs_join(c->obj_dir, "vmlinux");
	int full = vmlinux && !fs_exists(vmlinux), st = 0, r;
	struct kprogress p = { .c = c };
	double t0 = clock_now_s();
	char counted[64] = "";

	if (fd < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, -errno, "cannot create %s: %s", log_path,
				 strerror(errno));
	if (count) {
		kctx_progress(c, "%s: counting the steps (make -n)", c->v->name);
		if ((r = dry_steps(c, target, &p.expected)) < 0)
			return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted while counting");
	}
	p.start = p.last = clock_now_s();
	if (p.expected)
		snprintf(counted, sizeof(counted), "%u steps counted in %.0f s, ", p.expected,
			 p.start - t0);
	kctx_progress(c, "%s: building %s (%s build, %s-j%u, log %s)", c->v->name, target,
		      full ? "full" : "incremental", counted,
		      c->o->jobs ? c->o->jobs : (unsigned)get_nprocs(), log_path);
	r = run_make(c, target, 0, fd, on_line, &p, &st, NULL, 0);
	if (r == -EINTR)
		return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted while building");
	if (r < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot run make: %s", strerror(-r));
	if (st != 0)
		return kctx_fail(c, KERNEL_FAIL_BUILD, -EIO, "make %s failed (exit %d) after "
				 "%u steps; log %s", target, st, p.steps, log_path);
	if (p.expected)
		snprintf(counted, sizeof(counted), "; make -n counted %u", p.expected);
	kctx_progress(c, "%s: built in %.0f s (%u steps%s)", c->v->name, clock_now_s() - p.start,
		      p.steps, counted);
	return 0;
}

/* ---- what was built ------------------------------------------------------------------------- */

int kbuild_text_sha256(struct kctx *c, char out[65])
{
	_cleanup_free_ char *vml = fs_join(c->obj_dir, "vmlinux");
	_cleanup_free_ char *tmp = fs_join(c->obj_dir, ".numalab-text.tmp");
	char why[SPAWN_TAIL_MAX];
	struct stat st;
	int r;

	out[0] = '\0';
	if (!vml || !tmp)
		return kctx_fail(c, KERNEL_FAIL_LAB, -ENOMEM, "out of memory");
	char *argv[] = { "objcopy", "-O", "binary", "--only-section=.text", vml, tmp, NULL };

	r = kctx_run(c, argv, NULL, why, sizeof(why));
	if (r == -EINTR) {
		unlink(tmp);
		return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted");
	}
	/* An empty file: a vmlinux without .text, nothing worth comparing. */
	if (r < 0 || stat(tmp, &st) < 0 || st.st_size == 0 || sha256_file_hex(tmp, out) < 0) {
		out[0] = '\0';
		kctx_progress(c, "%s: no .text hash (objcopy %s: %s)", c->v->name, vml,
			      r < 0 ? text_last_line(why) : "no .text section");
	}
	unlink(tmp);
	return 0;
}
