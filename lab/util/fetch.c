/* Downloads checked against a known sha256 (util/fetch.h). */
#include "util/fetch.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/sha256.h"

#define FETCH_MAX (512ull << 20) /* a kernel tarball is ~150 MB */

struct sink {
	FILE *f;
	unsigned long long n;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *ud)
{
	struct sink *s = ud;
	size_t n = size * nmemb;

	s->n += n;
	if (s->n > FETCH_MAX)
		return 0; /* aborts the transfer */
	return fwrite(p, 1, n, s->f);
}

int fetch_url(const char *url, const char *sha256, const char *dest, char *err, size_t len)
{
	_cleanup_free_ char *tmp = NULL;
	struct sink s = { 0 };
	char got[65];
	CURL *h;
	CURLcode cr;
	long code = 0;
	int r;

	if (asprintf(&tmp, "%s.part.%ld", dest, (long)getpid()) < 0)
		return -ENOMEM;
	s.f = fopen(tmp, "we");
	if (!s.f)
		return snprintf(err, len, "cannot create %s: %s", tmp, strerror(errno)), -errno;
	h = curl_easy_init();
	if (!h) {
		fclose(s.f);
		unlink(tmp);
		return snprintf(err, len, "libcurl failed to start"), -ENOMEM;
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https,file");
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L); /* < 1 KiB/s for 60 s: give up */
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &s);
	cr = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(h);
	r = fclose(s.f) != 0 ? -EIO : 0;
	if (cr != CURLE_OK || r < 0) {
		unlink(tmp);
		snprintf(err, len, "cannot fetch %s: %s", url,
			 s.n > FETCH_MAX ? "larger than 512 MiB" : curl_easy_strerror(cr));
		return -EIO;
	}
	if ((r = sha256_file_hex(tmp, got)) < 0 || strcmp(got, sha256)) {
		unlink(tmp);
		snprintf(err, len, "%s: sha256 is %s, expected %s", url, r < 0 ? "unreadable" : got,
			 sha256);
		return -EINVAL;
	}
	if (rename(tmp, dest) < 0) {
		r = -errno;
		unlink(tmp);
		return snprintf(err, len, "cannot store %s: %s", dest, strerror(-r)), r;
	}
	return 0;
}
