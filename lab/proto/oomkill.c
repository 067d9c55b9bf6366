#include "proto/oomkill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"

/* Linux's x86 numbering (signal(7)); 32 and 33 belong to the C library's threads. */
static const char *const signal_names[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
	"SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
	"SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
	"SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS",
};

#define NR_NAMED (sizeof(signal_names) / sizeof(signal_names[0]))
#define SIG_RTMIN 34
#define SIG_MAX 64

const char *oomkill_signal_name(int sig, char *buf, size_t len)
{
	if (sig > 0 && (unsigned)sig < NR_NAMED)
		return signal_names[sig];
	if (sig < 32 || sig > SIG_MAX)
		return NULL;
	if (sig < SIG_RTMIN)
		snprintf(buf, len, "SIG%d", sig);
	else
		snprintf(buf, len, sig == SIG_RTMIN ? "SIGRTMIN" : "SIGRTMIN+%d", sig - SIG_RTMIN);
	return buf;
}

/* The kernel's words (mm/oom_kill.c: dump_header(), dump_oom_summary(), __oom_kill_process();
 * the last prefixed "Out of memory" or, in a memory cgroup, "Memory cgroup out of memory"). */
static const struct {
	enum oomkill_kind kind;
	const char *text;
	int at_start; /* the text opens the line; else it is found anywhere in it */
} kinds[] = {
	{OOMKILL_INVOKED, " invoked oom-killer: ", 0},
	{OOMKILL_CONSTRAINT, "oom-kill:constraint=", 1},
	{OOMKILL_KILLED, "out of memory: Killed process ", 0},
	{OOMKILL_KILLED, "Out of memory: Killed process ", 1},
};

int oomkill_line_kind(const char *text, size_t len)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t k = strlen(kinds[i].text);

		if (kinds[i].at_start ? len >= k && !memcmp(text, kinds[i].text, k)
				      : len >= k && memmem(text, len, kinds[i].text, k))
			return (int)kinds[i].kind;
	}
	return -1;
}

int oomkill_pick_record(struct oomkill_pick *p, const char *rec, size_t len)
{
	const char *text = memchr(rec, ';', len), *nl;
	size_t n;
	int kind;

	if (!text)
		return -1;
	text++;
	nl = memchr(text, '\n', len - (size_t)(text - rec));
	n = nl ? (size_t)(nl - text) : len - (size_t)(text - rec);
	kind = oomkill_line_kind(text, n);
	if (kind < 0)
		return -1;
	p->kills += kind == OOMKILL_KILLED;
	if (p->seen[kind] || p->nr_lines >= OOMKILL_MAX_LINES)
		return kind;
	p->seen[kind] = 1;
	n = n > OOMKILL_MAX_LINE ? OOMKILL_MAX_LINE : n;
	for (size_t i = 0; i < n; i++)
		p->lines[p->nr_lines][i] = text[i] >= 0x20 && text[i] <= 0x7e ? text[i] : '?';
	p->lines[p->nr_lines++][n] = '\0';
	return kind;
}

json_t *oomkill_pick_json(const struct oomkill_pick *p)
{
	json_t *lines;

	if (!p->kills || !(lines = json_array()))
		return NULL;
	for (unsigned i = 0; i < p->nr_lines; i++)
		json_array_append_new(lines, json_string(p->lines[i]));
	return json_pack("{s:I,s:o}", "kills", (json_int_t)p->kills, "lines", lines);
}

static int printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return 0;
	return 1;
}

/* The text from after `key` up to `stop` (or the end), as a new string when it is 1..
 * OOMKILL_MAX_FIELD bytes; else NULL. */
static json_t *field(const char *line, const char *key, const char *stop)
{
	const char *a = strstr(line, key), *b;

	if (!a)
		return NULL;
	a += strlen(key);
	b = stop ? strstr(a, stop) : a + strlen(a);
	if (!b || b == a || b - a > OOMKILL_MAX_FIELD)
		return NULL;
	return json_stringn(a, (size_t)(b - a));
}

static void set_number(json_t *o, const char *k, const char *line, const char *key)
{
	const char *a = strstr(line, key);
	char *end;
	long long v;

	if (!a)
		return;
	v = strtoll(a + strlen(key), &end, 10);
	if (end != a + strlen(key) && v >= 0)
		json_object_set_new(o, k, json_integer(v));
}

/* "Out of memory: Killed process 149 (page_fault2) total-vm:270500kB, anon-rss:203880kB, ..."
 * The name may hold spaces and parentheses: it ends at the last ") total-vm:". */
static void parse_killed(json_t *o, const char *line)
{
	const char *open = strstr(line, "Killed process ");
	const char *close = strstr(line, ") total-vm:");

	set_number(o, "pid", line, "Killed process ");
	if (open && close && (open = strchr(open, '(')) && open < close &&
	    close - open - 1 <= OOMKILL_MAX_FIELD && close > open + 1)
		json_object_set_new(o, "task", json_stringn(open + 1, (size_t)(close - open - 1)));
	set_number(o, "total_vm_kib", line, "total-vm:");
	set_number(o, "anon_rss_kib", line, "anon-rss:");
}

static void parse_constraint(json_t *o, const char *line)
{
	json_t *c = field(line, "constraint=", ","), *m = field(line, ",nodemask=", ",");

	if (c)
		json_object_set_new(o, "constraint", c);
	if (m)
		json_object_set_new(o, "nodemask", m);
}

json_t *oomkill_check(const json_t *v)
{
	json_t *lines = json_object_get(v, "lines"), *kills = json_object_get(v, "kills"), *l;
	_cleanup_json_ json_t *out = NULL;
	size_t i;

	if (!json_is_array(lines) || json_array_size(lines) < 1 ||
	    json_array_size(lines) > OOMKILL_MAX_LINES || !json_is_integer(kills) ||
	    json_integer_value(kills) < 1 || json_integer_value(kills) > OOMKILL_MAX_KILLS)
		return NULL;
	out = json_pack("{s:O,s:O}", "kills", kills, "lines", lines);
	json_array_foreach(lines, i, l) {
		const char *s = json_string_value(l);
		size_t n = json_is_string(l) ? json_string_length(l) : 0;
		int kind = s ? oomkill_line_kind(s, n) : -1;

		if (!out || n < 1 || n > OOMKILL_MAX_LINE || !printable(s, n) || kind < 0)
			return NULL;
		if (kind == OOMKILL_KILLED && !json_object_get(out, "pid"))
			parse_killed(out, s);
		else if (kind == OOMKILL_CONSTRAINT && !json_object_get(out, "constraint"))
			parse_constraint(out, s);
	}
	return TAKE_PTR(out);
}

void oomkill_describe(const json_t *oom, char *buf, size_t len)
{
	const char *task = json_string_value(json_object_get(oom, "task"));
	const char *c = json_string_value(json_object_get(oom, "constraint"));
	const char *mask = json_string_value(json_object_get(oom, "nodemask"));
	json_t *pid = json_object_get(oom, "pid"), *rss = json_object_get(oom, "anon_rss_kib");
	size_t used = 0;

	buf[0] = '\0';
	if (json_is_integer(pid))
		used += (size_t)snprintf(buf, len, "process %lld (%s)",
					 (long long)json_integer_value(pid), task ? task : "?");
	if (json_is_integer(rss) && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%sanon-rss %lld kB",
					 used ? ", " : "", (long long)json_integer_value(rss));
	if (c && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%sconstraint %s", used ? ", " : "",
					 c);
	if (mask && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%snodemask %s", used ? ", " : "",
					 mask);
	if (json_integer_value(json_object_get(oom, "kills")) > 1 && used < len)
		snprintf(buf + used, len - used, "%s%lld kills in all", used ? "; " : "",
			 (long long)json_integer_value(json_object_get(oom, "kills")));
}
