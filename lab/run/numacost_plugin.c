/* The NUMA cost plugin around one boot (run/numacost_plugin.h). */
#include "run/numacost_plugin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memfit.h"
#include "core/numarun.h"
#include "run/tcgplugin.h"
#include "util/cleanup.h"
#include "util/fs.h"

#define WHAT "the NUMA cost plugin"

int numacost_check_host(const char *qemu, const char *runners_dir, char *why, size_t why_len)
{
	_cleanup_free_ char *so = fs_join(runners_dir, "../plugin/numacost.so");
	_cleanup_free_ char *text = NULL;
	int r;

	if (!so)
		return -ENOMEM;
	r = tcgplugin_nm("-D", qemu, &text);
	if (r < 0) {
		snprintf(why, why_len, "numa_cost: cannot read the symbols of %s: nm %s", qemu,
			 r == -EIO ? "failed" : strerror(-r));
		return r;
	}
	if (!numarun_nm_exports(text, NUMARUN_QEMU_SYMBOL)) {
		snprintf(why, why_len, "numa_cost: %s: this QEMU has no per-vCPU charge "
			 "(images/qemu/0003-icount-charge.patch): rebuild with lab qemu build", qemu);
		return -EINVAL;
	}
	if (!fs_exists(so)) {
		snprintf(why, why_len, "numa_cost: %s %s is missing (make builds it)", WHAT, so);
		return -ENOENT;
	}
	return 0;
}

/* f->dir/numacost.cfg, the plugin's configuration, into *cfg (caller frees). */
static int write_cfg(const struct tcgplugin_files *f, const struct job *job, char **cfg,
		     char *why, size_t why_len)
{
	_cleanup_free_ char *text = NULL;
	int r;

	if (!job->numa.name[0]) {
		snprintf(why, why_len, "numa_cost: the preset %s was not read (run/jobload.c)",
			 job->numa_cost);
		return -EINVAL;
	}
	text = numapreset_plugin_cfg(&job->numa, &job->topo, memfit_below_4g(&job->topo));
	*cfg = fs_join(f->dir, "numacost.cfg");
	if (!text || !*cfg)
		return -ENOMEM;
	r = fs_write_atomic(*cfg, text, strlen(text));
	if (r < 0)
		snprintf(why, why_len, "cannot write %s: %s", *cfg, strerror(-r));
	return r;
}

int numacost_prepare(const char *run_dir, const struct job *job, const char *kernel,
		     const char *runners_dir, char *plugin, size_t len, int *no_map, char *why,
		     size_t why_len)
{
	_cleanup_free_ char *cfg = NULL;
	struct tcgplugin_files f;
	int r;

	plugin[0] = '\0';
	r = tcgplugin_files(run_dir, runners_dir, "numacost", WHAT, &f, why, why_len);
	if (r < 0)
		return r;
	/* The map only names addresses for the plugin; a kernel without symbols still runs. */
	if ((r = tcgplugin_write_map(&f, kernel, "numa_cost", NULL, no_map, why, why_len)) == 0 &&
	    (r = write_cfg(&f, job, &cfg, why, why_len)) == 0 &&
	    (size_t)snprintf(plugin, len, "file=%s,cfg=%s,out=%s,map=%s", f.so, cfg, f.out,
			     f.map) >= len) {
		plugin[0] = '\0';
		snprintf(why, why_len, "the plugin's paths are too long: %s", f.dir);
		r = -ENAMETOOLONG;
	}
	tcgplugin_files_free(&f);
	return r;
}

int numacost_collect(const char *run_dir, const struct job *job, json_t **out, char *why,
		     size_t why_len)
{
	_cleanup_free_ char *path = fs_join(run_dir, "numacost.json");
	_cleanup_free_ char *text = NULL;
	_cleanup_json_ json_t *j = NULL;
	struct lab_error err = { 0 };
	json_int_t failed;
	size_t n = 0;
	int r;

	*out = NULL;
	if (!path)
		return -ENOMEM;
	r = tcgplugin_read_out(run_dir, "numacost", WHAT, NUMARUN_MAX_BYTES, &text, &n, why,
			       why_len);
	if (r < 0)
		return r;
	if ((r = numarun_parse(text, n, &job->topo, &j, &err)) < 0) {
		error_set_file(&err, path);
		error_format(&err, why, why_len);
		return r;
	}
	if (!(*out = numarun_report(j, &job->numa, job->numa_sha256)))
		return -ENOMEM;
	failed = json_integer_value(json_object_get(j, "stall_failed"));
	if (failed > 0) {
		snprintf(why, why_len, "the QEMU did not take the charges: %lld of them failed "
			 "(stall_failed in %s)", (long long)failed, path);
		return -EPROTO;
	}
	return 0;
}
