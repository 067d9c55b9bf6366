/* Inside the history module only: what an open index is (history.c opens it, query.c reads
 * it). */
#pragma once
#include "history/sql.h"

struct history {
	sqlite3 *db;
};
