/* `lab bundle` and `lab rerun`'s files: a report and everything its runs used, as one archive
 * (util/archive.h: gzip-compressed pax tar), and back.
 *
 * The archive holds MANIFEST.json (core/bundle.h) first, then:
 *   report.json              the report as it was
 *   job.json                 the job as run (the report's job.as_run), every reference
 *                            rewritten to a member: "kernels/NAME.json", "topologies/NAME.json",
 *                            "numa/NAME.json", "images/NAME.json"
 *   kernels/NAME.json        each kernel variant with its "extends" resolved into it, its
 *                            patches in kernels/patches/ and fragments in kernels/config/
 *   kernels/resolved/LABEL.config   the .config each build ended with, from the kernel
 *                            cache, when it still has it (what to diff; not built from)
 *   images/NAME.json         an image recipe, its files in images/files/
 * No build artifacts: kernels, images and QEMU rebuild from these, cached by content. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "core/bundle.h"
#include "util/error.h"

/* The bundle of the report at report_path (a report.json) written to out.  *m (the caller's
 * to free) is its manifest; *bytes the archive's size.  -EINVAL with err naming the file and
 * why it cannot be bundled (a job file changed since a report older than job.as_run, a
 * prebuilt kernel image, a missing patch); other negative errnos with err said. */
int bundle_write(const char *report_path, const char *out, struct bundle_manifest **m,
		 size_t *bytes, struct lab_error *err);
/* The bundle at path extracted into dir (made; its parent must exist) and checked against its
 * manifest: every member listed, every listed member there with its sha256.  *m the manifest
 * (the caller's); *report the original report.  Refused (-EINVAL, err saying which member
 * and why, dir removed): anything util/archive.h's reader refuses, no or a bad manifest, a
 * member not listed or altered. */
int bundle_open(const char *path, const char *dir, struct bundle_manifest **m, json_t **report,
		struct lab_error *err);
