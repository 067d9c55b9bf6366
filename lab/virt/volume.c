/* Artifacts into a remote host's storage pool: see volume.h. */
#include "virt/volume.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libvirt/virterror.h>

#include "util/cleanup.h"
#include "util/clock.h"
#include "util/sha256.h"
#include "util/strbuf.h"

/* How long a lab waits for another lab's upload of the same content to finish. */
#define VOLUME_BUSY_WAIT_S 600

static int vol_error(struct virt_conn *vc, const char *what, int r)
{
	snprintf(vc->last_error, sizeof(vc->last_error), "%s: %s", what,
		 virGetLastErrorMessage());
	return r;
}

/* Runs side by side on one host (icount) stage their files at once: the pool is set up once. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static int pool_ensure_locked(struct virt_conn *vc, const char *dir);

int volume_pool_ensure(struct virt_conn *vc, const char *dir)
{
	int r;

	pthread_mutex_lock(&pool_lock);
	r = vc->pool ? 0 : pool_ensure_locked(vc, dir);
	pthread_mutex_unlock(&pool_lock);
	return r;
}

static int pool_ensure_locked(struct virt_conn *vc, const char *dir)
{
	struct strbuf sb = { 0 };
	_cleanup_free_ char *xml = NULL;
	int active;

	vc->pool = virStoragePoolLookupByName(vc->conn, VOLUME_POOL_NAME);
	if (!vc->pool) {
		strbuf_append(&sb, "<pool type='dir'>\n  <name>" VOLUME_POOL_NAME "</name>\n"
				   "  <target>\n    <path>");
		strbuf_append_xml(&sb, dir);
		strbuf_append(&sb, "</path>\n  </target>\n</pool>\n");
		if (strbuf_take(&sb, &xml) < 0)
			return -ENOMEM;
		vc->pool = virStoragePoolDefineXML(vc->conn, xml, 0);
		if (!vc->pool)
			return vol_error(vc, "defining the storage pool " VOLUME_POOL_NAME, -EIO);
		/* Build makes the directory; it fails harmlessly when it is there already. */
		virStoragePoolBuild(vc->pool, 0);
		virStoragePoolSetAutostart(vc->pool, 1);
	}
	active = virStoragePoolIsActive(vc->pool);
	if (active == 0 && virStoragePoolCreate(vc->pool, 0) < 0)
		return vol_error(vc, "starting the storage pool " VOLUME_POOL_NAME, -EIO);
	if (active < 0)
		return vol_error(vc, "the storage pool " VOLUME_POOL_NAME, -EIO);
	/* Files another lab uploaded since the pool was started are only seen after a refresh. */
	virStoragePoolRefresh(vc->pool, 0);
	return 0;
}

static int send_chunk(virStreamPtr st, char *data, size_t nbytes, void *opaque)
{
	int fd = *(int *)opaque;
	ssize_t n;

	(void)st;
	do
		n = read(fd, data, nbytes);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -1 : (int)n;
}

static int recv_chunk(virStreamPtr st, const char *data, size_t nbytes, void *opaque)
{
	int fd = *(int *)opaque;
	size_t done = 0;

	(void)st;
	while (done < nbytes) {
		ssize_t n = write(fd, data + done, nbytes - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return (int)nbytes;
}

static virStorageVolPtr vol_create(struct virt_conn *vc, const char *name,
				   unsigned long long bytes, const char *format,
				   const char *backing)
{
	struct strbuf sb = { 0 };
	_cleanup_free_ char *xml = NULL;

	strbuf_append(&sb, "<volume>\n  <name>");
	strbuf_append_xml(&sb, name);
	strbuf_appendf(&sb, "</name>\n  <capacity unit='bytes'>%llu</capacity>\n"
			    "  <allocation unit='bytes'>0</allocation>\n"
			    "  <target><format type='%s'/></target>\n", bytes, format);
	if (backing) {
		strbuf_append(&sb, "  <backingStore><path>");
		strbuf_append_xml(&sb, backing);
		strbuf_append(&sb, "</path><format type='qcow2'/></backingStore>\n");
	}
	strbuf_append(&sb, "</volume>\n");
	if (strbuf_take(&sb, &xml) < 0)
		return NULL;
	return virStorageVolCreateXML(vc->pool, xml, 0);
}

static int vol_path(struct virt_conn *vc, virStorageVolPtr vol, struct volume_upload *out)
{
	_cleanup_free_ char *p = virStorageVolGetPath(vol);

	if (!p)
		return vol_error(vc, "volume path", -EIO);
	snprintf(out->path, sizeof(out->path), "%s", p);
	return 0;
}

/* The file's bytes into a new volume name (raw). */
static int vol_upload(struct virt_conn *vc, const char *local_path, const char *name,
		      struct volume_upload *out)
{
	_cleanup_close_ int fd = open(local_path, O_RDONLY | O_CLOEXEC);
	virStorageVolPtr vol = NULL;
	virStreamPtr st = NULL;
	struct stat s;
	int r = 0;

	if (fd < 0 || fstat(fd, &s) < 0)
		return -errno;
	out->bytes = (unsigned long long)s.st_size;
	vol = vol_create(vc, name, out->bytes, "raw", NULL);
	if (!vol)
		return vol_error(vc, name, -EEXIST);
	st = virStreamNew(vc->conn, 0);
	if (!st || virStorageVolUpload(vol, st, 0, out->bytes, 0) < 0) {
		r = vol_error(vc, "upload", -EIO);
		goto cleanup;
	}
	if (virStreamSendAll(st, send_chunk, &fd) < 0 || virStreamFinish(st) < 0) {
		r = vol_error(vc, "upload", -EIO);
		virStreamAbort(st);
		goto cleanup;
	}
	r = vol_path(vc, vol, out);
cleanup:
	if (r < 0)
		virStorageVolDelete(vol, 0);
	if (st)
		virStreamFree(st);
	virStorageVolFree(vol);
	return r;
}

static int vol_exists(struct virt_conn *vc, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(vc->pool, name);

	if (!v)
		return 0;
	virStorageVolFree(v);
	return 1;
}

int volume_delete(struct virt_conn *vc, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(vc->pool, name);
	int r = 0;

	if (!v)
		return 0;
	if (virStorageVolDelete(v, 0) < 0)
		r = vol_error(vc, name, -EIO);
	virStorageVolFree(v);
	return r;
}

/* The marker that says volume name is whole: a one-byte volume, created after the upload. */
static int vol_mark(struct virt_conn *vc, const char *marker)
{
	virStorageVolPtr v = vol_create(vc, marker, 1, "raw", NULL);

	if (!v && !vol_exists(vc, marker))
		return vol_error(vc, marker, -EIO);
	if (v)
		virStorageVolFree(v);
	return 0;
}

int volume_put_cached(struct virt_conn *vc, const char *local_path, const char *sha256,
		      const char *suffix, struct volume_upload *out)
{
	char hex[65], marker[200];
	virStorageVolPtr vol;
	double t0;
	int r;

	memset(out, 0, sizeof(*out));
	if (!sha256) {
		r = sha256_file_hex(local_path, hex);
		if (r < 0)
			return r;
		sha256 = hex;
	}
	t0 = clock_now_s();
	/* Another lab may have uploaded it since this connection last looked. */
	virStoragePoolRefresh(vc->pool, 0);
	snprintf(out->name, sizeof(out->name), "%.64s-%.64s", sha256, suffix);
	snprintf(marker, sizeof(marker), "%s.ok", out->name);
	for (double waited = 0;; waited += 1) {
		if (vol_exists(vc, marker) && (vol = virStorageVolLookupByName(vc->pool,
									     out->name))) {
			virStorageVolInfo info;

			out->hit = 1;
			if (virStorageVolGetInfo(vol, &info) == 0)
				out->bytes = info.capacity;
			r = vol_path(vc, vol, out);
			virStorageVolFree(vol);
			out->seconds = clock_now_s() - t0;
			return r;
		}
		if (!vol_exists(vc, out->name))
			break;
		/* There without its marker: another lab is uploading it, or one was cut off. */
		if (waited >= VOLUME_BUSY_WAIT_S) {
			volume_delete(vc, out->name);
			break;
		}
		sleep(1);
		virStoragePoolRefresh(vc->pool, 0);
	}
	r = vol_upload(vc, local_path, out->name, out);
	if (r == 0)
		r = vol_mark(vc, marker);
	out->seconds = clock_now_s() - t0;
	return r;
}

int volume_put(struct virt_conn *vc, const char *local_path, const char *name,
	       struct volume_upload *out)
{
	double t0 = clock_now_s();
	int r;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	volume_delete(vc, name);
	r = vol_upload(vc, local_path, name, out);
	out->seconds = clock_now_s() - t0;
	return r;
}

int volume_get(struct virt_conn *vc, const char *name, const char *local_path)
{
	virStorageVolPtr vol = virStorageVolLookupByName(vc->pool, name);
	_cleanup_close_ int fd = -1;
	virStreamPtr st = NULL;
	int r = 0;

	if (!vol)
		return vol_error(vc, name, -ENOENT);
	fd = open(local_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		goto cleanup;
	}
	st = virStreamNew(vc->conn, 0);
	if (!st || virStorageVolDownload(vol, st, 0, 0, 0) < 0 ||
	    virStreamRecvAll(st, recv_chunk, &fd) < 0 || virStreamFinish(st) < 0) {
		r = vol_error(vc, "download", -EIO);
		if (st)
			virStreamAbort(st);
	}
cleanup:
	if (st)
		virStreamFree(st);
	virStorageVolFree(vol);
	return r;
}

int volume_overlay(struct virt_conn *vc, const char *name, const char *backing_path,
		   unsigned long long capacity, struct volume_upload *out)
{
	virStorageVolPtr vol;
	int r;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	volume_delete(vc, name);
	vol = vol_create(vc, name, capacity, "qcow2", backing_path);
	if (!vol)
		return vol_error(vc, name, -EIO);
	r = vol_path(vc, vol, out);
	virStorageVolFree(vol);
	return r;
}
