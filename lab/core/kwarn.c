#include "core/kwarn.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

#define KWARN_BEFORE 5     /* lines looked back for a report's opening line */
#define BODY_SPACES 8      /* spaces skipped after printk's prefix: a report line has one; a
			    * bound keeps the body near the line's start (see excerpt_of) */
#define BRACKET_MAX 24     /* printk's "[%5lu.%06lu]" and "[%6s]" are shorter */
#define RAW_WHERE 256      /* a where before it is cleaned and cut */

static const char *const kind_names[KWARN__COUNT] = {
	[KWARN_WARNING] = "warning",
	[KWARN_SLEEP_IN_ATOMIC] = "sleep-in-atomic",
	[KWARN_LOCKDEP_CIRCULAR] = "lockdep-circular",
	[KWARN_LOCKDEP_RECURSIVE] = "lockdep-recursive",
	[KWARN_LOCKDEP_INCONSISTENT] = "lockdep-inconsistent",
	[KWARN_LOCKDEP] = "lockdep",
	[KWARN_RCU_STALL] = "rcu-stall",
	[KWARN_SOFT_LOCKUP] = "soft-lockup",
	[KWARN_HARD_LOCKUP] = "hard-lockup",
	[KWARN_WORKQUEUE_LOCKUP] = "workqueue-lockup",
	[KWARN_HUNG_TASK] = "hung-task",
	[KWARN_KASAN] = "kasan",
	[KWARN_UBSAN] = "ubsan",
	[KWARN_KFENCE] = "kfence",
};

const char *kwarn_kind_name(enum kwarn_kind k)
{
	return (unsigned)k < KWARN__COUNT ? kind_names[k] : "unknown";
}

int kwarn_kind_parse(const char *s, enum kwarn_kind *k)
{
	for (unsigned i = 0; s && i < KWARN__COUNT; i++)
		if (!strcmp(s, kind_names[i])) {
			*k = (enum kwarn_kind)i;
			return 0;
		}
	return -EINVAL;
}

/* ---- bytes -------------------------------------------------------------------------------- */

/* A where being built: bounded, cut silently (put_clean cuts it again to KWARN_WHERE_MAX). */
struct sbuf {
	char b[RAW_WHERE];
	size_t n;
};

static void sb_put(struct sbuf *sb, const char *s, size_t n)
{
	if (n > sizeof(sb->b) - sb->n)
		n = sizeof(sb->b) - sb->n;
	memcpy(sb->b + sb->n, s, n);
	sb->n += n;
}

static void sb_puts(struct sbuf *sb, const char *s)
{
	sb_put(sb, s, strlen(s));
}

static const char *find(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle));
}

static const char *find_last(const char *s, size_t n, const char *needle)
{
	const char *last = NULL, *p;
	size_t k = strlen(needle);

	while ((p = memmem(s, n, needle, k))) {
		last = p;
		n -= (size_t)(p + 1 - s);
		s = p + 1;
	}
	return last;
}

static int starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

static int ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* n without a trailing SEP and digits ("pft:301" -> "pft" for ':'), else n. */
static size_t cut_number(const char *s, size_t n, char sep)
{
	size_t i = n;

	while (i > 0 && is_digit(s[i - 1]))
		i--;
	return i < n && i > 0 && s[i - 1] == sep ? i - 1 : n;
}

/* Control characters (but tab, when keep_tab; and newline, when keep_nl) become '?'. */
static void mask_controls(char *s, size_t n, int keep_tab, int keep_nl)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 || c == 0x7f) && !(c == '\t' && keep_tab) && !(c == '\n' && keep_nl))
			s[i] = '?';
	}
}

/* src[0, n) into dst (cap bytes with its NUL, cap <= KWARN_LINE_MAX): CRs dropped, bytes that
 * are not UTF-8 (NULs too) and control characters '?', cut at a character boundary.  Three
 * bytes past the cut are cleaned too, so a character across it is judged whole, as the
 * excerpt (cleaned the same way) judges it: first_line stays a substring of its excerpt. */
static void put_clean(char *dst, size_t cap, const char *src, size_t n, int keep_tab)
{
	char tmp[KWARN_LINE_MAX + 3];
	size_t k = 0, cut;

	for (size_t i = 0; i < n && k < cap - 1 + 3; i++)
		if (src[i] != '\r')
			tmp[k++] = src[i];
	text_utf8_sanitize(tmp, k);
	mask_controls(tmp, k, keep_tab, 0);
	cut = k < cap - 1 ? k : cap - 1;
	while (cut > 0 && cut < k && ((unsigned char)tmp[cut] & 0xc0) == 0x80)
		cut--;
	memcpy(dst, tmp, cut);
	dst[cut] = '\0';
}

/* ---- lines -------------------------------------------------------------------------------- */

/* printk's "[   12.345678]" time or "[  T123]" / "[    C3]" caller id (kernel/printk/printk.c
 * info_print_prefix): 1 and *skip past the ']' when l starts with one. */
static int printk_bracket(const char *l, size_t n, size_t *skip)
{
	size_t k, i = 1, digits = 0, dots = 0;
	const char *e;

	if (n < 3 || l[0] != '[' || !(e = memchr(l, ']', n < BRACKET_MAX ? n : BRACKET_MAX)))
		return 0;
	k = (size_t)(e - l);
	while (i < k && l[i] == ' ')
		i++;
	if (i < k && (l[i] == 'T' || l[i] == 'C'))
		dots = 1, i++; /* a caller id: the letter stands in for the time's dot */
	for (; i < k; i++)
		if (is_digit(l[i]))
			digits++;
		else if (l[i] == '.')
			dots++;
		else
			return 0;
	if (!digits || dots != 1)
		return 0;
	*skip = k + 1;
	return 1;
}

static size_t skip_spaces(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && i < BODY_SPACES && l[i] == ' ')
		i++;
	return i;
}

/* A console line's message: leading CRs, printk's time and caller id (with or without a
 * space between them) and a few spaces cut, trailing spaces and CRs too. */
static const char *line_body(const char *l, size_t n, size_t *bn)
{
	size_t skip;

	while (n > 0 && *l == '\r')
		l++, n--;
	for (int i = 0; i < 2; i++) {
		skip = skip_spaces(l, n);
		l += skip, n -= skip;
		if (!printk_bracket(l, n, &skip))
			break;
		l += skip, n -= skip;
	}
	skip = skip_spaces(l, n);
	l += skip, n -= skip;
	while (n > 0 && (l[n - 1] == ' ' || l[n - 1] == '\r'))
		n--;
	*bn = n;
	return l;
}

/* The subsystems' pr_fmt before a report: kernel/watchdog.c "watchdog: " (older kernels'
 * lockup detectors "NMI watchdog: "), kernel/rcu/tree.c "rcu: ". */
static const char *const pr_fmts[] = { "NMI watchdog: ", "watchdog: ", "rcu: " };

static const char *skip_pr_fmt(const char *b, size_t *bn)
{
	for (size_t i = 0; i < sizeof(pr_fmts) / sizeof(pr_fmts[0]); i++)
		if (starts(b, *bn, pr_fmts[i])) {
			*bn -= strlen(pr_fmts[i]);
			return b + strlen(pr_fmts[i]);
		}
	return b;
}

/* ---- where -------------------------------------------------------------------------------- */

/* A %pS symbol, "fn+0x2a/0x300 [mod]", as "fn [mod]": the offsets change with every build.
 * An address alone (no symbol: "0xffffffffc0001234") is no site: "?". */
static void put_symbol(struct sbuf *sb, const char *s, size_t n)
{
	const char *sp = memchr(s, ' ', n), *plus, *close;
	size_t tok = sp ? (size_t)(sp - s) : n, name;

	plus = memchr(s, '+', tok);
	name = plus ? (size_t)(plus - s) : tok;
	if (name == 0 || starts(s, name, "0x"))
		sb_puts(sb, "?");
	else
		sb_put(sb, s, name);
	if (sp && n - tok > 2 && sp[1] == '[' && (close = memchr(sp, ']', n - tok))) {
		sb_puts(sb, " ");
		sb_put(sb, sp + 1, (size_t)(close - sp));
	}
}

/* A task's comm without the CPU or pool number that per-CPU kthreads and workers carry,
 * which changes from boot to boot: "kworker/3:1", "kworker/u16:2" and "ksoftirqd/5" become
 * "kworker/" "kworker/u" and "ksoftirqd/" each followed by a '*'; "kworker/R-events" and user
 * tasks stay as they are. */
static void put_comm(struct sbuf *sb, const char *s, size_t n)
{
	const char *slash = memchr(s, '/', n);
	size_t k = slash ? (size_t)(slash - s) + 1 : n;

	if (k < n && s[k] == 'u' && k + 1 < n && is_digit(s[k + 1]))
		k++;
	else if (!(k < n && is_digit(s[k])))
		k = n;
	sb_put(sb, s, k);
	if (k < n)
		sb_puts(sb, "*");
}

/* "file.c:123": a path, a colon, digits. */
static int is_file_line(const char *s, size_t n)
{
	size_t d = n - cut_number(s, n, ':');

	return d > 1 && d < n;
}

/* WARN(): "WARNING: CPU: 3 PID: 123 at mm/memory.c:4821 fn+0x2a/0x300" (kernel/panic.c
 * __warn): the file:line when the kernel has it (CONFIG_DEBUG_BUGVERBOSE), else the function. */
static void where_warning(struct sbuf *sb, const char *r, size_t n)
{
	const char *at = find(r, n, " at "), *sp;
	size_t m, tok;

	if (!at) {
		sb_puts(sb, "?");
		return;
	}
	m = n - (size_t)(at + 4 - r);
	at += 4;
	sp = memchr(at, ' ', m);
	tok = sp ? (size_t)(sp - at) : m;
	if (is_file_line(at, tok))
		sb_put(sb, at, tok);
	else
		put_symbol(sb, at, m);
}

/* "BUG: scheduling while atomic: pft/301/0x00000002" (kernel/sched/core.c __schedule_bug):
 * the task, without its PID and preempt count (cut from the right: a comm may hold '/'). */
static void where_sched_atomic(struct sbuf *sb, const char *r, size_t n)
{
	for (int i = 0; i < 2; i++) {
		const char *sl = find_last(r, n, "/");

		if (sl)
			n = (size_t)(sl - r);
	}
	sb_puts(sb, "scheduling while atomic: ");
	put_comm(sb, r, n);
}

/* "BUG: using smp_processor_id() in preemptible [00000000] code: pft/301"
 * (lib/smp_processor_id.c): the call and the task. */
static void where_preemptible(struct sbuf *sb, const char *r, size_t n)
{
	const char *in = find(r, n, " in preemptible"), *code = find_last(r, n, " code: "), *sl;
	size_t c;

	sb_puts(sb, "using ");
	sb_put(sb, r, in ? (size_t)(in - r) : n);
	if (!code)
		return;
	code += 7;
	c = n - (size_t)(code - r);
	sl = find_last(code, c, "/");
	sb_puts(sb, " in preemptible code: ");
	put_comm(sb, code, sl ? (size_t)(sl - code) : c);
}

/* RCU: "rcu: INFO: rcu_preempt self-detected stall on CPU", "... detected stalls on
 * CPUs/tasks:", "... detected expedited stalls on CPUs/tasks: { 3-... } 21 jiffies ...",
 * "INFO: rcu_tasks detected stalls on tasks:": the flavour and the kind of stall, up to the
 * colon, brace or comma that the CPUs, counts and times follow.  The flavour is the
 * kernel's configuration, not the boot's, so it compares across boots. */
static void where_rcu(struct sbuf *sb, const char *r, size_t n)
{
	size_t k = 0;

	while (k < n && !strchr(":{,(", r[k]))
		k++;
	while (k > 0 && (r[k - 1] == ' ' || r[k - 1] == '.'))
		k--;
	sb_puts(sb, "rcu");
	sb_put(sb, r, k);
}

/* "watchdog: BUG: soft lockup - CPU#5 stuck for 22s! [pft:301]" (kernel/watchdog.c): the
 * task in the brackets, without its PID. */
static void where_soft_lockup(struct sbuf *sb, const char *r, size_t n)
{
	const char *open = find_last(r, n, "["), *close;

	if (!open || !(close = memchr(open, ']', n - (size_t)(open - r)))) {
		sb_puts(sb, "?");
		return;
	}
	open++;
	put_comm(sb, open, cut_number(open, (size_t)(close - open), ':'));
}

/* "INFO: task pft:301 blocked for more than 120 seconds." (kernel/hung_task.c): the task,
 * without its PID (the last " blocked" ends the comm: a comm may hold anything). */
static void where_hung_task(struct sbuf *sb, const char *r, size_t n)
{
	const char *b = find_last(r, n, " blocked for more than ");

	if (b)
		n = (size_t)(b - r);
	put_comm(sb, r, cut_number(r, n, ':'));
}

/* KASAN "BUG: KASAN: slab-out-of-bounds in fn+0x1/0x2" (mm/kasan/report.c), KFENCE "BUG:
 * KFENCE: out-of-bounds read in fn+0x1/0x2" (mm/kfence/report.c): the bug type and the
 * function; a report without " in " ("invalid-access") as it is. */
static void where_sanitizer(struct sbuf *sb, const char *r, size_t n)
{
	const char *in = find(r, n, " in ");

	if (!in) {
		sb_put(sb, r, n);
		return;
	}
	sb_put(sb, r, (size_t)(in + 4 - r));
	put_symbol(sb, in + 4, n - (size_t)(in + 4 - r));
}

/* "UBSAN: array-index-out-of-bounds in mm/foo.c:12:3" (lib/ubsan.c ubsan_prologue): the
 * check and file:line.  The column is dropped: the other kinds' sites are file:line too, and
 * gcc and clang give different columns for the same expression, so the same check in two
 * kernels built by each would differ.  UBSAN_TRAP's "UBSAN: array index out of bounds at
 * fn+0x1/0x2" (arch/x86/kernel/traps.c, an oops follows): the check and the function. */
static void where_ubsan(struct sbuf *sb, const char *r, size_t n)
{
	const char *in = find(r, n, " in "), *at = find(r, n, " at "), *loc, *sp;
	size_t m;

	if (in) {
		loc = in + 4;
		m = n - (size_t)(loc - r);
		sp = memchr(loc, ' ', m);
		m = sp ? (size_t)(sp - loc) : m;
		if (is_file_line(loc, cut_number(loc, m, ':')))
			m = cut_number(loc, m, ':');
		sb_put(sb, r, (size_t)(loc - r));
		sb_put(sb, loc, m);
	} else if (at) {
		sb_put(sb, r, (size_t)(at + 4 - r));
		put_symbol(sb, at + 4, n - (size_t)(at + 4 - r));
	} else {
		sb_put(sb, r, n);
	}
}

/* ---- the reports -------------------------------------------------------------------------- */

enum where_rule {
	W_REST,  /* the line after the prefix */
	W_TAG,   /* the line after its "WARNING: ", "BUG: " or "INFO: " */
	W_FIXED, /* the matcher's fixed text */
	W_FN,    /* the matcher's function, given the line after the prefix */
};

/* A report's first line, after printk's prefix and the pr_fmt above: it starts with prefix,
 * holds `has` after it, ends with suffix (each when not NULL).  Typed from Linux 6.12.
 *
 * The lockdep kinds' and rcu-stall's where is fixed text, not the first lock's name from a
 * later line: lockdep reports once a boot (debug_locks_off), so a log holds no two to tell
 * apart; the names of locks without a static key carry a number ("&sb->s_type->i_mutex_key#12")
 * that follows registration order, which changes from boot to boot; and a later line may be
 * another CPU's. */
struct matcher {
	const char *prefix, *has, *suffix;
	enum kwarn_kind kind;
	enum where_rule rule;
	const char *fixed;
	void (*fn)(struct sbuf *sb, const char *rest, size_t n);
};

static const struct matcher matchers[] = {
	{ "WARNING: CPU: ", NULL, NULL, KWARN_WARNING, W_FN, NULL, where_warning },
	/* kernel/sched/core.c __might_resched: the file:line of the might_sleep(). */
	{ "BUG: sleeping function called from invalid context at ", NULL, NULL,
	  KWARN_SLEEP_IN_ATOMIC, W_REST, NULL, NULL },
	{ "BUG: scheduling while atomic: ", NULL, NULL, KWARN_SLEEP_IN_ATOMIC, W_FN, NULL,
	  where_sched_atomic },
	/* __cant_sleep and __cant_migrate: the other checks of atomic context, folded in. */
	{ "BUG: assuming atomic context at ", NULL, NULL, KWARN_SLEEP_IN_ATOMIC, W_TAG, NULL,
	  NULL },
	{ "BUG: assuming non migratable context at ", NULL, NULL, KWARN_SLEEP_IN_ATOMIC, W_TAG,
	  NULL, NULL },
	{ "BUG: using ", " in preemptible [", NULL, KWARN_SLEEP_IN_ATOMIC, W_FN, NULL,
	  where_preemptible },
	{ "WARNING: possible circular locking dependency detected", NULL, NULL,
	  KWARN_LOCKDEP_CIRCULAR, W_TAG, NULL, NULL },
	{ "WARNING: possible recursive locking detected", NULL, NULL, KWARN_LOCKDEP_RECURSIVE,
	  W_TAG, NULL, NULL },
	{ "WARNING: inconsistent lock state", NULL, NULL, KWARN_LOCKDEP_INCONSISTENT, W_TAG, NULL,
	  NULL },
	/* kernel/locking/lockdep.c's other reports. */
	{ "WARNING: ", NULL, "-unsafe lock order detected", KWARN_LOCKDEP, W_TAG, NULL, NULL },
	{ "WARNING: possible irq lock inversion dependency detected", NULL, NULL, KWARN_LOCKDEP,
	  W_TAG, NULL, NULL },
	{ "WARNING: chain_key collision", NULL, NULL, KWARN_LOCKDEP, W_TAG, NULL, NULL },
	{ "WARNING: Nested lock was not taken", NULL, NULL, KWARN_LOCKDEP, W_TAG, NULL, NULL },
	{ "WARNING: bad unlock balance detected!", NULL, NULL, KWARN_LOCKDEP, W_TAG, NULL, NULL },
	{ "WARNING: bad contention detected!", NULL, NULL, KWARN_LOCKDEP, W_TAG, NULL, NULL },
	{ "WARNING: held lock freed!", NULL, NULL, KWARN_LOCKDEP, W_TAG, NULL, NULL },
	{ "WARNING: ", NULL, " still has locks held!", KWARN_LOCKDEP, W_FIXED,
	  "still has locks held!", NULL },
	{ "WARNING: lock held when returning to user space!", NULL, NULL, KWARN_LOCKDEP, W_TAG,
	  NULL, NULL },
	{ "WARNING: suspicious RCU usage", NULL, NULL, KWARN_LOCKDEP, W_TAG, NULL, NULL },
	{ "[ BUG: Invalid wait context ]", NULL, NULL, KWARN_LOCKDEP, W_FIXED,
	  "Invalid wait context", NULL },
	{ "BUG: MAX_", NULL, " too low!", KWARN_LOCKDEP, W_TAG, NULL, NULL },
	{ "BUG: looking up invalid subclass: ", NULL, NULL, KWARN_LOCKDEP, W_FIXED,
	  "looking up invalid subclass", NULL },
	{ "BUG: key ", NULL, " has not been registered!", KWARN_LOCKDEP, W_FIXED,
	  "key has not been registered!", NULL },
	{ "INFO: trying to register non-static key.", NULL, NULL, KWARN_LOCKDEP, W_TAG, NULL,
	  NULL },
	{ "INFO: rcu", "detected ", NULL, KWARN_RCU_STALL, W_FN, NULL, where_rcu },
	{ "BUG: soft lockup - CPU#", NULL, NULL, KWARN_SOFT_LOCKUP, W_FN, NULL,
	  where_soft_lockup },
	{ "Watchdog detected hard LOCKUP on cpu ", NULL, NULL, KWARN_HARD_LOCKUP, W_FIXED,
	  "hard LOCKUP", NULL },
	/* kernel/workqueue.c wq_watchdog_timer_fn: the pool's CPUs and node name no site. */
	{ "BUG: workqueue lockup - pool", NULL, NULL, KWARN_WORKQUEUE_LOCKUP, W_FIXED,
	  "workqueue lockup", NULL },
	{ "INFO: task ", " blocked for more than ", NULL, KWARN_HUNG_TASK, W_FN, NULL,
	  where_hung_task },
	{ "BUG: KASAN: ", NULL, NULL, KWARN_KASAN, W_FN, NULL, where_sanitizer },
	{ "UBSAN: ", NULL, NULL, KWARN_UBSAN, W_FN, NULL, where_ubsan },
	{ "BUG: KFENCE: ", NULL, NULL, KWARN_KFENCE, W_FN, NULL, where_sanitizer },
};

static const struct matcher *match_body(const char *b, size_t bn)
{
	for (size_t i = 0; i < sizeof(matchers) / sizeof(matchers[0]); i++) {
		const struct matcher *m = &matchers[i];
		size_t p = strlen(m->prefix);

		if (starts(b, bn, m->prefix) && (!m->has || find(b + p, bn - p, m->has)) &&
		    (!m->suffix || ends(b + p, bn - p, m->suffix)))
			return m;
	}
	return NULL;
}

/* The report line's where, cleaned and cut to KWARN_WHERE_MAX. */
static void where_of(const struct matcher *m, const char *b, size_t bn, char *out)
{
	size_t p = strlen(m->prefix);
	struct sbuf sb = { .n = 0 };
	const char *tag;

	switch (m->rule) {
	case W_REST:
		sb_put(&sb, b + p, bn - p);
		break;
	case W_TAG:
		tag = find(b, bn, ": ");
		tag = tag ? tag + 2 : b;
		sb_put(&sb, tag, bn - (size_t)(tag - b));
		break;
	case W_FIXED:
		sb_puts(&sb, m->fixed);
		break;
	case W_FN:
		m->fn(&sb, b + p, bn - p);
		break;
	}
	put_clean(out, KWARN_WHERE_MAX, sb.b, sb.n, 0);
	if (!out[0]) /* nothing, or only CRs: a site all the same */
		snprintf(out, KWARN_WHERE_MAX, "?");
}

int kwarn_line_kind(const char *l, size_t n, enum kwarn_kind *kind)
{
	size_t bn;
	const char *b = line_body(l, n, &bn);
	const struct matcher *m;

	b = skip_pr_fmt(b, &bn);
	m = match_body(b, bn);
	if (m && kind)
		*kind = m->kind;
	return m != NULL;
}

/* ---- the scan ----------------------------------------------------------------------------- */

/* The line a report opens with, a few lines before its first: WARN()'s and UBSAN's "cut here"
 * (include/asm-generic/bug.h CUT_HERE), lockdep's, KASAN's and KFENCE's row of '='. */
enum opener { OPEN_NONE, OPEN_CUT, OPEN_RULE };

static enum opener opener_of(const char *b, size_t bn)
{
	size_t eq = 0;

	if (starts(b, bn, "------------[ cut here ]------------"))
		return OPEN_CUT;
	while (eq < bn && b[eq] == '=')
		eq++;
	return eq >= 16 && eq == bn ? OPEN_RULE : OPEN_NONE;
}

static enum opener kind_opener(enum kwarn_kind k)
{
	switch (k) {
	case KWARN_WARNING:
	case KWARN_UBSAN:
		return OPEN_CUT;
	case KWARN_LOCKDEP_CIRCULAR:
	case KWARN_LOCKDEP_RECURSIVE:
	case KWARN_LOCKDEP_INCONSISTENT:
	case KWARN_LOCKDEP:
	case KWARN_KASAN:
	case KWARN_KFENCE:
		return OPEN_RULE;
	default:
		return OPEN_NONE;
	}
}

/* Where the report of kind whose first line starts at off begins: its opening line when one
 * is among the KWARN_BEFORE lines before, and no other report's line (its first, its end,
 * another opening) is between; else off. */
static size_t report_start(const char *t, size_t off, enum kwarn_kind kind)
{
	size_t a = off;

	for (int i = 0; i < KWARN_BEFORE && a > 0; i++) {
		size_t e = a - 1, bn; /* e: the previous line's newline */
		const char *b;
		enum opener o;

		a = e;
		while (a > 0 && t[a - 1] != '\n')
			a--;
		b = line_body(t + a, e - a, &bn);
		o = opener_of(b, bn);
		if (o != OPEN_NONE)
			return o == kind_opener(kind) ? a : off;
		if (starts(b, bn, "---[ end trace") || kwarn_line_kind(t + a, e - a, NULL))
			return off;
	}
	return off;
}

/* The end of the report of kind whose first line starts at off: after its "---[ end trace
 * ... ]---" (kernel/panic.c, lib/ubsan.c) or KASAN's and KFENCE's closing row of '=', before
 * the next report's first or opening line, else after KWARN_EXCERPT_LINES lines. */
static size_t report_end(const char *t, size_t len, size_t off, enum kwarn_kind kind)
{
	int closing_rule = kind == KWARN_KASAN || kind == KWARN_KFENCE;

	for (int i = 0; i < KWARN_EXCERPT_LINES && off < len; i++) {
		const char *nl = memchr(t + off, '\n', len - off), *b;
		size_t n = nl ? (size_t)(nl - (t + off)) : len - off, bn;
		enum opener o;

		b = line_body(t + off, n, &bn);
		o = opener_of(b, bn);
		if (i > 0 && (o == OPEN_CUT || (o == OPEN_RULE && !closing_rule) ||
			      kwarn_line_kind(t + off, n, NULL)))
			return off;
		off = nl ? off + n + 1 : len;
		if (i > 0 && (starts(b, bn, "---[ end trace") || o == OPEN_RULE))
			break;
	}
	return off;
}

/* t[a, b) as an excerpt: at most KWARN_EXCERPT_MAX bytes, CRs dropped, valid UTF-8, control
 * characters but tab and newline '?' (as put_clean, so first_line is found in it), no
 * trailing newline. */
static char *excerpt_dup(const char *t, size_t a, size_t b)
{
	size_t k = 0;
	char *s;

	if (b - a > KWARN_EXCERPT_MAX)
		b = a + KWARN_EXCERPT_MAX;
	s = malloc(b - a + 1);
	if (!s)
		return NULL;
	for (size_t i = a; i < b; i++)
		if (t[i] != '\r')
			s[k++] = t[i];
	text_utf8_sanitize(s, k);
	mask_controls(s, k, 1, 1);
	while (k > 0 && s[k - 1] == '\n')
		k--;
	s[k] = '\0';
	return s;
}

/* The excerpt of the report whose first line starts at off.  Its opening line is at most
 * KWARN_EXCERPT_MAX / 2 before (else the excerpt starts at off), and the message within
 * BODY_SPACES and two brackets of the line's start, so first_line is always in it. */
static char *excerpt_of(const char *t, size_t len, size_t off, enum kwarn_kind kind)
{
	size_t a = report_start(t, off, kind);

	if (off - a > KWARN_EXCERPT_MAX / 2)
		a = off;
	return excerpt_dup(t, a, report_end(t, len, off, kind));
}

/* Fingerprints of the (kind, where) dropped beyond KWARN_MAX, to count each once: an open
 * hash set of 64-bit FNV-1a hashes, grown as needed (at most one a console line).  Two
 * distinct sites sharing a hash would be counted once: negligible at 64 bits. */
struct fpset {
	uint64_t *v;
	size_t cap, n;
};

static uint64_t fingerprint(enum kwarn_kind kind, const char *where)
{
	uint64_t h = 1469598103934665603ull;

	h = (h ^ (unsigned)kind) * 1099511628211ull;
	for (; *where; where++)
		h = (h ^ (unsigned char)*where) * 1099511628211ull;
	return h ? h : 1; /* 0 marks an empty slot */
}

static int fpset_insert(uint64_t *v, size_t cap, uint64_t h)
{
	size_t i = (size_t)h & (cap - 1);

	while (v[i] && v[i] != h)
		i = (i + 1) & (cap - 1);
	if (v[i])
		return 0;
	v[i] = h;
	return 1;
}

/* 1 when h is new, 0 when seen, -ENOMEM. */
static int fpset_add(struct fpset *s, uint64_t h)
{
	int r;

	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				fpset_insert(v, cap, s->v[i]);
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	r = fpset_insert(s->v, s->cap, h);
	s->n += (size_t)r;
	return r;
}

/* A report of (kind, where) at off, its message b[0, bn): counted, kept, or dropped. */
static int record(struct kwarn_list *l, struct fpset *drop, const char *t, size_t len,
		  size_t off, const char *b, size_t bn, enum kwarn_kind kind, const char *where)
{
	struct kwarn *w;
	int r;

	for (unsigned i = 0; i < l->n; i++)
		if (l->items[i].kind == kind && !strcmp(l->items[i].where, where)) {
			l->items[i].count += l->items[i].count < UINT_MAX;
			return 0;
		}
	if (l->n == KWARN_MAX) {
		r = fpset_add(drop, fingerprint(kind, where));
		l->dropped += r > 0 && l->dropped < UINT_MAX;
		return r < 0 ? r : 0;
	}
	w = &l->items[l->n];
	w->kind = kind;
	w->count = 1;
	snprintf(w->where, sizeof(w->where), "%s", where);
	put_clean(w->first_line, sizeof(w->first_line), b, bn, 1);
	w->excerpt = excerpt_of(t, len, off, kind);
	if (!w->excerpt)
		return -ENOMEM;
	l->n++;
	return 0;
}

/* One console line t[off, off + n): a report's first line is recorded. */
static int scan_line(struct kwarn_list *l, struct fpset *drop, const char *t, size_t len,
		     size_t off, size_t n)
{
	char where[KWARN_WHERE_MAX];
	const struct matcher *m;
	const char *b, *msg;
	size_t bn, mn;

	msg = line_body(t + off, n, &mn);
	bn = mn;
	b = skip_pr_fmt(msg, &bn);
	m = match_body(b, bn);
	if (!m)
		return 0;
	where_of(m, b, bn, where);
	/* first_line keeps the pr_fmt ("watchdog: BUG: soft lockup ..."): the kernel's line. */
	return record(l, drop, t, len, off, msg, mn, m->kind, where);
}

int kwarn_scan(const char *text, size_t len, struct kwarn_list *out)
{
	struct fpset drop = { 0 };
	size_t off = 0;
	int r = 0;

	memset(out, 0, sizeof(*out));
	while (off < len && r == 0) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;

		r = scan_line(out, &drop, text, len, off, n);
		off += n + 1;
	}
	free(drop.v);
	return r;
}

void kwarn_list_free(struct kwarn_list *l)
{
	for (unsigned i = 0; i < l->n && i < KWARN_MAX; i++)
		free(l->items[i].excerpt);
	memset(l, 0, sizeof(*l));
}
