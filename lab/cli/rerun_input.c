/* A report named on the command line (cli/rerun_input.h). */
#include "cli/rerun_input.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/runreport.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

int cli_report_json(const char *arg, char *buf, size_t len)
{
	struct stat st;

	if (stat(arg, &st) < 0) {
		cli_err("%s: %s", arg, strerror(errno));
		return -ENOENT;
	}
	if ((size_t)snprintf(buf, len, S_ISDIR(st.st_mode) ? "%s/report.json" : "%s", arg) >= len)
		return -ENAMETOOLONG;
	if (stat(buf, &st) < 0 || !S_ISREG(st.st_mode)) {
		cli_err("%s: no report.json there", arg);
		return -ENOENT;
	}
	return 0;
}

int cli_report_id(const char *report_json, char *buf, size_t len, const char *prefix,
		  const char *suffix)
{
	_cleanup_json_ json_t *rep = NULL;
	struct lab_error err = { 0 };
	const char *id;

	if (jsonio_load_file(report_json, RUNREPORT_MAX_SIZE, &rep, &err) < 0) {
		cli_err("%s: %s", report_json, err.msg);
		return -EINVAL;
	}
	id = json_string_value(json_object_get(rep, "id"));
	if (!id || !id[0] || strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789._-") != strlen(id) || id[0] == '.') {
		cli_err("%s: no usable \"id\" (say -o FILE)", report_json);
		return -EINVAL;
	}
	return (size_t)snprintf(buf, len, "%s%s%s", prefix, id, suffix) < len ? 0 : -ENAMETOOLONG;
}
