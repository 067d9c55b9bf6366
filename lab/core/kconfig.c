/* Kconfig text: parse .config and fragments, merge fragments onto a base, check what stuck,
 * pick the options a report shows, and name known confounds.  Pure (see kvariant.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kvariant.h"
#include "util/cleanup.h"
#include "util/strbuf.h"

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
/* A bound on auto.conf.cmd's list: 6.12 on x86 lists 1606 files. */
#define KCONFIG_DEPS_MAX 20000

/* One line of Kconfig text: 1 = an option (name/value point into the line, not terminated),
 * 0 = blank or comment, -1 = anything else. */
static int split_line(const char *l, size_t n, const char **name, size_t *nlen,
		      const char **val, size_t *vlen)
{
	static const char unset[] = " is not set";
	size_t k;

	while (n && (l[n - 1] == ' ' || l[n - 1] == '\t' || l[n - 1] == '\r'))
		n--;
	if (n == 0)
		return 0;
	if (l[0] == '#') {
		if (n > 9 && !strncmp(l, "# CONFIG_", 9)) {
			k = strspn(l + 9, NAME_CHARS);
			if (k && k < n - 9 && n - 9 - k == sizeof(unset) - 1 &&
			    !strncmp(l + 9 + k, unset, sizeof(unset) - 1)) {
				*name = l + 9, *nlen = k, *val = "n", *vlen = 1;
				return 1;
			}
		}
		return 0;
	}
	if (n < 8 || strncmp(l, "CONFIG_", 7))
		return -1;
	k = strspn(l + 7, NAME_CHARS);
	if (!k || k >= n - 7 || l[7 + k] != '=' || 7 + k + 1 >= n)
		return -1;
	*name = l + 7, *nlen = k, *val = l + 8 + k, *vlen = n - 8 - k;
	return 1;
}

static int add_opt(struct kconfig *c, unsigned *cap, const char *name, size_t nlen,
		   const char *val, size_t vlen, unsigned line)
{
	if (c->n == KCONFIG_MAX_OPTIONS)
		return -E2BIG;
	if (c->n == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 256;
		struct kopt *o = realloc(c->opts, ncap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		c->opts = o, *cap = ncap;
	}
	c->opts[c->n].name = strndup(name, nlen);
	c->opts[c->n].value = strndup(val, vlen);
	c->opts[c->n].line = line;
	if (!c->opts[c->n].name || !c->opts[c->n].value) {
		free(c->opts[c->n].name);
		free(c->opts[c->n].value);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

int kconfig_parse(const char *text, int strict, struct kconfig *out, struct lab_error *err)
{
	unsigned cap = 0, line = 0;
	const char *p = text;

	memset(out, 0, sizeof(*out));
	while (*p) {
		const char *nl = strchr(p, '\n'), *name, *val;
		size_t n = nl ? (size_t)(nl - p) : strlen(p), nlen, vlen;
		int k = split_line(p, n, &name, &nlen, &val, &vlen), r = 0;

		line++;
		if (k < 0 && strict) {
			kconfig_free(out);
			return error_set(err, "", "line %u: expected CONFIG_NAME=VALUE or "
					 "\"# CONFIG_NAME is not set\"", line);
		}
		if (k > 0)
			r = add_opt(out, &cap, name, nlen, val, vlen, line);
		if (r < 0) {
			kconfig_free(out);
			return r == -E2BIG ? error_set(err, "", "more than %d options",
						       KCONFIG_MAX_OPTIONS) : r;
		}
		p += n + (nl ? 1 : 0);
	}
	return 0;
}

void kconfig_free(struct kconfig *c)
{
	for (unsigned i = 0; i < c->n; i++) {
		free(c->opts[i].name);
		free(c->opts[i].value);
	}
	free(c->opts);
	c->opts = NULL;
	c->n = 0;
}

/* The last entry for name (a later line wins, as in Kconfig). */
static const struct kopt *find(const struct kconfig *c, const char *name)
{
	for (unsigned i = c->n; i-- > 0;)
		if (!strcmp(c->opts[i].name, name))
			return &c->opts[i];
	return NULL;
}

const char *kconfig_get(const struct kconfig *c, const char *name)
{
	const struct kopt *o = find(c, name);

	return o ? o->value : NULL;
}

/* The fragment entry that decides name: the last one of the last fragment naming it. */
static const struct kopt *winner(const struct kconfig *frags, unsigned nfrags, const char *name)
{
	for (unsigned i = nfrags; i-- > 0;) {
		const struct kopt *o = find(&frags[i], name);

		if (o)
			return o;
	}
	return NULL;
}

static void emit(struct strbuf *sb, const struct kopt *o)
{
	if (!strcmp(o->value, "n"))
		strbuf_appendf(sb, "# CONFIG_%s is not set\n", o->name);
	else
		strbuf_appendf(sb, "CONFIG_%s=%s\n", o->name, o->value);
}

int kconfig_merge(const char *base, const struct kconfig *frags, unsigned nfrags, char **out)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const char *p = base;

	while (*p) {
		const char *nl = strchr(p, '\n'), *name, *val;
		size_t n = nl ? (size_t)(nl - p) : strlen(p), nlen, vlen;
		char key[256];

		if (split_line(p, n, &name, &nlen, &val, &vlen) > 0 && nlen < sizeof(key)) {
			memcpy(key, name, nlen);
			key[nlen] = '\0';
			if (winner(frags, nfrags, key)) {
				p += n + (nl ? 1 : 0);
				continue;
			}
		}
		strbuf_appendn(&sb, p, n);
		strbuf_append(&sb, "\n");
		p += n + (nl ? 1 : 0);
	}
	for (unsigned i = 0; i < nfrags; i++)
		for (unsigned k = 0; k < frags[i].n; k++)
			if (winner(frags, nfrags, frags[i].opts[k].name) == &frags[i].opts[k])
				emit(&sb, &frags[i].opts[k]);
	return strbuf_take(&sb, out);
}

unsigned kconfig_check(const struct kconfig *frags, const char *const *names, unsigned nfrags,
		       const struct kconfig *final, struct kmismatch *out, unsigned max)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < nfrags; i++) {
		for (unsigned k = 0; k < frags[i].n; k++) {
			const struct kopt *o = &frags[i].opts[k];
			const char *got = kconfig_get(final, o->name);

			if (winner(frags, nfrags, o->name) != o)
				continue;
			/* Kconfig leaves an option out of .config when its dependencies are not
			 * met: for a bool that is "n". */
			if (got ? !strcmp(got, o->value) : !strcmp(o->value, "n"))
				continue;
			if (bad < max) {
				struct kmismatch *m = &out[bad];

				snprintf(m->name, sizeof(m->name), "%s", o->name);
				snprintf(m->wanted, sizeof(m->wanted), "%s", o->value);
				snprintf(m->got, sizeof(m->got), "%s",
					 got ? got : "n (absent: dependencies not met)");
				snprintf(m->where, sizeof(m->where), "%s:%u", names[i], o->line);
			}
			bad++;
		}
	}
	return bad;
}

void kmismatch_format(const struct kmismatch *m, char *buf, size_t len)
{
	snprintf(buf, len, "CONFIG_%s: wanted %s, got %s (%s)", m->name, m->wanted, m->got,
		 m->where);
}

/* ---- report view ---------------------------------------------------------------------------- */

/* Shown in every report: what decides how page faults scale, and the usual suspects. */
static const char *const always_shown[] = {
	"SPLIT_PTE_PTLOCKS", "SPLIT_PMD_PTLOCKS", "PER_VMA_LOCK", "PER_VMA_LOCK_STATS",
	"HUGETLB_PMD_PAGE_TABLE_SHARING", "TRANSPARENT_HUGEPAGE", "TRANSPARENT_HUGEPAGE_ALWAYS",
	"TRANSPARENT_HUGEPAGE_MADVISE", "HUGETLBFS", "NUMA", "NUMA_BALANCING", "NR_CPUS", "HZ",
	"NO_HZ_IDLE", "PREEMPT_NONE", "PREEMPT_VOLUNTARY", "PREEMPT", "MEMCG", "SMP",
	"LRU_GEN", "MMU_GATHER_RCU_TABLE_FREE", "SLUB_TINY", "CC_OPTIMIZE_FOR_PERFORMANCE", NULL,
};

struct confound {
	const char *option, *value;  /* when the final .config has option=value ... */
	const char *also, *also_val; /* ... and also=also_val ... */
	const char *unless, *unless_val; /* ... unless this other option has this value */
	const char *note;
};

/* Options a variant switches that take others with them.  The HUGETLB one is real in 6.12:
 * fs/Kconfig has HUGETLB_PMD_PAGE_TABLE_SHARING depend on SPLIT_PMD_PTLOCKS; it only
 * matters when hugetlbfs is built in (otherwise sharing is off on both sides). */
static const struct confound confounds[] = {
	{ "SPLIT_PMD_PTLOCKS", "n", "HUGETLB_PMD_PAGE_TABLE_SHARING", "n", "HUGETLBFS", "n",
	  "HUGETLB_PMD_PAGE_TABLE_SHARING depends on SPLIT_PMD_PTLOCKS (6.12 fs/Kconfig): "
	  "hugetlb PMD page-table sharing is off too, which changes hugetlb workloads" },
	{ "SPLIT_PTE_PTLOCKS", "n", "SPLIT_PMD_PTLOCKS", "n", NULL, NULL,
	  "SPLIT_PMD_PTLOCKS depends on SPLIT_PTE_PTLOCKS: split PMD locks are off too" },
	{ "PER_VMA_LOCK", "n", "PER_VMA_LOCK_STATS", "n", NULL, NULL,
	  "PER_VMA_LOCK_STATS depends on PER_VMA_LOCK: no vma_lock_* counters in /proc/vmstat" },
};

const char *kconfig_boot_image(const char *config_text)
{
	struct lab_error err = { 0 };
	struct kconfig c;
	const char *v;
	int pvh;

	if (!config_text || kconfig_parse(config_text, 0, &c, &err) < 0)
		return KCONFIG_IMAGE_BZ;
	v = kconfig_get(&c, "PVH");
	pvh = v && !strcmp(v, "y");
	kconfig_free(&c);
	return pvh ? KCONFIG_IMAGE_PVH : KCONFIG_IMAGE_BZ;
}

static const char *value_or_n(const struct kconfig *c, const char *name)
{
	const char *v = kconfig_get(c, name);

	return v ? v : "n";
}

json_t *kconfig_confounds(const struct kconfig *final)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < sizeof(confounds) / sizeof(confounds[0]); i++) {
		const struct confound *k = &confounds[i];
		char opt[160], also[160];

		if (strcmp(value_or_n(final, k->option), k->value) ||
		    strcmp(value_or_n(final, k->also), k->also_val) ||
		    (k->unless && !strcmp(value_or_n(final, k->unless), k->unless_val)))
			continue;
		snprintf(opt, sizeof(opt), "CONFIG_%s", k->option);
		snprintf(also, sizeof(also), "CONFIG_%s", k->also);
		json_array_append_new(arr, json_pack("{s:s,s:s,s:{s:s},s:s}", "option", opt,
						     "value", k->value, "also", also, k->also_val,
						     "note", k->note));
	}
	return arr;
}

static void shown(json_t *o, const struct kconfig *c, const char *name)
{
	char key[160];

	snprintf(key, sizeof(key), "CONFIG_%s", name);
	json_object_set_new(o, key, json_string(value_or_n(c, name)));
}

json_t *kconfig_subset(const struct kconfig *c, const struct kconfig *frags, unsigned nfrags)
{
	json_t *o = json_object();

	for (unsigned i = 0; o && always_shown[i]; i++)
		shown(o, c, always_shown[i]);
	for (size_t i = 0; o && i < sizeof(confounds) / sizeof(confounds[0]); i++) {
		shown(o, c, confounds[i].option);
		shown(o, c, confounds[i].also);
	}
	for (unsigned i = 0; o && i < nfrags; i++)
		for (unsigned k = 0; k < frags[i].n; k++)
			shown(o, c, frags[i].opts[k].name);
	return o;
}

/* A path of auto.conf.cmd's list: relative, inside the source tree, one word. */
static int dep_ok(const char *p, size_t n)
{
	if (!n || p[0] == '/' || memchr(p, ' ', n) || memchr(p, '\t', n))
		return 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (p[i] == '.' && p[i + 1] == '.' && (i == 0 || p[i - 1] == '/') &&
		    (i + 2 == n || p[i + 2] == '/'))
			return 0;
	return 1;
}

int kconfig_cmd_deps(const char *text, char **list)
{
	static const char head[] = "deps_config := \\\n";
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const char *p = strstr(text, head);
	int n = 0, r = 0;

	*list = NULL;
	if (!p || (p != text && p[-1] != '\n'))
		return -EINVAL;
	for (p += sizeof(head) - 1; r == 0 && *p == '\t'; n++) {
		const char *nl = strchr(++p, '\n'), *end = nl ? nl : p + strlen(p);

		if (end - p >= 2 && end[-1] == '\\' && end[-2] == ' ')
			end -= 2;
		if (!dep_ok(p, (size_t)(end - p)) || n >= KCONFIG_DEPS_MAX)
			return -EINVAL;
		r = strbuf_appendf(&sb, "%.*s\n", (int)(end - p), p);
		p = nl ? nl + 1 : end;
	}
	if (r == 0 && !n)
		r = -EINVAL;
	if (r == 0)
		r = strbuf_take(&sb, list);
	return r < 0 ? r : n;
}
