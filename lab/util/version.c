#include "util/version.h"

#ifndef LAB_VERSION
#define LAB_VERSION "unknown"
#endif
#ifndef LAB_COMMIT
#define LAB_COMMIT "unknown"
#endif

const char *version_lab(void)
{
	return LAB_VERSION;
}

const char *version_commit(void)
{
	return LAB_COMMIT;
}
