/* Does not compile, on purpose: `make broken` is the kbuild workload's failing build
 * (lab/tests/integration/kbuild.sh checks that the report carries this error). */
#include "tiny.h"

int broken(void)
{
	return tiny_no_such_symbol + 1;
}
