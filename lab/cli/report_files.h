/* Finding and loading report.json files for `lab compare` and `lab report`: command-line
 * plumbing (arguments -> files -> parsed documents).  What the reports mean, and what is made
 * of them, is lab/analysis (series.h). */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

/* Most report files one command reads. */
#define REPORT_MAX_FILES 10000

struct report_files {
	char **path;
	json_t **doc;          /* parsed by report_files_read */
	size_t n, cap;
};

/* Append the reports arg names: a file, a directory holding report.json, or a directory whose
 * subdirectories hold one each (such as reports/), in name order.  -ENOENT (err set) when arg
 * names none. */
int report_files_add(struct report_files *f, const char *arg, struct lab_error *err);
/* Parse every file (duplicate keys rejected); errors name the file. */
int report_files_read(struct report_files *f, struct lab_error *err);
void report_files_free(struct report_files *f);

struct series_set;
/* The reports f->doc[0..na) are side A, the rest side B (`lab compare A B`, `lab report A B`):
 * every run of a side is one variant, labelled by the side's kernel when each side has one
 * and they differ, else "A (labels)" and "B (labels)". */
int report_files_sides(struct report_files *f, size_t na, struct series_set *s,
		       struct lab_error *err);
