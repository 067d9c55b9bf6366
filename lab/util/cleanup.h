/* __attribute__((cleanup)) helpers, in the style of systemd's _cleanup_. */
#pragma once
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_freep(void *p)
{
	free(*(void **)p);
}
static inline void cleanup_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}
static inline void cleanup_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}
static inline void cleanup_json_decrefp(json_t **j)
{
	json_decref(*j);
}

#define _cleanup_free_ __attribute__((cleanup(cleanup_freep)))
#define _cleanup_fclose_ __attribute__((cleanup(cleanup_fclosep)))
#define _cleanup_close_ __attribute__((cleanup(cleanup_closep)))
#define _cleanup_json_ __attribute__((cleanup(cleanup_json_decrefp)))

/* Hand ownership out of a cleanup variable. */
#define TAKE_PTR(p)                                                                            \
	({                                                                                     \
		__typeof__(p) _tp = (p);                                                       \
		(p) = NULL;                                                                    \
		_tp;                                                                           \
	})
#define TAKE_FD(fd)                                                                            \
	({                                                                                     \
		int _tf = (fd);                                                                \
		(fd) = -1;                                                                     \
		_tf;                                                                           \
	})
