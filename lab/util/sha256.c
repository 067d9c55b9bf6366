#include "util/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <unistd.h>

#include "util/cleanup.h"

void sha256_format(const unsigned char md[32], char out[65])
{
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

int sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
		return -EIO;
	sha256_format(md, out);
	return 0;
}

int sha256_file_hex(const char *path, char out[65])
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char buf[1 << 16], d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	ssize_t got;
	int r = 0;

	if (fd < 0 || !md) {
		r = fd < 0 ? -errno : -ENOMEM;
		EVP_MD_CTX_free(md);
		return r;
	}
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		EVP_DigestUpdate(md, buf, (size_t)got);
	if (got < 0)
		r = -errno;
	if (r == 0 && (!EVP_DigestFinal_ex(md, d, &n) || n != 32))
		r = -EIO;
	EVP_MD_CTX_free(md);
	if (r == 0)
		sha256_format(d, out);
	return r;
}
