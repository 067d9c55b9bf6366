/* What the guest says about its kernel (runners/rt_kconfig.c): its .config from
 * /proc/config.gz and the vma_lock_* counters of /proc/vmstat.  Untrusted input: every line
 * is size-bounded and type-checked; what fails is counted and ignored.  Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/collect.h"
#include "core/kvariant.h"

#define KGUEST_MAX_COUNTERS 16

/* {"vma_lock_success": N, ...}: at most 16 keys vma_lock_[a-z_]+, non-negative integers. */
static json_t *counters(const json_t *v)
{
	const char *key;
	json_t *val, *out;

	if (!json_is_object(v) || json_object_size(v) > KGUEST_MAX_COUNTERS)
		return NULL;
	json_object_foreach((json_t *)v, key, val) {
		size_t n = strlen(key);

		if (n < 10 || n > 64 || strncmp(key, "vma_lock_", 9) ||
		    strspn(key + 9, "abcdefghijklmnopqrstuvwxyz_") != n - 9 ||
		    !json_is_integer(val) || json_integer_value(val) < 0)
			return NULL;
	}
	out = json_deep_copy(v);
	if (out && json_object_size(out) == 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}

/* The whole line is checked before any of it is kept: a bad line changes nothing. */
static int kernel_line(const json_t *m, struct kguest *g)
{
	const json_t *cfg = json_object_get(m, "config"), *why = json_object_get(m, "config_error");
	const json_t *vm = json_object_get(m, "vmstat");
	json_t *counted = json_is_object(vm) ? counters(vm) : NULL;
	char *text = NULL;

	if ((cfg && !json_is_string(cfg) && !json_is_null(cfg)) ||
	    (json_is_string(cfg) && (json_string_length(cfg) > KCONFIG_MAX_TEXT ||
				     strlen(json_string_value(cfg)) != json_string_length(cfg))) ||
	    (why && !json_is_string(why)) || (vm && !json_is_object(vm) && !json_is_null(vm)) ||
	    (json_is_object(vm) && json_object_size(vm) && !counted)) {
		json_decref(counted);
		return -EINVAL;
	}
	if (json_is_string(cfg) && !(text = strdup(json_string_value(cfg)))) {
		json_decref(counted);
		return -ENOMEM;
	}
	free(g->config);
	g->config = text;
	snprintf(g->config_error, sizeof(g->config_error), "%s", why ? json_string_value(why) : "");
	json_decref(g->vm_start);
	g->vm_start = counted;
	g->seen = 1;
	return 0;
}

static int vmstat_line(const json_t *m, struct kguest *g)
{
	const json_t *vm = json_object_get(m, "vmstat");

	if (vm && !json_is_object(vm) && !json_is_null(vm))
		return -EINVAL;
	json_decref(g->vm_end);
	g->vm_end = json_is_object(vm) ? counters(vm) : NULL;
	if (json_is_object(vm) && json_object_size(vm) && !g->vm_end)
		return -EINVAL;
	return 0;
}

static void one_line(const char *s, size_t n, struct kguest *g)
{
	json_error_t jerr;
	json_t *m;
	const char *t;

	/* Cheap filter first: the channel also carries big workload lines. */
	if (!memmem(s, n, "\"t\":\"kernel\"", 12) && !memmem(s, n, "\"t\":\"vmstat\"", 12))
		return;
	m = json_loadb(s, n, JSON_REJECT_DUPLICATES, &jerr);
	t = json_string_value(json_object_get(m, "t"));
	if (t && !strcmp(t, "kernel"))
		g->bad += kernel_line(m, g) < 0;
	else if (t && !strcmp(t, "vmstat"))
		g->bad += vmstat_line(m, g) < 0;
	json_decref(m);
}

int kguest_scan(const char *jsonl, size_t len, struct kguest *g)
{
	size_t off = 0;

	memset(g, 0, sizeof(*g));
	if (len > COLLECT_MAX_TOTAL)
		len = COLLECT_MAX_TOTAL;
	while (off < len) {
		const char *nl = memchr(jsonl + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (jsonl + off)) : len - off;

		if (n <= COLLECT_MAX_LINE)
			one_line(jsonl + off, n, g);
		off += n + 1;
	}
	return 0;
}

void kguest_free(struct kguest *g)
{
	free(g->config);
	json_decref(g->vm_start);
	json_decref(g->vm_end);
	memset(g, 0, sizeof(*g));
}

json_t *kguest_vma_lock_json(const struct kguest *g)
{
	json_t *delta, *out;
	const char *key;
	json_t *v;

	if (!g->vm_start && !g->vm_end)
		return json_null();
	delta = json_object();
	json_object_foreach(g->vm_end, key, v) {
		json_t *s = json_object_get(g->vm_start, key);

		if (delta && s && json_integer_value(v) >= json_integer_value(s))
			json_object_set_new(delta, key, json_integer(json_integer_value(v) -
								     json_integer_value(s)));
	}
	out = json_pack("{s:O?,s:O?,s:o}", "start", g->vm_start, "end", g->vm_end, "delta",
			delta ? delta : json_object());
	return out;
}
