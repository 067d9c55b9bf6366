/* The lock-instruction counter around one boot (run/lockinsn_plugin.h). */
#include "run/lockinsn_plugin.h"

#include "core/lockinsn.h"
#include "run/tcgplugin.h"

int lockinsn_prepare(const char *run_dir, const char *kernel, const char *runners_dir,
		     char *plugin, size_t len, char *why, size_t why_len)
{
	/* The plugin finds the spinlock entry points by name. */
	return tcgplugin_prepare_mapped(run_dir, runners_dir, "lockinsn", "the lock-instruction counter", kernel,
					"lock_insns", "_raw_spin_lock", plugin, len, why, why_len);
}

int lockinsn_collect(const char *run_dir, json_t *run, char *why, size_t why_len)
{
	return tcgplugin_collect(run_dir, "lockinsn", "the lock-instruction counter", LOCKINSN_MAX_BYTES, lockinsn_parse,
				 lockinsn_attach, run, why, why_len);
}
