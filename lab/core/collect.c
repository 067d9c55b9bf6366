#include "core/collect.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/job.h"
#include "proto/oomkill.h"
#include "util/cleanup.h"

int collect_init(struct guest_log *g, unsigned nr_workloads)
{
	memset(g, 0, sizeof(*g));
	g->nr_workloads = nr_workloads;
	g->t_hello = g->t_first_start = g->t_last_end = g->t_done = -1;
	g->workloads = json_array();
	g->start_memory = json_array();
	if (!g->workloads || !g->start_memory)
		return -ENOMEM;
	for (unsigned i = 0; i < nr_workloads; i++)
		if (json_array_append_new(g->workloads, json_null()) < 0 ||
		    json_array_append_new(g->start_memory, json_null()) < 0)
			return -ENOMEM;
	return 0;
}

void collect_free(struct guest_log *g)
{
	json_decref(g->observed);
	json_decref(g->workloads);
	json_decref(g->start_memory);
	json_decref(g->knobs);
	json_decref(g->online);
	g->observed = g->workloads = g->start_memory = g->knobs = g->online = NULL;
	free(g->kernel.config);
	json_decref(g->kernel.vm_start);
	json_decref(g->kernel.vm_end);
	memset(&g->kernel, 0, sizeof(g->kernel));
}

static void copy_str(const json_t *o, const char *k, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, k));

	snprintf(buf, len, "%s", s ? s : "");
}

static void replace(json_t **slot, json_t *v)
{
	json_decref(*slot);
	*slot = v;
}

/* The kernel line is kept whole: its config, why there is none, the counters at boot. */
static int on_kernel(struct guest_kernel *k, json_t *body)
{
	const char *cfg = json_string_value(json_object_get(body, "config"));
	char *text = NULL;

	if (cfg && !(text = strdup(cfg)))
		return -ENOMEM;
	free(k->config);
	k->config = text;
	k->config_same = json_is_true(json_object_get(body, "config_same"));
	copy_str(body, "config_error", k->config_error, sizeof(k->config_error));
	replace(&k->vm_start, json_incref(json_object_get(body, "vmstat")));
	if (json_is_null(k->vm_start))
		replace(&k->vm_start, NULL);
	k->seen = 1;
	return 0;
}

static int on_workload(struct guest_log *g, json_t *body, double t)
{
	size_t idx = (size_t)json_integer_value(json_object_get(body, "index"));

	/* The record as the report shows it: the index is where it goes. */
	if (json_object_del(body, "index") < 0 ||
	    json_array_set(g->workloads, idx, body) < 0)
		return -ENOMEM;
	g->t_last_end = t;
	return 0;
}

static int dispatch(struct guest_log *g, const struct channel_msg *m, double t)
{
	json_t *body = m->body;

	switch (m->type) {
	case CHANNEL_HELLO:
		g->hello = 1;
		g->t_hello = t;
		copy_str(body, "agent", g->agent, sizeof(g->agent));
		copy_str(body, "release", g->release, sizeof(g->release));
		return 0;
	case CHANNEL_TOPOLOGY:
		replace(&g->observed, json_incref(body));
		return 0;
	case CHANNEL_KERNEL:
		return on_kernel(&g->kernel, body);
	case CHANNEL_KNOBS:
		replace(&g->knobs, json_incref(body));
		return 0;
	case CHANNEL_CPUS_ONLINE:
		replace(&g->online, json_incref(body));
		return 0;
	case CHANNEL_HEARTBEAT:
		return 0;
	case CHANNEL_WORKLOAD_START:
		if (g->t_first_start < 0)
			g->t_first_start = t;
		if (json_object_get(body, "nodes") &&
		    json_array_set(g->start_memory,
				   (size_t)json_integer_value(json_object_get(body, "index")),
				   json_object_get(body, "nodes")) < 0)
			return -ENOMEM;
		return 0;
	case CHANNEL_WORKLOAD:
		return on_workload(g, body, t);
	case CHANNEL_ERROR:
		copy_str(body, "msg", g->last_error, sizeof(g->last_error));
		return 0;
	case CHANNEL_VMSTAT:
		replace(&g->kernel.vm_end, json_incref(json_object_get(body, "vmstat")));
		if (json_is_null(g->kernel.vm_end))
			replace(&g->kernel.vm_end, NULL);
		return 0;
	case CHANNEL_DONE:
		g->done = 1;
		g->done_ok = json_is_true(json_object_get(body, "ok"));
		g->t_done = t;
		return 0;
	case CHANNEL_UNKNOWN:
		break;
	}
	return -EINVAL;
}

int collect_line(struct guest_log *g, const char *line, size_t len, double t)
{
	const struct channel_bounds b = { .nr_workloads = g->nr_workloads,
					  .max_nodes = TOPO_MAX_NODES,
					  .max_cpus = TOPO_MAX_VCPUS };
	struct channel_msg m;
	int r;

	if (len == 0 || len > COLLECT_MAX_LINE)
		return 0;
	r = channel_parse(line, len, &b, &m);
	if (r == 0)
		r = dispatch(g, &m, t);
	channel_msg_free(&m);
	if (r < 0) {
		g->bad_lines++;
		return 0;
	}
	return 1;
}

size_t collect_text(struct guest_log *g, const char *text, size_t len, double t)
{
	size_t progress = 0;
	const char *nl;

	for (const char *l = text; l < text + len; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(text + len - l));
		if (!nl)
			break;
		progress += collect_line(g, l, (size_t)(nl - l), t) > 0;
	}
	return progress;
}

json_t *collect_vma_lock_json(const struct guest_kernel *k)
{
	json_t *delta, *v;
	const char *key;

	if (!k->vm_start && !k->vm_end)
		return json_null();
	delta = json_object();
	json_object_foreach(k->vm_end, key, v) {
		json_t *s = json_object_get(k->vm_start, key);

		if (delta && s && json_integer_value(v) >= json_integer_value(s))
			json_object_set_new(delta, key, json_integer(json_integer_value(v) -
								     json_integer_value(s)));
	}
	return json_pack("{s:O?,s:O?,s:o}", "start", k->vm_start, "end", k->vm_end, "delta",
			 delta ? delta : json_object());
}

static int death_note(const json_t *w, size_t i, const char *name, char *buf, size_t len)
{
	const json_t *oom = json_object_get(w, "oom");
	json_int_t sig = json_integer_value(json_object_get(w, "signal"));
	char what[384], signame[16];
	const char *sn = oomkill_signal_name((int)sig, signame, sizeof(signame));

	if (oom) {
		oomkill_describe(oom, what, sizeof(what));
		snprintf(buf, len, "workloads[%zu] (%s) %s by the OOM killer: %s", i, name,
			 sig == SIGKILL ? "killed" : "failed, a process of it killed", what);
		return 1;
	}
	if (!sn)
		return 0;
	snprintf(buf, len, "workloads[%zu] (%s) killed by %s (signal %lld)", i, name, sn,
		 (long long)sig);
	return 1;
}

void collect_death_note(const struct guest_log *g, const struct job *job, char *buf,
			size_t len)
{
	size_t i;
	json_t *w;

	buf[0] = '\0';
	json_array_foreach(g->workloads, i, w)
		if (json_is_object(w) && death_note(w, i, job && i < job->nr_workloads ? job->workloads[i].name : "?", buf,
				      len))
			return;
}

void collect_count(const struct guest_log *g, int *failed, int *missing)
{
	size_t i;
	json_t *w;

	*failed = *missing = 0;
	json_array_foreach(g->workloads, i, w) {
		const char *err = json_string_value(json_object_get(w, "error"));

		if (json_is_null(w))
			(*missing)++;
		else if (json_integer_value(json_object_get(w, "exit")) != 0 || (err && err[0]))
			(*failed)++;
	}
}

static void add_mismatch(json_t *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_mismatch(json_t *list, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(list, json_string(buf));
}

static void compare_node(const struct topo_node *rn, const json_t *on, unsigned i, json_t *list)
{
	json_t *cpus = json_object_get(on, "cpus");
	long mem = (long)json_integer_value(json_object_get(on, "memory_mib"));
	double dev = rn->memory_mib ? ((double)mem - (double)rn->memory_mib) / (double)rn->memory_mib
				    : 0;
	int same = json_array_size(cpus) == rn->nr_cpus;

	for (unsigned c = 0; same && c < rn->nr_cpus; c++)
		same = json_integer_value(json_array_get(cpus, c)) == rn->cpus[c];
	if (!same) {
		_cleanup_free_ char *s = json_dumps(cpus, JSON_COMPACT);
		char want[4096];

		topology_cpulist(rn->cpus, rn->nr_cpus, want, sizeof(want));
		add_mismatch(list, "nodes[%u].cpus: requested %s, observed %.200s", i, want,
			     s ? s : "?");
	}
	if (fabs(dev) > 0.05)
		add_mismatch(list, "nodes[%u].memory_mib: requested %lu, observed %ld (%+.1f%%)", i,
			     rn->memory_mib, mem, dev * 100);
}

int collect_compare_topology(const struct topology *req, const json_t *observed,
			     json_t **mismatches)
{
	json_t *list = json_array();
	json_t *nodes = json_object_get(observed, "nodes");
	json_t *dist = json_object_get(observed, "distances");

	*mismatches = list;
	if (!list)
		return -ENOMEM;
	if (!observed) {
		add_mismatch(list, "the guest reported no topology");
		return 0;
	}
	if (json_array_size(nodes) != req->nr_nodes) {
		add_mismatch(list, "nodes: requested %u, observed %zu", req->nr_nodes,
			     json_array_size(nodes));
		return 0;
	}
	for (unsigned i = 0; i < req->nr_nodes; i++)
		compare_node(&req->nodes[i], json_array_get(nodes, i), i, list);
	for (unsigned i = 0; i < req->nr_nodes; i++)
		for (unsigned k = 0; k < req->nr_nodes; k++) {
			json_int_t got = json_integer_value(json_array_get(json_array_get(dist, i), k));
			unsigned want = req->distances[i * req->nr_nodes + k];

			if (got != (json_int_t)want)
				add_mismatch(list, "distances[%u][%u]: requested %u, observed %lld", i,
					     k, want, (long long)got);
		}
	return json_array_size(list) == 0;
}
