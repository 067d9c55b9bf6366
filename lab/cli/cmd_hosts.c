/* lab hosts [--connect URI] [--json]: the host `lab run` runs guests on (this machine's
 * embedded driver, or a libvirt URI), opened and asked what it is and what of the lab runs
 * there.  lab hosts --slurm: the nodes of the Slurm cluster labd
 * --backend slurm hands its jobs to, as sinfo sees them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "daemon/slurm.h"
#include "run/engine.h"
#include "run/host.h"
#include "util/cleanup.h"
#include "util/jsonio.h"
#include "util/statedir.h"
#include "util/text.h"

void cmd_hosts_help(void)
{
	printf("usage: lab hosts [--connect URI] [--json] [--state DIR]\n"
	       "       lab hosts --slurm [--json]\n\n"
	       "The host `lab run` (and labd's local backend) runs guests on, the same one\n"
	       "`lab run --connect URI` would use: this machine's embedded driver, or a libvirt\n"
	       "URI, local or remote.  It is opened and shown with its state (up, down and why,\n"
	       "or in-use: this machine's embedded driver held by a running lab or labd),\n"
	       "capacity (CPUs, memory available now), QEMU version, the timing models its\n"
	       "cached KVM verdict allows (none before a first run there), and the lab's guests\n"
	       "running there.  A remote host needs libvirtd (or virtqemud) with QEMU and\n"
	       "virtlogd, nothing of numalab ('lab run --help', --connect).  Many hosts are a\n"
	       "Slurm cluster's nodes (labd --backend slurm): --slurm lists them.\n\n"
	       "  --connect URI the libvirt host (default: the embedded driver under STATE)\n"
	       "  --slurm      the nodes of the Slurm cluster (SLURM_CONF, else Slurm's own\n"
	       "               configuration) that labd --backend slurm runs jobs on: state\n"
	       "               (Slurm's, its flags after a +: idle+drain), features (the host\n"
	       "               classes --class takes), CPUs allocated of all, memory, and why\n"
	       "               a node is drained or down\n"
	       "  --json       {\"hosts\": [...]} with keys sorted\n"
	       "  --state DIR  state directory (default $LAB_STATE_DIR or\n"
	       "               ~/.local/state/numalab)\n\n"
	       "EXAMPLES\n"
	       "  lab hosts\n"
	       "  lab hosts --json\n"
	       "  lab hosts --state /var/lib/numalab    # labd's (lab/systemd/)\n"
	       "  lab hosts --connect qemu+ssh://root@big1/system\n"
	       "  lab hosts --slurm\n\n"
	       "Exit status: 0 the host up (every Slurm node up), 3 the host (or a Slurm node)\n"
	       "down or drained, 2 bad arguments, 4 Slurm did not answer.\n");
}

/* A string member for a terminal: printable characters only, "" when it is absent (a host
 * that is down has no version, CPUs or memory). */
static void field(const json_t *h, const char *key, char *buf, size_t len)
{
	const char *v = json_string_value(json_object_get(h, key));

	text_clean_copy(buf, len, v ? v : "");
}

static void print_host(const json_t *h)
{
	char state[16], uri[256], why[512], qv[32];
	const json_t *run = json_object_get(h, "running"), *v;
	const json_t *tm = json_object_get(h, "timing_models");
	char models[64] = "";
	size_t i;

	field(h, "state", state, sizeof(state));
	field(h, "uri", uri, sizeof(uri));
	field(h, "why", why, sizeof(why));
	field(h, "qemu_version", qv, sizeof(qv));
	json_array_foreach(tm, i, v)
		snprintf(models + strlen(models), sizeof(models) - strlen(models), "%s%s",
			 i ? "," : "", json_string_value(v));
	printf("%-7s %4lld %9lld  %-20s %-8s %s\n", state,
	       (long long)json_integer_value(json_object_get(h, "cpus")),
	       (long long)json_integer_value(json_object_get(h, "memory_mib")),
	       models[0] ? models : "-", qv[0] ? qv : "-", uri[0] ? uri : "embedded");
	if (why[0])
		printf("  %s\n", why);
	json_array_foreach(run, i, v)
		printf("  running: %s\n", json_string_value(v));
}

/* A Slurm node state that takes no job: down, drained or draining, failing, not responding. */
static int slurm_node_bad(const char *state)
{
	static const char *const bad[] = { "down", "drain", "fail", "not_responding", "future",
					   NULL };

	for (size_t i = 0; bad[i]; i++)
		if (strstr(state, bad[i]))
			return 1;
	return 0;
}

static void print_node(const json_t *n)
{
	char name[64], state[64], reason[256], feats[256] = "";
	const json_t *f;
	size_t i;

	field(n, "name", name, sizeof(name));
	field(n, "state", state, sizeof(state));
	field(n, "reason", reason, sizeof(reason));
	json_array_foreach(json_object_get(n, "features"), i, f)
		snprintf(feats + strlen(feats), sizeof(feats) - strlen(feats), "%s%s", i ? "," : "",
			 json_string_value(f));
	printf("%-16s %-20s %-24s %4lld/%-4lld %9lld %9lld\n", name, state, feats[0] ? feats : "-",
	       (long long)json_integer_value(json_object_get(n, "alloc_cpus")),
	       (long long)json_integer_value(json_object_get(n, "cpus")),
	       (long long)json_integer_value(json_object_get(n, "memory_mib")),
	       (long long)json_integer_value(json_object_get(n, "free_mib")));
	if (reason[0])
		printf("  %s\n", reason);
}

static int hosts_slurm(int json)
{
	_cleanup_json_ json_t *nodes = NULL;
	struct lab_error err = { 0 };
	const json_t *n;
	char msg[1200];
	size_t i;
	int bad = 0;

	if (slurm_nodes(&nodes, &err) < 0) {
		error_format(&err, msg, sizeof(msg));
		cli_err("Slurm's nodes: %s", msg);
		return EXIT_LAB_ERROR;
	}
	json_array_foreach(nodes, i, n)
		bad += slurm_node_bad(json_string_value(json_object_get(n, "state")));
	if (json) {
		_cleanup_json_ json_t *doc = json_pack("{s:O}", "hosts", nodes);
		_cleanup_free_ char *text = doc ? jsonio_dumps(doc) : NULL;

		if (!text)
			return EXIT_LAB_ERROR;
		printf("%s\n", text);
	} else {
		printf("%-16s %-20s %-24s %9s %9s %9s\n", "NODE", "STATE", "FEATURES", "CPUS",
		       "MEM_MIB", "FREE_MIB");
		json_array_foreach(nodes, i, n)
			print_node(n);
	}
	return bad ? EXIT_RUN_FAILED : EXIT_OK;
}

int cmd_hosts(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "connect", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "state", required_argument, NULL, 's' },
		{ "slurm", no_argument, NULL, 'S' },
		{ 0 },
	};
	_cleanup_json_ json_t *j = NULL;
	const char *uri = NULL;
	char state[4096];
	int json = 0, c, slurm = 0, up;
	struct host h;

	statedir_default(state, sizeof(state));
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'c': uri = optarg; break;
		case 'j': json = 1; break;
		case 's': snprintf(state, sizeof(state), "%s", optarg); break;
		case 'S': slurm = 1; break;
		default: cli_bad_option(c, argv); return EXIT_BAD_INPUT;
		}
	}
	if (optind != argc) {
		cli_usage_err("no arguments besides the options");
		return EXIT_BAD_INPUT;
	}
	if (slurm && uri) {
		cli_usage_err("--slurm and --connect: Slurm's nodes or one libvirt host, not both");
		return EXIT_BAD_INPUT;
	}
	if (slurm)
		return hosts_slurm(json);
	if (hosts_init(&h, uri, NULL, NULL) < 0)
		return EXIT_LAB_ERROR;
	j = hosts_survey(&h, state);
	hosts_free(&h);
	if (!j)
		return EXIT_LAB_ERROR;
	up = !strcmp(json_string_value(json_object_get(j, "state")), "up");
	if (json) {
		_cleanup_json_ json_t *doc = json_pack("{s:[O]}", "hosts", j);
		_cleanup_free_ char *text = doc ? jsonio_dumps(doc) : NULL;

		if (!text)
			return EXIT_LAB_ERROR;
		printf("%s\n", text);
	} else {
		printf("%-7s %4s %9s  %-20s %-8s %s\n", "STATE", "CPUS", "FREE_MIB", "TIMING",
		       "QEMU", "URI");
		print_host(j);
	}
	return up ? EXIT_OK : EXIT_RUN_FAILED;
}
