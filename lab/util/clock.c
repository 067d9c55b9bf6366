#include "util/clock.h"

#include <time.h>

double clock_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* s >= 0 seconds as a timespec. */
static struct timespec span(double s)
{
	double whole = (double)(time_t)s;

	return (struct timespec){ (time_t)whole, (long)((s - whole) * 1e9) };
}

struct timespec clock_deadline(double s)
{
	struct timespec t, d = span(s > 0 ? s : 0);

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += d.tv_sec;
	t.tv_nsec += d.tv_nsec;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

void clock_sleep_s(double s)
{
	struct timespec ts = span(s);

	nanosleep(&ts, NULL);
}

void clock_utc_iso(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void clock_rfc5322(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%a, %d %b %Y %H:%M:%S %z", &tm);
}
