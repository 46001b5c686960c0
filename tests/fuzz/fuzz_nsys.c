/*
 * fuzz_nsys.c - the Nsight Systems importer on databases built from any SQL.
 *
 * An nsys export is an SQLite file; mutating its bytes would mostly test
 * SQLite's page checks, not the importer.  So the input is SQL text (the
 * seeds create the export's tables and rows): it runs against a fresh
 * scratch database, statements that fail are skipped, and the resulting
 * file goes through import_nsys_read and import_finish (--origin for half
 * the inputs) as surfer-import runs them; the trace written must read back
 * and analyze (fuzz.h).
 *
 * The SQL is fenced in: no ATTACH (so no file other than the scratch
 * database), no PRAGMA, and a budget of virtual machine steps so a recursive
 * query cannot grow the database without end.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "tools/import/import.h"

/* What the SQL may do: make and fill tables, views and indexes. */
static int authorize(void *ctx, int action, const char *a, const char *b, const char *c,
		     const char *d)
{
	(void)ctx; (void)a; (void)b; (void)c; (void)d;
	switch (action) {
	case SQLITE_CREATE_TABLE: case SQLITE_CREATE_INDEX: case SQLITE_CREATE_VIEW:
	case SQLITE_DROP_TABLE: case SQLITE_DROP_INDEX: case SQLITE_DROP_VIEW:
	case SQLITE_ALTER_TABLE: case SQLITE_INSERT: case SQLITE_UPDATE: case SQLITE_DELETE:
	case SQLITE_READ: case SQLITE_SELECT: case SQLITE_FUNCTION: case SQLITE_RECURSIVE:
	case SQLITE_TRANSACTION: case SQLITE_SAVEPOINT:
		return SQLITE_OK;
	default:
		return SQLITE_DENY;
	}
}

/* Called every 1000 virtual machine steps; stops the SQL after 2M. */
static int budget(void *ctx)
{
	return ++*(int *)ctx > 2000;
}

static void build(const char *db, const uint8_t *data, size_t size)
{
	char *sql = malloc(size + 1);
	sqlite3 *h = NULL;
	int ticks = 0;

	if (!sql)
		return;
	memcpy(sql, data, size);
	sql[size] = 0;
	unlink(db);
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) == SQLITE_OK) {
		/* a scratch file: no journal, no fsync (thousands of runs a
		 * second rather than tens) */
		sqlite3_exec(h, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF", NULL, NULL, NULL);
		sqlite3_limit(h, SQLITE_LIMIT_ATTACHED, 0);
		sqlite3_limit(h, SQLITE_LIMIT_LENGTH, 1 << 20);
		sqlite3_set_authorizer(h, authorize, NULL);
		sqlite3_progress_handler(h, 1000, budget, &ticks);
		/* run statement by statement so one bad statement does not stop
		 * the rest */
		const char *p = sql;
		while (*p && ticks <= 2000) {
			sqlite3_stmt *st = NULL;
			const char *tail = NULL;
			if (sqlite3_prepare_v2(h, p, -1, &st, &tail) != SQLITE_OK) {
				/* skip past the next ';' */
				const char *semi = strchr(p, ';');
				p = semi ? semi + 1 : p + strlen(p);
				continue;
			}
			while (st && sqlite3_step(st) == SQLITE_ROW)
				;
			sqlite3_finalize(st);
			if (!tail || tail == p)
				break;
			p = tail;
		}
	}
	sqlite3_close(h);
	free(sql);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *db = fuzz_path("nsys.sqlite");
	const char *out = fuzz_path("nsys.mp");
	struct import_set set;
	/* inputs of odd length keep the device the input names (none known
	 * fails in finish, as without --origin); even ones are --origin a100 */
	struct import_opts opts = { size & 1 ? NULL : "a100", -1 };
	struct import_stats st;
	char err[512];

	build(db, data, size);
	import_set_init(&set);
	if (import_nsys_read(&set, db, err, sizeof(err)) == 0 &&
	    import_finish(&set, &opts, out, &st, err, sizeof(err)) == 0) {
		fuzz_check_trace(out, "import_nsys");
		fuzz_analyze(out, "import_nsys");
	}
	import_set_release(&set);
	return 0;
}
