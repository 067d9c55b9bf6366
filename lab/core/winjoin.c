/* The plugins' outputs joined to a run by window (core/winjoin.h). */
#include "core/winjoin.h"

#include <errno.h>

int winjoin_count_ok(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) && json_integer_value(v) >= 0;
}

json_int_t winjoin_int(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static const json_t *find_window(const json_t *plugin, json_int_t id)
{
	const json_t *w;
	size_t i;

	json_array_foreach(json_object_get(plugin, "windows"), i, w)
		if (winjoin_int(w, "id") == id)
			return w;
	return NULL;
}

int winjoin_attach(json_t *run, const json_t *plugin, const char *key,
		   json_t *(*make)(const json_t *window, const json_t *plugin))
{
	json_t *wl, *res;
	size_t i, k;
	int n = 0;

	json_array_foreach(json_object_get(run, "workloads"), i, wl)
		json_array_foreach(json_object_get(wl, "results"), k, res) {
			json_t *info = json_object_get(res, "info");
			const json_t *id = json_object_get(info, "lock_insn_window"), *w;
			json_t *o;

			if (!json_is_integer(id) || !(w = find_window(plugin, json_integer_value(id))))
				continue;
			o = make(w, plugin);
			if (!o || json_object_set_new(info, key, o) < 0)
				return -ENOMEM;
			n++;
		}
	return n;
}
