/* The embedded driver's zombie reaper (lab/virt/reap.c): /proc/PID/stat parsed, comm with
 * spaces and parentheses included; a QEMU zombie in another session (an orphan of QEMU's
 * -daemonize) reaped at once, one in the lab's session (libvirt may wait for it itself) only
 * after REAP_GRACE_S; live, with children of this test named like QEMU. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "virt/reap.h"

static void test_parse(void)
{
	struct reap_stat st;

	tap_ok(reap_stat_parse("4242 (qemu-system-x86) Z 100 4241 4240 0 -1 4194560 0", &st) == 0 &&
	       st.ppid == 100 && st.session == 4240 && st.state == 'Z' &&
	       !strcmp(st.comm, "qemu-system-x86"), "stat line: ppid, session, state, comm");
	tap_ok(reap_stat_parse("7 (a) b) (c) S 1 7 9 0", &st) == 0 && !strcmp(st.comm, "a) b) (c") &&
	       st.state == 'S' && st.ppid == 1 && st.session == 9,
	       "comm with spaces and parentheses ends at the last ')': '%s'", st.comm);
	tap_ok(reap_stat_parse("8 (0123456789012345678901234567890123456789) R 1 8 8", &st) == 0 &&
	       strlen(st.comm) == sizeof(st.comm) - 1, "a long comm is cut to fit");
	tap_ok(reap_stat_parse("9 (qemu) Z 1", &st) == -EINVAL, "no session field: refused");
	tap_ok(reap_stat_parse("9 qemu Z 1 2 3", &st) == -EINVAL, "no parentheses: refused");
	tap_ok(reap_stat_parse("9 (qemu)Z 1 2 3", &st) == -EINVAL, "no space after comm: refused");
}

static void test_due(void)
{
	struct reap_stat own = { .session = 10, .state = 'Z' }, other = { .session = 11 };

	tap_ok(reap_due(&other, 10, 0.0), "another session: reaped at once");
	tap_ok(!reap_due(&own, 10, 0.0) && !reap_due(&own, 10, REAP_GRACE_S - 0.1),
	       "the lab's session: not within the grace");
	tap_ok(reap_due(&own, 10, REAP_GRACE_S), "the lab's session: after the grace");
}

/* A child named like QEMU that exits at once, in a session of its own when daemon; its pid
 * once it is a zombie, or -1. */
static pid_t zombie(int daemon)
{
	pid_t pid = fork();
	struct reap_stat st;

	if (pid == 0) {
		if (daemon)
			setsid();
		prctl(PR_SET_NAME, "qemu-system-t");
		_exit(0);
	}
	for (int i = 0; pid > 0 && i < 500; i++) {
		const struct timespec ts = { 0, 10000000L };

		if (reap_proc_stat(pid, &st) == 0 && st.state == 'Z' &&
		    !strncmp(st.comm, "qemu-system", 11))
			return pid;
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* Whether pid was reaped; looks without reaping it. */
static int gone(pid_t pid)
{
	siginfo_t si;

	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD;
}

static void test_live(void)
{
	struct virt_reaper rp = { 0 };
	pid_t own = zombie(0), orphan = zombie(1);
	unsigned n;

	if (!tap_ok(own > 0 && orphan > 0, "two QEMU-named zombie children"))
		return;
	n = reap_qemu_zombies(&rp, 100.0);
	tap_ok(n == 1 && gone(orphan), "first pass: the one in its own session reaped at once");
	tap_ok(!gone(own), "... the one in this session left (libvirt may wait for it)");
	n = reap_qemu_zombies(&rp, 100.0 + REAP_GRACE_S / 2);
	tap_ok(n == 0 && !gone(own), "within the grace: still left");
	n = reap_qemu_zombies(&rp, 100.0 + REAP_GRACE_S);
	tap_ok(n == 1 && gone(own), "after the grace: reaped");
	tap_ok(rp.nr_seen == 0, "nothing left remembered");
}

int main(void)
{
	test_parse();
	test_due();
	test_live();
	return tap_done();
}
