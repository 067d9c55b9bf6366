/* lab hosts [--connect URI] [--json]: the host `lab run` runs guests on (this machine's
 * embedded driver, or a libvirt URI), opened and asked what it is and what of the lab runs
 * there.  lab hosts --slurm: the nodes of the Slurm cluster labd
 * --backend slurm hands its jobs to, as sinfo sees them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/runenv.h"
#include "daemon/slurm.h"
#include "run/host.h"
#include "util/cleanup.h"
#include "util/jsonio.h"
#include "util/text.h"

/* One command line a process: what the table writes to (--connect and --state: the run
 * environment's, without its --accel and --quiet-wait). */
static struct {
	int json, slurm;
} args;

static const struct cli_opt options[] = {
	OPT_GROUP(cli_connect_opts),
	OPT_FLAG(0, "slurm", &args.slurm, "the nodes of the Slurm cluster labd runs jobs on"),
	OPT_FLAG(0, "json", &args.json, "{\"hosts\": [...]} with keys sorted"),
	OPT_GROUP(cli_state_opts),
	OPT_END(),
};

void cmd_hosts_help(void)
{
	memset(&args, 0, sizeof(args));
	cli_synopsis("hosts", NULL, options);
	printf("\nThe host `lab run` (and labd's local backend) runs guests on, the same one\n"
	       "`lab run --connect URI` would use, shown with its state (up, down and why, or\n"
	       "in-use), capacity, QEMU version, the timing models its KVM verdict allows and\n"
	       "the lab's guests running there.  --slurm: the nodes of labd's Slurm cluster\n"
	       "instead.  Each option at length: man lab, \"OPTIONS OF LAB HOSTS\".\n\n"
	       "OPTIONS\n");
	opt_print(stdout, options);
	printf("\nEXAMPLES\n"
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

static int parse_args(int argc, char **argv)
{
	int first;

	memset(&args, 0, sizeof(args));
	first = cli_parse(argc, argv, options);
	if (first < 0)
		return -EINVAL;
	if (first != argc) {
		cli_usage_err("no arguments besides the options");
		return -EINVAL;
	}
	if (args.slurm && cli_runenv_uri()) {
		cli_usage_err("--slurm and --connect: Slurm's nodes or one libvirt host, not both");
		return -EINVAL;
	}
	return 0;
}

int cmd_hosts(int argc, char **argv)
{
	_cleanup_json_ json_t *j = NULL;
	struct host h;
	int up;

	if (parse_args(argc, argv) < 0)
		return EXIT_BAD_INPUT;
	if (args.slurm)
		return hosts_slurm(args.json);
	if (hosts_init(&h, cli_runenv_uri(), NULL, NULL) < 0)
		return EXIT_LAB_ERROR;
	j = hosts_survey(&h, cli_runenv_state());
	hosts_free(&h);
	if (!j)
		return EXIT_LAB_ERROR;
	up = !strcmp(json_string_value(json_object_get(j, "state")), "up");
	if (args.json) {
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
