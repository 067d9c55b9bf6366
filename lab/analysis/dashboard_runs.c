/* The dashboard's "Runs" section (dashboard_runs.h): per report, every run's panel with its
 * outcome, console excerpt, topology, workloads (how each ended: signal, OOM kill), the
 * kernel's warnings, knobs and facts.  Split from dashboard.c for size; the same rules: every
 * report string escaped. */
#include "analysis/dashboard_runs.h"

#include <stdio.h>
#include <string.h>

#include "analysis/format.h"
#include "analysis/html.h"
#include "core/kwarn.h"
#include "util/cleanup.h"

static void esc(struct strbuf *sb, const char *s)
{
	html_escape(sb, s);
}

/* [0,1,2,3,8] -> "0-3,8". */
static void cpu_list(struct strbuf *sb, const json_t *cpus)
{
	size_t i = 0, n = json_array_size(cpus);

	if (!json_is_array(cpus)) {
		strbuf_append(sb, "-");
		return;
	}
	for (int first = 1; i < n; i++, first = 0) {
		json_int_t a = json_integer_value(json_array_get(cpus, i)), b = a;

		while (i + 1 < n && json_integer_value(json_array_get(cpus, i + 1)) == b + 1)
			b = json_integer_value(json_array_get(cpus, ++i));
		strbuf_appendf(sb, "%s%lld", first ? "" : ",", (long long)a);
		if (b != a)
			strbuf_appendf(sb, "-%lld", (long long)b);
	}
}

static void int_cell(struct strbuf *sb, const json_t *v)
{
	if (json_is_integer(v))
		strbuf_appendf(sb, "<td class=\"n\">%lld</td>", (long long)json_integer_value(v));
	else
		strbuf_append(sb, "<td class=\"n\">-</td>");
}

static void topology_table(struct strbuf *sb, const json_t *topo)
{
	const json_t *req = json_object_get(topo, "requested"), *obs = json_object_get(topo, "observed");
	const json_t *rn = json_object_get(req, "nodes"), *on = json_object_get(obs, "nodes");
	json_t *mism = json_object_get(topo, "mismatches"), *m;
	size_t n = json_array_size(rn) > json_array_size(on) ? json_array_size(rn) : json_array_size(on);
	size_t i;

	strbuf_appendf(sb, "<p>topology: %s", json_is_true(json_object_get(topo, "match"))
							 ? "observed matches requested"
							 : "<strong>observed differs from requested</strong>");
	if (!json_is_object(obs))
		strbuf_append(sb, " (nothing observed: the guest never reported it)");
	if (json_is_object(obs))
		strbuf_appendf(sb, "; distances %s",
			       json_equal(json_object_get(req, "distances"),
					  json_object_get(obs, "distances"))
				       ? "equal"
				       : "<strong>differ</strong>");
	strbuf_append(sb, "</p>\n<table class=\"topo\"><thead><tr><th>node</th><th>CPUs requested"
			  "</th><th>CPUs observed</th><th>MiB requested</th><th>MiB observed</th>"
			  "<th>MiB managed</th></tr></thead><tbody>\n");
	for (i = 0; i < n; i++) {
		const json_t *a = json_array_get(rn, i), *b = json_array_get(on, i);

		strbuf_append(sb, "<tr>");
		int_cell(sb, json_object_get(a ? a : b, "id"));
		strbuf_append(sb, "<td>");
		cpu_list(sb, json_object_get(a, "cpus"));
		strbuf_append(sb, "</td><td>");
		cpu_list(sb, json_object_get(b, "cpus"));
		strbuf_append(sb, "</td>");
		int_cell(sb, json_object_get(a, "memory_mib"));
		int_cell(sb, json_object_get(b, "memory_mib"));
		int_cell(sb, json_object_get(b, "managed_mib"));
		strbuf_append(sb, "</tr>\n");
	}
	strbuf_append(sb, "</tbody></table>\n");
	if (json_array_size(mism)) {
		strbuf_append(sb, "<ul class=\"mismatch\">");
		json_array_foreach(mism, i, m) {
			strbuf_append(sb, "<li>");
			esc(sb, json_string_value(m));
			strbuf_append(sb, "</li>");
		}
		strbuf_append(sb, "</ul>\n");
	}
}

/* How the runner died, before its error or stderr: the signal, and the guest kernel's own
 * OOM-killer lines (guest text: escaped like the rest). */
static void death_text(struct strbuf *sb, const json_t *w)
{
	const char *sig = json_string_value(json_object_get(w, "signal"));
	const json_t *oom = json_object_get(w, "oom"), *l;
	size_t i;

	if (sig)
		html_escapef(sb, "killed by %s (signal %lld)\n", sig,
		     (long long)json_integer_value(json_object_get(w, "signal_number")));
	if (!json_is_object(oom))
		return;
	html_escapef(sb, "the OOM killer killed %lld process(es) while it ran:\n",
	     (long long)json_integer_value(json_object_get(oom, "kills")));
	json_array_foreach(json_object_get(oom, "lines"), i, l) {
		esc(sb, json_string_value(l));
		strbuf_append(sb, "\n");
	}
}

static void workloads_table(struct strbuf *sb, const json_t *wls)
{
	size_t i;
	json_t *w;

	strbuf_append(sb, "<table class=\"wl\"><thead><tr><th>workload</th><th>params</th><th>status"
			  "</th><th>exit</th><th>wall s</th><th>error / stderr</th></tr></thead>"
			  "<tbody>\n");
	json_array_foreach(wls, i, w) {
		_cleanup_free_ char *params = json_dumps(json_object_get(w, "params"),
							 JSON_COMPACT | JSON_SORT_KEYS);
		const char *err = json_string_value(json_object_get(w, "error"));
		const char *st = json_string_value(json_object_get(w, "status"));
		json_t *wall = json_object_get(w, "wall_s");

		strbuf_append(sb, "<tr><td>");
		esc(sb, json_string_value(json_object_get(w, "name")));
		strbuf_append(sb, "</td><td class=\"params\">");
		esc(sb, params);
		strbuf_append(sb, "</td><td class=\"st-");
		esc(sb, st);
		strbuf_append(sb, "\">");
		esc(sb, st);
		strbuf_append(sb, "</td>");
		int_cell(sb, json_object_get(w, "exit"));
		if (json_is_number(wall))
			strbuf_appendf(sb, "<td class=\"n\">%.3g</td>", json_number_value(wall));
		else
			strbuf_append(sb, "<td class=\"n\">-</td>");
		strbuf_append(sb, "<td><pre class=\"small\">");
		death_text(sb, w);
		esc(sb, err && err[0] ? err : json_string_value(json_object_get(w, "stderr")));
		strbuf_append(sb, "</pre></td></tr>\n");
	}
	strbuf_append(sb, "</tbody></table>\n");
}

/* Any JSON value as short text (knob values are strings, numbers or null). */
static void value_cell(struct strbuf *sb, const json_t *v)
{
	_cleanup_free_ char *t = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	const char *s = json_string_value(v);

	strbuf_append(sb, "<td>");
	esc(sb, s ? s : t ? t : "-");
	strbuf_append(sb, "</td>");
}

/* runs[].knobs: {"ok", "error"?, "knobs": [{name, requested, before, after, status, ...}]}. */
static void knobs_table(struct strbuf *sb, const json_t *knobs)
{
	static const char *const cols[] = { "name", "requested", "before", "after", "status" };
	const char *err = json_string_value(json_object_get(knobs, "error"));
	json_t *list = json_object_get(knobs, "knobs"), *k;
	size_t i;

	strbuf_appendf(sb, "<p>knobs: %s", json_is_true(json_object_get(knobs, "ok"))
						   ? "ok"
						   : "<strong class=\"st-failed\">not ok</strong>");
	if (err) {
		strbuf_append(sb, " (");
		esc(sb, err);
		strbuf_append(sb, ")");
	}
	strbuf_append(sb, "</p>\n<table class=\"knobs\"><thead><tr><th>knob</th><th>requested</th>"
			  "<th>before</th><th>after</th><th>status</th></tr></thead><tbody>\n");
	json_array_foreach(list, i, k) {
		strbuf_append(sb, "<tr>");
		for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
			value_cell(sb, json_object_get(k, cols[c]));
		strbuf_append(sb, "</tr>\n");
	}
	strbuf_append(sb, "</tbody></table>\n");
}

static void run_facts(struct strbuf *sb, const json_t *run)
{
	const json_t *host = json_object_get(run, "host"), *k = json_object_get(run, "kernel");
	const json_t *t = json_object_get(run, "timings");
	const char *tk[] = { "boot_s", "first_workload_s", "workload_s", "total_s" };

	/* Each fact: the text before it, which object holds it, its key. */
	const struct { const char *before; const json_t *in; const char *key; } facts[] = {
		{ "<p class=\"facts\">end: ", run, "end" }, { " · kernel ", k, "image" },
		{ " (", k, "release" }, { ") · ", host, "accel" },
		{ ", QEMU ", host, "qemu_version" }, { ", libvirt ", host, "libvirt_version" },
	};

	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		strbuf_append(sb, facts[i].before);
		esc(sb, json_string_value(json_object_get(facts[i].in, facts[i].key)));
	}
	for (size_t i = 0; i < sizeof(tk) / sizeof(tk[0]); i++) {
		json_t *v = json_object_get(t, tk[i]);

		strbuf_append(sb, " · ");
		strbuf_append(sb, tk[i]);
		if (json_is_number(v))
			strbuf_appendf(sb, " %.2f", json_number_value(v));
		else
			strbuf_append(sb, " -");
	}
	strbuf_append(sb, "</p>\n");
}

/* The run's kernel warnings: kind, site and count, each with its excerpt folded; nothing
 * when none.  The report came through series_add_report, which refuses warnings core/kwarn.h
 * does not accept. */
static void warnings_list(struct strbuf *sb, const json_t *run, const struct kwarn_list *l)
{
	if (!l->n)
		return;
	strbuf_append(sb, "<p>kernel warnings (");
	esc(sb, json_string_value(json_object_get(run, "console")));
	strbuf_append(sb, "):</p>\n<ul class=\"warnings\">\n");
	for (unsigned i = 0; i < l->n; i++) {
		strbuf_append(sb, "<li><details><summary>");
		esc(sb, kwarn_kind_name(l->items[i].kind));
		strbuf_append(sb, " · ");
		esc(sb, l->items[i].where);
		strbuf_appendf(sb, " · %u×</summary><pre class=\"console\">", l->items[i].count);
		esc(sb, l->items[i].excerpt);
		strbuf_append(sb, "</pre></details></li>\n");
	}
	if (l->dropped)
		strbuf_appendf(sb, "<li>%u more distinct warning(s) not listed</li>\n", l->dropped);
	strbuf_append(sb, "</ul>\n");
}

static void run_panel(struct strbuf *sb, const json_t *run, size_t k)
{
	const char *st = json_string_value(json_object_get(run, "status"));
	const char *excerpt = json_string_value(json_object_get(run, "console_excerpt"));
	json_t *knobs = json_object_get(run, "knobs");
	int failed = !st || strcmp(st, "ok");
	char buf[256], path[32];
	struct kwarn_list warned;

	snprintf(path, sizeof(path), "runs[%zu]", k);
	kwarn_list_from_json(run, path, &warned, NULL);

	strbuf_appendf(sb, "<details class=\"run\"%s><summary><span class=\"st-", failed ? " open" : "");
	esc(sb, st);
	strbuf_append(sb, "\">");
	esc(sb, st);
	strbuf_append(sb, "</span> ");
	html_escapef(sb, "run %lld (repeat %lld) · %s · ",
	     (long long)json_integer_value(json_object_get(run, "index")),
	     (long long)json_integer_value(json_object_get(run, "repeat")),
	     series_run_label(run, buf, sizeof(buf)));
	esc(sb, json_string_value(json_object_get(run, "reason")));
	if (warned.n)
		strbuf_appendf(sb, " · %llu kernel warning(s)",
			       (unsigned long long)warned.n + warned.dropped);
	strbuf_append(sb, "</summary>\n");
	run_facts(sb, run);
	topology_table(sb, json_object_get(run, "topology"));
	if (json_is_object(knobs))
		knobs_table(sb, knobs);
	workloads_table(sb, json_object_get(run, "workloads"));
	warnings_list(sb, run, &warned);
	kwarn_list_free(&warned);
	if (failed) {
		strbuf_append(sb, "<p>console excerpt (");
		esc(sb, json_string_value(json_object_get(run, "console")));
		strbuf_append(sb, "):</p><pre class=\"console\">");
		esc(sb, excerpt ? excerpt : "(no panic, oops or BUG line on the console)");
		strbuf_append(sb, "</pre>\n");
	}
	strbuf_append(sb, "</details>\n");
}

void dashboard_runs_section(struct strbuf *sb, const struct series_set *s)
{
	strbuf_append(sb, "<section id=\"runs\"><h2>Runs</h2>\n");
	for (size_t i = 0; i < s->nr_reports; i++) {
		const struct series_report *r = &s->reports[i];
		json_t *runs = json_object_get(r->doc, "runs"), *run;
		size_t k;

		strbuf_appendf(sb, "<div class=\"report\" id=\"report-%zu\"><h3>", i);
		esc(sb, r->id);
		strbuf_append(sb, " <span class=\"meta\">");
		html_escapef(sb, "%s · job %s · %s", r->created, r->job, r->file);
		strbuf_append(sb, "</span></h3>\n");
		json_array_foreach(runs, k, run)
			run_panel(sb, run, k);
		strbuf_append(sb, "</div>\n");
	}
	strbuf_append(sb, "</section>\n");
}
