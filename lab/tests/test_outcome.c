/* Outcome classification: console fixtures (recorded or typed from real kernels' formats) in
 * lab/tests/data/console/NAME.log with NAME.expected ("none" or "panic: SIGNATURE", then
 * "warnings: none" or "warnings: KIND xCOUNT, ..."), and the decision table of
 * outcome_classify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/outcome.h"
#include "tap.h"
#include "testutil.h"
#include "util/fs.h"
#include "util/text.h"

#define DIR_CONSOLE "lab/tests/data/console"

/* "warnings: none" or "warnings: KIND xCOUNT, ...": what the scan found besides a panic. */
static void warnings_line(const struct kwarn_list *l, char *out, size_t len)
{
	size_t used = (size_t)snprintf(out, len, "warnings:%s", l->n ? "" : " none");

	for (unsigned i = 0; i < l->n && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s %s x%u", i ? "," : "",
					 kwarn_kind_name(l->items[i].kind), l->items[i].count);
}

static void check_fixture(const char *name)
{
	char log[512], exp[512], got[512], warned[512];
	char *text = NULL, *want = NULL, *want_warned;
	size_t len;
	struct console_scan cs;

	snprintf(log, sizeof(log), "%s/%s.log", DIR_CONSOLE, name);
	snprintf(exp, sizeof(exp), "%s/%s.expected", DIR_CONSOLE, name);
	if (!tap_ok(fs_read_file(log, 1 << 24, &text, &len) == 0 &&
			    fs_read_file(exp, 4096, &want, NULL) == 0,
		    "%s: fixture readable", name))
		goto out;
	want_warned = want + strcspn(want, "\n");
	if (*want_warned)
		*want_warned++ = '\0';
	want_warned[strcspn(want_warned, "\n")] = '\0';
	tap_ok(outcome_scan_console(text, len, &cs) == 0, "%s: scanned", name);
	if (cs.panic)
		snprintf(got, sizeof(got), "panic: %s", cs.signature);
	else
		snprintf(got, sizeof(got), "none");
	tap_ok(!strcmp(got, want), "%s: %s", name, got);
	warnings_line(&cs.warnings, warned, sizeof(warned));
	tap_ok(!strcmp(warned, want_warned), "%s: %s", name, warned);
	if (cs.panic)
		tap_ok(cs.excerpt && strstr(cs.excerpt, cs.signature) && strlen(cs.excerpt) <= 16384,
		       "%s: excerpt holds the signature and is bounded", name);
	console_scan_free(&cs);
out:
	free(text);
	free(want);
}

static void fixtures(void)
{
	int n = testutil_each_log(DIR_CONSOLE, check_fixture);

	tap_ok(n >= 4, "found %d console fixtures", n);
}

struct case_ {
	struct outcome_input in;
	int panic;
	enum outcome want;
	const char *reason_has;
};

static void table(void)
{
	static const struct case_ cases[] = {
		{ { .end = GUEST_END_STOPPED, .hello = 1, .done = 1 }, 0, OUTCOME_OK, "completed" },
		{ { .end = GUEST_END_STOPPED, .hello = 1, .done = 1, .workloads_failed = 1 }, 0,
		  OUTCOME_WORKLOAD_FAILURE, "1 workload(s) failed" },
		{ { .end = GUEST_END_STOPPED, .hello = 1, .done = 1, .workloads_missing = 2 }, 0,
		  OUTCOME_WORKLOAD_FAILURE, "2 not reported" },
		{ { .end = GUEST_END_STOPPED, .hello = 0 }, 0, OUTCOME_BOOT_FAILURE, "before the agent" },
		{ { .end = GUEST_END_STOPPED, .hello = 1 }, 0, OUTCOME_WORKLOAD_FAILURE, "finished" },
		{ { .end = GUEST_END_STOPPED, .hello = 1, .crashed = 1 }, 0, OUTCOME_PANIC, "crash" },
		{ { .end = GUEST_END_PROGRESS_TIMEOUT, .hello = 1, .progress_timeout_s = 5 }, 0,
		  OUTCOME_HANG, "5 s" },
		/* A starved guest is given longer; the reason says how long and with what CPU. */
		{ { .end = GUEST_END_PROGRESS_TIMEOUT, .hello = 1, .progress_timeout_s = 5,
		    .silence_s = 15.2, .silence_cpu_s = 0.8 }, 0, OUTCOME_HANG,
		  "for 15 s (timeout 5 s; the guest had 0.8 s of host CPU in it)" },
		{ { .end = GUEST_END_PROGRESS_TIMEOUT, .hello = 1 }, 1, OUTCOME_PANIC, "console" },
		{ { .end = GUEST_END_BOOT_TIMEOUT, .boot_timeout_s = 120 }, 0, OUTCOME_BOOT_FAILURE,
		  "120 s" },
		{ { .end = GUEST_END_BOOT_SILENT, .boot_silence_s = 316 }, 0, OUTCOME_BOOT_FAILURE,
		  "console was silent for 316 s" },
		{ { .end = GUEST_END_BOOT_SILENT, .boot_silence_s = 316 }, 1, OUTCOME_PANIC,
		  "console" },
		{ { .end = GUEST_END_TOTAL_TIMEOUT, .hello = 1 }, 0, OUTCOME_HANG, "total" },
		{ { .end = GUEST_END_INTERRUPTED }, 0, OUTCOME_INFRA_ERROR, "signal" },
		{ { .end = GUEST_END_START_FAILED, .start_error = "no such file" }, 0,
		  OUTCOME_INFRA_ERROR, "no such file" },
		{ { .end = GUEST_END_CHANNEL_OVERFLOW, .hello = 1, .channel_max_mib = 64 }, 0,
		  OUTCOME_WORKLOAD_FAILURE, "more than 64 MiB on the results channel" },
		{ { .end = GUEST_END_CONSOLE_OVERFLOW, .hello = 1, .console_max_mib = 32 }, 0,
		  OUTCOME_WORKLOAD_FAILURE, "more than 32 MiB to its console" },
		/* QEMU killed under the guest: the host's failure, unless the kernel broke first. */
		{ { .end = GUEST_END_QEMU_FAILED, .hello = 1 }, 0, OUTCOME_INFRA_ERROR,
		  "QEMU exited while the guest ran" },
		{ { .end = GUEST_END_QEMU_FAILED, .hello = 1 }, 1, OUTCOME_PANIC, "console" },
		/* Everything done, but lines the host ignored: suspect, and said how many. */
		{ { .end = GUEST_END_STOPPED, .hello = 1, .done = 1, .bad_lines = 3 }, 0,
		  OUTCOME_WORKLOAD_FAILURE, "sent 3 invalid line(s) and 0 line(s) over 1024 KiB" },
		{ { .end = GUEST_END_STOPPED, .hello = 1, .done = 1, .long_lines = 1 }, 0,
		  OUTCOME_WORKLOAD_FAILURE, "0 invalid line(s) and 1 line(s) over 1024 KiB" },
		{ { .end = GUEST_END_STOPPED, .hello = 1, .done = 1 }, 0, OUTCOME_OK,
		  "all workloads completed" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct console_scan cs = { .panic = cases[i].panic, .signature = "BUG: x" };
		struct outcome_input in = cases[i].in;
		char reason[256];
		enum outcome o;

		in.console = &cs;
		o = outcome_classify(&in, reason, sizeof(reason));
		tap_ok(o == cases[i].want && strstr(reason, cases[i].reason_has),
		       "case %zu: %s (%s)", i, outcome_name(o), reason);
	}
	tap_ok(outcome_worst(OUTCOME_OK, OUTCOME_HANG) == OUTCOME_HANG &&
		       outcome_worst(OUTCOME_PANIC, OUTCOME_HANG) == OUTCOME_PANIC,
	       "worst outcome orders by severity");
}

/* The console's last lines (for a run that failed without a panic), and any excerpt: bounded,
 * valid UTF-8 whatever the guest printed. */
static void tail(void)
{
	char text[16384] = "", line[64];
	struct console_scan cs;

	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "line %d \xff\xc0\x80 \xed\xa0\x80\n", i);
		strcat(text, line);
	}
	tap_ok(outcome_scan_console(text, strlen(text), &cs) == 0 && !cs.panic && cs.tail &&
		       !strncmp(cs.tail, "line 60 ", 8) && strstr(cs.tail, "line 99 "),
	       "tail: the last 40 lines, no panic");
	tap_ok(cs.tail && text_utf8_valid(cs.tail) && cs.tail[strlen(cs.tail) - 1] != '\n',
	       "tail: valid UTF-8 (bad bytes became '?'), no trailing newline");
	console_scan_free(&cs);
	memset(text, 'x', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	memcpy(text + 100, "\nKernel panic - not syncing: \xff\n", 31);
	tap_ok(outcome_scan_console(text, strlen(text), &cs) == 0 && cs.panic && cs.tail &&
		       strlen(cs.tail) <= 8192 && text_utf8_valid(cs.excerpt) &&
		       text_utf8_valid(cs.signature),
	       "one long line: the tail bounded to 8 KiB; excerpt and signature valid UTF-8");
	console_scan_free(&cs);
	tap_ok(outcome_scan_console("\n\n", 2, &cs) == 0 && !cs.tail, "an empty console: no tail");
	console_scan_free(&cs);
}

int main(void)
{
	fixtures();
	tail();
	table();
	return tap_done();
}
