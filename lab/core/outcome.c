#include "core/outcome.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/channel.h"
#include "util/text.h"

#define EXCERPT_BEFORE 5
#define EXCERPT_AFTER 60
#define EXCERPT_MAX 16384
#define TAIL_LINES 40
#define TAIL_MAX 8192

/* Console lines that mean the kernel is broken.  Order does not matter: the earliest line
 * in the log that matches any of them wins, since later ones are usually consequences.  The
 * first lines of warnings (core/kwarn.h) are skipped: "BUG: " there is a report the kernel
 * carries on from. */
static const char *const panic_signatures[] = {
	"Kernel panic - not syncing",
	"BUG: ",
	"Oops: ",
	"kernel BUG at",
	"general protection fault",
	"Unable to handle kernel",
};

const char *outcome_name(enum outcome o)
{
	switch (o) {
	case OUTCOME_OK: return "ok";
	case OUTCOME_WORKLOAD_FAILURE: return "workload-failure";
	case OUTCOME_HANG: return "hang";
	case OUTCOME_BOOT_FAILURE: return "boot-failure";
	case OUTCOME_PANIC: return "panic";
	case OUTCOME_BUILD_FAILURE: return "build-failure";
	case OUTCOME_INFRA_ERROR: return "infra-error";
	}
	return "unknown";
}

int outcome_parse(const char *s, enum outcome *o)
{
	for (enum outcome i = OUTCOME_OK; s && i <= OUTCOME_INFRA_ERROR; i++)
		if (!strcmp(s, outcome_name(i))) {
			*o = i;
			return 0;
		}
	return -EINVAL;
}

const char *guest_end_name(enum guest_end e)
{
	switch (e) {
	case GUEST_END_STOPPED: return "stopped";
	case GUEST_END_BOOT_TIMEOUT: return "boot-timeout";
	case GUEST_END_BOOT_SILENT: return "boot-silent";
	case GUEST_END_CONSOLE_OVERFLOW: return "console-overflow";
	case GUEST_END_QEMU_FAILED: return "qemu-failed";
	case GUEST_END_HOST_LOST: return "host-lost";
	case GUEST_END_PROGRESS_TIMEOUT: return "progress-timeout";
	case GUEST_END_TOTAL_TIMEOUT: return "total-timeout";
	case GUEST_END_INTERRUPTED: return "interrupted";
	case GUEST_END_START_FAILED: return "start-failed";
	case GUEST_END_CHANNEL_OVERFLOW: return "channel-overflow";
	}
	return "unknown";
}

enum outcome outcome_worst(enum outcome a, enum outcome b)
{
	return a > b ? a : b;
}

static int line_matches(const char *l, size_t n)
{
	if (kwarn_line_kind(l, n, NULL))
		return 0;
	for (size_t i = 0; i < sizeof(panic_signatures) / sizeof(panic_signatures[0]); i++) {
		size_t k = strlen(panic_signatures[i]);

		if (n >= k && memmem(l, n, panic_signatures[i], k))
			return 1;
	}
	return 0;
}

/* Offset of the start of the line `back` lines before the one at off. */
static size_t lines_back(const char *t, size_t off, int back)
{
	while (off > 0 && back-- > 0) {
		off--; /* onto the previous newline */
		while (off > 0 && t[off - 1] != '\n')
			off--;
	}
	return off;
}

static size_t lines_forward(const char *t, size_t len, size_t off, int fwd)
{
	while (off < len && fwd-- > 0) {
		const char *nl = memchr(t + off, '\n', len - off);

		off = nl ? (size_t)(nl - t) + 1 : len;
	}
	return off;
}

static void set_signature(struct console_scan *cs, const char *l, size_t n)
{
	size_t k = 0;

	/* Strip the "[   12.345678] " timestamp and carriage returns. */
	if (n > 0 && l[0] == '[') {
		const char *e = memchr(l, ']', n);

		if (e) {
			n -= (size_t)(e + 1 - l);
			l = e + 1;
		}
	}
	while (n > 0 && (*l == ' ')) {
		l++;
		n--;
	}
	for (size_t i = 0; i < n && k + 1 < sizeof(cs->signature); i++)
		if (l[i] != '\r')
			cs->signature[k++] = l[i];
	cs->signature[k] = '\0';
}

/* A copy of text[a, b) that jansson accepts: invalid UTF-8 and NULs become '?'. */
static char *clean_dup(const char *text, size_t a, size_t b)
{
	char *s = strndup(text + a, b - a);

	if (s)
		text_utf8_sanitize(s, strlen(s));
	return s;
}

/* The last TAIL_LINES lines, at most TAIL_MAX bytes, starting on a line (a last line
 * without its newline included). */
static int scan_tail(const char *text, size_t len, struct console_scan *cs)
{
	size_t end = len, a;

	while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r'))
		end--;
	if (end == 0)
		return 0;
	a = lines_back(text, end, TAIL_LINES);
	if (end - a > TAIL_MAX) {
		const char *nl = memchr(text + end - TAIL_MAX, '\n', TAIL_MAX);

		a = nl ? (size_t)(nl - text) + 1 : end - TAIL_MAX;
	}
	cs->tail = clean_dup(text, a, end);
	return cs->tail ? 0 : -ENOMEM;
}

int outcome_scan_console(const char *text, size_t len, struct console_scan *cs)
{
	size_t off = 0;

	memset(cs, 0, sizeof(*cs));
	if (scan_tail(text, len, cs) < 0 || kwarn_scan(text, len, &cs->warnings) < 0)
		return -ENOMEM;
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (text + off)) : len - off;

		if (line_matches(text + off, n)) {
			size_t a = lines_back(text, off, EXCERPT_BEFORE);
			size_t b = lines_forward(text, len, off, EXCERPT_AFTER);

			if (b - a > EXCERPT_MAX)
				b = a + EXCERPT_MAX;
			cs->panic = 1;
			set_signature(cs, text + off, n);
			text_utf8_sanitize(cs->signature, strlen(cs->signature));
			cs->excerpt = clean_dup(text, a, b);
			return cs->excerpt ? 0 : -ENOMEM;
		}
		off += n + 1;
	}
	return 0;
}

void console_scan_free(struct console_scan *cs)
{
	free(cs->excerpt);
	free(cs->tail);
	cs->excerpt = cs->tail = NULL;
	kwarn_list_free(&cs->warnings);
}

/* "; workloads[1] (page_fault2) killed by the OOM killer: ..." after a failure's reason. */
static void add_death(const struct outcome_input *in, char *reason, size_t len)
{
	size_t used = strlen(reason);

	if (in->death && in->death[0] && used < len)
		snprintf(reason + used, len - used, "; %s", in->death);
}

static enum outcome classify_stopped(const struct outcome_input *in, char *reason, size_t len)
{
	if (!in->hello) {
		snprintf(reason, len, "the guest stopped before the agent started");
		return OUTCOME_BOOT_FAILURE;
	}
	if (!in->done) {
		snprintf(reason, len, "the guest stopped before the agent finished");
		add_death(in, reason, len);
		return OUTCOME_WORKLOAD_FAILURE;
	}
	if (in->workloads_failed || in->workloads_missing) {
		snprintf(reason, len, "%d workload(s) failed, %d not reported", in->workloads_failed,
			 in->workloads_missing);
		add_death(in, reason, len);
		return OUTCOME_WORKLOAD_FAILURE;
	}
	/* A healthy agent sends only lines the host takes: results next to garbage are suspect. */
	if (in->bad_lines || in->long_lines) {
		snprintf(reason, len, "the guest sent %u invalid line(s) and %u line(s) over %u KiB "
			 "on the results channel (ignored)", in->bad_lines, in->long_lines,
			 CHANNEL_MAX_LINE / 1024);
		return OUTCOME_WORKLOAD_FAILURE;
	}
	snprintf(reason, len, "all workloads completed");
	return OUTCOME_OK;
}

enum outcome outcome_classify(const struct outcome_input *in, char *reason, size_t len)
{
	/* A host gone says nothing of the kernel: what reached the lab of the console is cut. */
	if (in->end == GUEST_END_HOST_LOST) {
		snprintf(reason, len, "the connection to the guest's host was lost: "
			 "%s", in->start_error && in->start_error[0] ? in->start_error : "unknown");
		return OUTCOME_INFRA_ERROR;
	}
	/* A broken kernel explains whatever else went wrong, so it is checked first. */
	if (in->console && in->console->panic) {
		snprintf(reason, len, "console: %s", in->console->signature);
		return OUTCOME_PANIC;
	}
	if (in->crashed) {
		snprintf(reason, len, "the hypervisor reported a guest crash");
		return OUTCOME_PANIC;
	}
	switch (in->end) {
	case GUEST_END_STOPPED:
		return classify_stopped(in, reason, len);
	case GUEST_END_BOOT_TIMEOUT:
		snprintf(reason, len, "the agent did not start within %.0f s", in->boot_timeout_s);
		return OUTCOME_BOOT_FAILURE;
	case GUEST_END_BOOT_SILENT:
		snprintf(reason, len,
			 "the kernel's console was silent for %.0f s before the agent started",
			 in->boot_silence_s);
		return OUTCOME_BOOT_FAILURE;
	case GUEST_END_PROGRESS_TIMEOUT:
		if (in->silence_s > in->progress_timeout_s && in->silence_cpu_s >= 0)
			snprintf(reason, len,
				 "no progress from the guest for %.0f s (timeout %.0f s; the guest "
				 "had %.1f s of host CPU in it)",
				 in->silence_s, in->progress_timeout_s, in->silence_cpu_s);
		else
			snprintf(reason, len, "no progress from the guest for %.0f s",
				 in->progress_timeout_s);
		return OUTCOME_HANG;
	case GUEST_END_TOTAL_TIMEOUT:
		snprintf(reason, len, "the run exceeded its total timeout of %.0f s",
			 in->total_timeout_s);
		return OUTCOME_HANG;
	case GUEST_END_INTERRUPTED:
		snprintf(reason, len, "interrupted by a signal; the guest was destroyed");
		return OUTCOME_INFRA_ERROR;
	case GUEST_END_START_FAILED:
		snprintf(reason, len, "libvirt could not start the guest: %s",
			 in->start_error ? in->start_error : "unknown error");
		return OUTCOME_INFRA_ERROR;
	case GUEST_END_CHANNEL_OVERFLOW:
		snprintf(reason, len, "the guest sent more than %u MiB on the results channel; the "
			 "guest was stopped", in->channel_max_mib);
		return OUTCOME_WORKLOAD_FAILURE;
	case GUEST_END_CONSOLE_OVERFLOW:
		snprintf(reason, len, "the guest wrote more than %u MiB to its console; the guest "
			 "was stopped", in->console_max_mib);
		return OUTCOME_WORKLOAD_FAILURE;
	case GUEST_END_HOST_LOST: /* decided above */
	case GUEST_END_QEMU_FAILED:
		snprintf(reason, len, "QEMU exited while the guest ran, the guest never shut down "
			 "(killed or crashed on the host; the console's last lines are in the "
			 "report)");
		return OUTCOME_INFRA_ERROR;
	}
	snprintf(reason, len, "unknown end");
	return OUTCOME_INFRA_ERROR;
}
