/* The instruction profile around one boot (run/profile_plugin.h). */
#include "run/profile_plugin.h"

#include "core/profile.h"
#include "run/tcgplugin.h"

int profile_prepare(const char *run_dir, const char *kernel, const char *runners_dir,
		    char *plugin, size_t len, char *why, size_t why_len)
{
	/* A profile without the kernel's names would be addresses: the map is required. */
	return tcgplugin_prepare_mapped(run_dir, runners_dir, "profile", "the instruction profile", kernel,
					"profile", "handle_mm_fault", plugin, len, why, why_len);
}

int profile_collect(const char *run_dir, json_t *run, char *why, size_t why_len)
{
	return tcgplugin_collect(run_dir, "profile", "the instruction profile", PROFILE_MAX_BYTES, profile_parse,
				 profile_attach, run, why, why_len);
}
