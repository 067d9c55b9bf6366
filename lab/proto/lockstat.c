/* /proc/lock_stat's classes of the seeds' locks: see lockstat.h. */
#include "proto/lockstat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonpath.h"

static const struct {
	const char *name; /* as lockdep prints it, without "#N", "/N", "-W", "-R" */
	int write;        /* 1 the write side (or a spinlock), 0 the read side */
	const char *key;
} classes[LOCKSTAT_NR] = {
	[LOCKSTAT_PAGE_TABLE_LOCK] = { "&mm->page_table_lock", 1, "page_table_lock" },
	[LOCKSTAT_PTLOCK] = { "ptlock_ptr(ptdesc)", 1, "ptlock" },
	[LOCKSTAT_MMAP_LOCK_W] = { "&mm->mmap_lock", 1, "mmap_lock_write" },
	[LOCKSTAT_MMAP_LOCK_R] = { "&mm->mmap_lock", 0, "mmap_lock_read" },
	[LOCKSTAT_VMA_LOCK_W] = { "&vma->vm_lock->lock", 1, "vma_lock_write" },
	[LOCKSTAT_VMA_LOCK_R] = { "&vma->vm_lock->lock", 0, "vma_lock_read" },
};

#define HEADER "lock_stat version 0.4\n"
#define NAME_COLS 40 /* "%40s:" */
#define MAX_COUNT 9007199254740992.0 /* 2^53: exact in JSON and a double */

const char *lockstat_key(enum lockstat_id id)
{
	return (unsigned)id < LOCKSTAT_NR ? classes[id].key : NULL;
}

/* NAME without its "-W"/"-R" (which sets *write), then without "/N" and "#N". */
static void base_name(char *name, int *write)
{
	size_t n = strlen(name);

	*write = 1;
	if (n > 2 && name[n - 2] == '-' && (name[n - 1] == 'W' || name[n - 1] == 'R')) {
		*write = name[n - 1] == 'W';
		name[n -= 2] = '\0';
	}
	for (int k = 0; k < 2; k++) {
		char *p = strrchr(name, k ? '#' : '/');

		if (p && p[1] && strspn(p + 1, "0123456789") == strlen(p + 1))
			*p = '\0';
	}
}

/* The 12 columns after the colon; -EINVAL unless all are there and finite. */
static int columns(const char *s, double v[12])
{
	for (int i = 0; i < 12; i++) {
		char *end;

		v[i] = strtod(s, &end);
		if (end == s || !isfinite(v[i]) || v[i] < 0)
			return -EINVAL;
		s = end;
	}
	return 0;
}

static void add_line(struct lockstat *out, const char *line, size_t len)
{
	char name[NAME_COLS + 1];
	const char *b = line;
	double v[12];
	int write;

	if (len <= NAME_COLS || line[NAME_COLS] != ':')
		return;
	while (b < line + NAME_COLS && *b == ' ')
		b++;
	memcpy(name, b, (size_t)(line + NAME_COLS - b));
	name[line + NAME_COLS - b] = '\0';
	base_name(name, &write);
	{
		char buf[400];
		size_t n = len - NAME_COLS - 1 < sizeof(buf) - 1 ? len - NAME_COLS - 1 : sizeof(buf) - 1;

		memcpy(buf, line + NAME_COLS + 1, n);
		buf[n] = '\0';
		if (columns(buf, v) < 0)
			return;
	}
	for (int i = 0; i < LOCKSTAT_NR; i++) {
		struct lockstat_class *c = &out->c[i];

		if (strcmp(name, classes[i].name) || write != classes[i].write)
			continue;
		c->con_bounces += (uint64_t)v[0];
		c->contentions += (uint64_t)v[1];
		c->wait_total_us += v[4];
		c->acq_bounces += (uint64_t)v[6];
		c->acquisitions += (uint64_t)v[7];
		c->hold_total_us += v[10];
		c->seen = 1;
	}
}

int lockstat_parse(const char *text, size_t len, struct lockstat *out)
{
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	if (len < strlen(HEADER) || memcmp(text, HEADER, strlen(HEADER)))
		return -EINVAL;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		add_line(out, text + i, n);
		i += n + 1;
	}
	return 0;
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

json_t *lockstat_delta_json(const struct lockstat *before, const struct lockstat *after)
{
	json_t *o = json_object();

	for (int i = 0; o && i < LOCKSTAT_NR; i++) {
		const struct lockstat_class *a = &before->c[i], *b = &after->c[i];

		if (!b->seen)
			continue;
		if (json_object_set_new(o, classes[i].key, json_pack(
			"{s:I, s:I, s:I, s:I, s:f, s:f}", "acquisitions",
			(json_int_t)sub(a->acquisitions, b->acquisitions), "contentions",
			(json_int_t)sub(a->contentions, b->contentions), "acq_bounces",
			(json_int_t)sub(a->acq_bounces, b->acq_bounces), "con_bounces",
			(json_int_t)sub(a->con_bounces, b->con_bounces), "wait_total_us",
			fmax(b->wait_total_us - a->wait_total_us, 0), "hold_total_us",
			fmax(b->hold_total_us - a->hold_total_us, 0))) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static int count(const json_t *o, const char *path, const char *key, uint64_t *out,
		 struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), path, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (double)json_integer_value(v) > MAX_COUNT)
		return error_set(err, p, "must be an integer 0..2^53");
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int micros(const json_t *o, const char *path, const char *key, double *out,
		  struct lab_error *err)
{
	const json_t *v = json_object_get(o, key);
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), path, key);
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0 ||
	    json_number_value(v) > MAX_COUNT)
		return error_set(err, p, "must be a number of microseconds 0..2^53");
	*out = json_number_value(v);
	return 0;
}

int lockstat_from_json(const json_t *j, const char *path, struct lockstat *out,
		       struct lab_error *err)
{
	static const char *const fields[] = { "acquisitions", "contentions", "acq_bounces",
					      "con_bounces", "wait_total_us", "hold_total_us",
					      NULL };
	const char *keys[LOCKSTAT_NR + 1];
	int r;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < LOCKSTAT_NR; i++)
		keys[i] = classes[i].key;
	keys[LOCKSTAT_NR] = NULL;
	if (!json_is_object(j))
		return error_set(err, path, "must be an object of lock classes");
	if ((r = jsonpath_check_keys(j, path, keys, err)) < 0)
		return r;
	for (int i = 0; i < LOCKSTAT_NR; i++) {
		const json_t *c = json_object_get(j, classes[i].key);
		struct lockstat_class *x = &out->c[i];
		char p[JSONPATH_LEN];

		if (!c)
			continue;
		jsonpath_key(p, sizeof(p), path, classes[i].key);
		if (!json_is_object(c))
			return error_set(err, p, "must be an object");
		if ((r = jsonpath_check_keys(c, p, fields, err)) < 0 ||
		    (r = count(c, p, "acquisitions", &x->acquisitions, err)) < 0 ||
		    (r = count(c, p, "contentions", &x->contentions, err)) < 0 ||
		    (r = count(c, p, "acq_bounces", &x->acq_bounces, err)) < 0 ||
		    (r = count(c, p, "con_bounces", &x->con_bounces, err)) < 0 ||
		    (r = micros(c, p, "wait_total_us", &x->wait_total_us, err)) < 0 ||
		    (r = micros(c, p, "hold_total_us", &x->hold_total_us, err)) < 0)
			return r;
		x->seen = 1;
	}
	return 0;
}
