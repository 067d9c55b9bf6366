#define GFS_NO_REDIRECT
#include "builder/guestfs.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define GFS_LIBRARY "libguestfs.so.0"

struct gfs_api gfs_api;

static pthread_mutex_t gfs_lock = PTHREAD_MUTEX_INITIALIZER;
static int gfs_loaded;

static int load_locked(char *err, size_t len)
{
	/* RTLD_NODELETE: handles stay valid whatever happens to the library handle. */
	void *h = dlopen(GFS_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);

	if (!h) {
		snprintf(err, len, "cannot load %s (%s): install libguestfs0 ('make deps')",
			 GFS_LIBRARY, dlerror());
		return -ENOENT;
	}
#define GFS_SYM(f)                                                                             \
	if (!(*(void **)&gfs_api.f = dlsym(h, #f))) {                                          \
		snprintf(err, len, "%s has no %s: libguestfs too old", GFS_LIBRARY, #f);       \
		return -ENOENT;                                                                \
	}
	GFS_FUNCS(GFS_SYM)
#undef GFS_SYM
	gfs_loaded = 1;
	return 0;
}

int gfs_load(char *err, size_t len)
{
	int r = 0;

	pthread_mutex_lock(&gfs_lock);
	if (!gfs_loaded)
		r = load_locked(err, len);
	pthread_mutex_unlock(&gfs_lock);
	return r;
}
