/* A job's kernels (lab/core/job_kernel.c): "kernel" with "image" or "variant", and the A/B
 * list "kernels".  Each case is the kernel part of an otherwise valid job; it must parse to
 * the kernels shown (label|image|variant|cmdline|path, one per kernel) or fail with the line
 * shown ("PATH: REASON"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/job.h"
#include "tap.h"
#include "util/cleanup.h"
#include "util/jsonio.h"
#include "util/strbuf.h"

#define TOPO "{\"sockets\": 1, \"cores\": 2, \"nodes\": [{\"id\": 0, \"cpus\": \"0-1\", " \
	     "\"memory_mib\": 512}]}"

static const struct {
	const char *kernel; /* the job's "kernel"/"kernels" members, as JSON text */
	const char *want;   /* kernels joined by "; ", or the error line */
} cases[] = {
	{ "\"kernel\": {\"image\": \"/boot/vmlinuz-*\"}",
	  "vmlinuz-*|/boot/vmlinuz-*|||kernel" },
	{ "\"kernel\": {\"variant\": \"baseline\", \"cmdline\": \"lpj=4000000\"}",
	  "baseline||baseline|lpj=4000000|kernel" },
	{ "\"kernel\": {\"variant\": \"../my/v.json\", \"name\": \"mine\"}",
	  "mine||../my/v.json||kernel" },
	{ "\"kernel\": {\"variant\": \"../my/v.json\"}", "v||../my/v.json||kernel" },
	{ "\"kernels\": [{\"variant\": \"baseline\"}, {\"variant\": \"no-per-vma-lock\"}]",
	  "baseline||baseline||kernels[0]; no-per-vma-lock||no-per-vma-lock||kernels[1]" },
	{ "\"kernels\": [{\"image\": \"/boot/a\", \"name\": \"old\"}, {\"variant\": \"x\"}]",
	  "old|/boot/a|||kernels[0]; x||x||kernels[1]" },
	/* errors */
	{ "", "kernel: required" },
	{ "\"kernel\": {\"image\": \"/a\"}, \"kernels\": []",
	  "kernels: use one of \"kernel\", \"kernels\" and \"matrix\"" },
	{ "\"kernel\": {\"image\": \"/a\", \"variant\": \"b\"}",
	  "kernel: \"image\" and \"variant\" exclude each other" },
	{ "\"kernel\": {}", "kernel: needs \"image\" (a prebuilt kernel) or \"variant\" "
	  "(kernels/NAME.json)" },
	{ "\"kernel\": {\"variant\": \"\"}", "kernel.variant: must be a non-empty string" },
	{ "\"kernel\": {\"variant\": 3}", "kernel.variant: must be a non-empty string" },
	{ "\"kernel\": {\"variant\": \"Base Line\"}", "kernel.variant: \"Base Line\" is neither a "
	  "variant name ([a-z0-9][a-z0-9._-]*) nor a path" },
	{ "\"kernel\": {\"variant\": \"a\", \"name\": \"x y\"}",
	  "kernel.name: must match [A-Za-z0-9._-]{1,63}" },
	{ "\"kernel\": {\"variant\": \"a\", \"version\": 1}", "kernel.version: unknown key" },
	{ "\"kernels\": []", "kernels: must be an array of 1..16 kernels" },
	{ "\"kernels\": {\"variant\": \"a\"}", "kernels: must be an array of 1..16 kernels" },
	{ "\"kernels\": [{\"variant\": \"a\"}, \"b\"]", "kernels[1]: must be an object" },
	{ "\"kernels\": [{\"variant\": \"a\"}, {\"image\": \"/x\", \"cmdline\": \"a\\nb\"}]",
	  "kernels[1].cmdline: must not contain newlines" },
	{ "\"kernels\": [{\"variant\": \"a\"}, {\"variant\": \"b\", \"name\": \"a\"}]",
	  "kernels[1]: label \"a\" is already used by kernels[0] (give each a different "
	  "\"name\")" },
	{ "\"kernels\": [{\"variant\": \"a\"}, {\"variant\": \"a\"}]",
	  "kernels[1]: label \"a\" is already used by kernels[0] (give each a different "
	  "\"name\")" },
};

static char *dump(const struct job *job)
{
	struct strbuf sb = STRBUF_INIT;
	char *out = NULL;

	for (unsigned i = 0; i < job->nr_kernels; i++) {
		const struct job_kernel *k = &job->kernels[i];

		strbuf_appendf(&sb, "%s%s|%s|%s|%s|%s", i ? "; " : "", k->label, k->image,
			       k->variant, k->cmdline, k->path);
	}
	strbuf_take(&sb, &out);
	return out;
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		_cleanup_free_ char *text = NULL, *got = NULL;
		_cleanup_json_ json_t *j = NULL;
		struct lab_error err = {0};
		struct job job;
		char line[800];
		int r;

		if (asprintf(&text, "{\"name\": \"t\", \"topology\": " TOPO ", %s%s\"workloads\": "
			     "[{\"name\": \"pft\"}]}", cases[i].kernel, cases[i].kernel[0] ? ", " : "")
		    < 0)
			return 1;
		r = jsonio_load_string(text, &j, &err);
		if (r == 0)
			r = job_from_json(j, NULL, NULL, &job, &err);
		if (r == 0) {
			got = dump(&job);
			tap_ok(job.nr_kernels >= 1 && job.kernels &&
				       (job.kernels[0].image[0] || job.kernels[0].variant[0]),
			       "case %zu: kernels[0] names an image or a variant", i);
			job_free(&job);
		} else {
			snprintf(line, sizeof(line), "%s%s%s", err.path, err.path[0] ? ": " : "",
				 err.msg);
			got = strdup(line);
		}
		if (!tap_ok(got && !strcmp(got, cases[i].want), "case %zu: %s", i, cases[i].want))
			printf("# got: %s\n", got ? got : "(null)");
	}
	return tap_done();
}
