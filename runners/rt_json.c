/* Helpers shared by the agent and the runners: JSON lines, metrics, parsing, and the
 * params -> argv calling convention. */
#include "rt.h"
#include "util/text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* jansson seeds its hash tables from /dev/urandom on the first object it makes.  Early in a
 * guest's life the kernel's CRNG is not ready yet, and a /dev/urandom read then runs the
 * kernel's jitter-entropy loop until it is: under TCG that took 4 s at 64 vCPUs and 11 s at
 * 256 before the agent could say anything.  The hash seed only defends against crafted keys;
 * every JSON a guest program parses comes from the host's job or from our own runners, so
 * the clock and the PID are seed enough.  A constructor, because every guest program links
 * this file and must seed before its first json_object(). */
__attribute__((constructor)) static void rt_json_seed(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	json_object_seed(((size_t)ts.tv_nsec ^ ((size_t)ts.tv_sec << 20) ^ (size_t)getpid()) | 1);
}

int rt_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int rt_emit_line(int fd, const json_t *j)
{
	_cleanup_free_ char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(15));
	size_t len;
	char *line;

	if (!s)
		return -ENOMEM;
	len = strlen(s);
	if (len + 1 > CHANNEL_MAX_LINE)
		return -EMSGSIZE;
	/* One write() call per line where possible, so a line is never split by a concurrent
	 * writer and a reader sees whole lines. */
	line = realloc(s, len + 2);
	if (!line)
		return -ENOMEM;
	s = line;
	line[len] = '\n';
	line[len + 1] = '\0';
	return rt_write_full(fd, line, len + 1);
}

int rt_write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = rt_write_full(fd, value, strlen(value));
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

json_t *rt_metric(double value, const char *unit, const char *better)
{
	return json_pack("{s:f, s:s, s:s}", "value", value, "unit", unit, "better", better);
}

/* Parse leading digits of s into *v; *end points after them.  strtoul would accept signs
 * and spaces, which we do not want in parameters. */
static int parse_digits(const char *s, unsigned long *v, const char **end)
{
	unsigned long acc = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (acc > (ULONG_MAX - d) / 10)
			return -ERANGE;
		acc = acc * 10 + d;
	}
	*v = acc;
	*end = p;
	return 0;
}

int rt_parse_ulong(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	const char *end;
	unsigned long v;
	int r = parse_digits(s, &v, &end);

	if (r < 0)
		return r;
	if (*end)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

/* Bounds what a hostile or corrupt cpulist ("0-4294967295") can make us allocate. */
#define CPULIST_MAX_ID 65535u

int rt_parse_cpulist(const char *s, unsigned **out, size_t *n)
{
	_cleanup_free_ unsigned *v = NULL;
	size_t cnt = 0, cap = 0;
	const char *p = s;

	while (*p && *p != '\n') {
		unsigned long lo, hi;
		const char *end;
		int r = parse_digits(p, &lo, &end);

		if (r < 0)
			return r;
		hi = lo;
		if (*end == '-') {
			r = parse_digits(end + 1, &hi, &end);
			if (r < 0)
				return r;
		}
		if (lo > hi || hi > CPULIST_MAX_ID)
			return -ERANGE;
		for (unsigned long c = lo; c <= hi; c++) {
			if (cnt == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				unsigned *nv = realloc(v, ncap * sizeof(*v));

				if (!nv)
					return -ENOMEM;
				v = nv;
				cap = ncap;
			}
			v[cnt++] = (unsigned)c;
		}
		if (*end == ',')
			end++;
		else if (*end && *end != '\n')
			return -EINVAL;
		p = end;
	}
	if (*p == '\n' && p[1])
		return -EINVAL;
	if (cnt > 1) {
		size_t w = 1;

		qsort(v, cnt, sizeof(*v), cmp_unsigned);
		for (size_t i = 1; i < cnt; i++)
			if (v[i] != v[w - 1])
				v[w++] = v[i];
		cnt = w;
	}
	*out = v;
	v = NULL;
	*n = cnt;
	return 0;
}

double rt_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One home for the check (lab/util/text.c), shared with the host's reader of the console. */
void rt_utf8_sanitize(char *s, size_t len)
{
	text_utf8_sanitize(s, len);
}

/* ---- runner argv (the calling convention of PROTOCOL.md) ---------------------------------- */

/* Numbers as integers when integral, otherwise the shortest decimal that reads back. */
static char *rt_number_str(const json_t *v)
{
	char buf[64];
	double d;

	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
		return strdup(buf);
	}
	d = json_real_value(v);
	if (d == floor(d) && fabs(d) < 9007199254740992.0) {
		snprintf(buf, sizeof(buf), "%.0f", d);
		return strdup(buf);
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	return strdup(buf);
}

static char *rt_scalar_str(const json_t *v)
{
	return json_is_string(v) ? strdup(json_string_value(v)) : rt_number_str(v);
}

static char *rt_array_str(const json_t *a)
{
	char *s = strdup("");
	size_t len = 0, i;
	json_t *e;

	json_array_foreach(a, i, e) {
		_cleanup_free_ char *one = rt_scalar_str(e);
		size_t n = one ? strlen(one) : 0;
		char *ns = (s && one) ? realloc(s, len + n + 2) : NULL;

		if (!ns) {
			free(s);
			return NULL;
		}
		s = ns;
		if (i)
			s[len++] = ',';
		memcpy(s + len, one, n + 1);
		len += n;
	}
	return s;
}

static int rt_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void rt_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

int rt_argv_build(const char *bin_dir, const char *name, const json_t *params, char ***out)
{
	size_t np = json_object_size(params), argc = 0, nk = 0;
	_cleanup_free_ const char **keys = calloc(np + 1, sizeof(*keys));
	char **argv = calloc(2 * np + 3, sizeof(*argv));
	const char *key;
	json_t *v;

	if (!keys || !argv)
		goto oom;
	json_object_foreach((json_t *)params, key, v)
		keys[nk++] = key;
	qsort(keys, nk, sizeof(*keys), rt_cmp_str);
	if (asprintf(&argv[argc++], "%s/%s", bin_dir, name) < 0 ||
	    !(argv[argc++] = strdup("--json")))
		goto oom;
	for (size_t i = 0; i < nk; i++) {
		v = json_object_get(params, keys[i]);
		if (json_is_false(v) || json_is_null(v))
			continue;
		if (asprintf(&argv[argc++], "--%s", keys[i]) < 0)
			goto oom;
		for (char *p = argv[argc - 1]; *p; p++)
			*p = *p == '_' ? '-' : *p;
		if (json_is_true(v))
			continue;
		argv[argc] = json_is_array(v) ? rt_array_str(v) : rt_scalar_str(v);
		if (!argv[argc++])
			goto oom;
	}
	*out = argv;
	return 0;
oom:
	rt_argv_free(argv);
	return -ENOMEM;
}
