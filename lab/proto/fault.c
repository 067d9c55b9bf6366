#include "proto/fault.h"

#include "proto/words.h"

static const char *const fault_names[] = {
	[FAULT_NONE] = "none",
	[FAULT_PANIC] = "panic",
	[FAULT_HANG] = "hang",
	[FAULT_FLOOD_CHANNEL] = "flood-channel",
	[FAULT_LONG_LINE] = "long-line",
	[FAULT_BAD_UTF8] = "bad-utf8",
	[FAULT_DEEP_JSON] = "deep-json",
	[FAULT_FLOOD_CONSOLE] = "flood-console",
	NULL,
};

static const char *const fault_after_names[] = {
	[FAULT_AFTER_HELLO] = "hello",
	[FAULT_AFTER_WORKLOADS] = "workloads",
	NULL,
};

#define NR_FAULTS (sizeof(fault_names) / sizeof(fault_names[0]) - 1)
#define NR_FAULT_AFTER (sizeof(fault_after_names) / sizeof(fault_after_names[0]) - 1)

const char *fault_name(enum fault f)
{
	return (unsigned)f < NR_FAULTS ? fault_names[f] : "unknown";
}

const char *fault_after_name(enum fault_after a)
{
	return (unsigned)a < NR_FAULT_AFTER ? fault_after_names[a] : "unknown";
}

/* v absent: index 0; else one of names, or the error names them all. */
static int parse_word(const json_t *v, const char *const *names, const char *path,
		      const char *prefix, const char *last, int *out, struct lab_error *err)
{
	char list[256];
	int i = v ? words_index(names, json_string_value(v)) : 0;

	if (i >= 0) {
		*out = i;
		return 0;
	}
	words_list(names, last, list, sizeof(list));
	return error_set(err, path, "must be %s%s", prefix, list);
}

int fault_parse(const json_t *v, const char *path, enum fault *out, struct lab_error *err)
{
	int i = 0, r = parse_word(v, fault_names, path, "one of ", ", ", &i, err);

	if (r == 0)
		*out = (enum fault)i;
	return r;
}

int fault_after_parse(const json_t *v, const char *path, enum fault_after *out,
		      struct lab_error *err)
{
	int i = 0, r = parse_word(v, fault_after_names, path, "", " or ", &i, err);

	if (r == 0)
		*out = (enum fault_after)i;
	return r;
}
