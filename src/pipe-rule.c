/*
 * pipe-rule.c - the integration pipeline's shared rules (see
 * pipe-rule.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "channel.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "pipe-rule.h"
#include "settings.h"

int64_t pipe_rule_backoff(int64_t failures, int retry_after, int code)
{
	int64_t d = PIPE_BACKOFF_MIN;
	int64_t i;

	if (code == CHAN_REFUSED || code == CHAN_BADDATA)
		d = PIPE_BACKOFF_MAX;
	for (i = 1; i < failures && d < PIPE_BACKOFF_MAX; i++)
		d *= 2;
	if (d > PIPE_BACKOFF_MAX)
		d = PIPE_BACKOFF_MAX;
	/* jitter: a random point in the upper half, never under the minimum */
	if (d > 1)
		d = d / 2 + rand() % (d - d / 2 + 1);
	if (d < PIPE_BACKOFF_MIN)
		d = PIPE_BACKOFF_MIN;
	/* the next try is stored in whole seconds from a clock read in whole
	 * seconds, up to a second late: one more keeps it never sooner than the
	 * channel asked (RFC 9110, 10.2.3) */
	if (retry_after >= 0 && retry_after + 1 > d)
		d = retry_after + 1;
	return d;
}

int64_t pipe_rule_give_up_seconds(void)
{
	long v = config_get_int("pipeline_give_up_seconds", PIPE_GIVE_UP_DEFAULT);

	return v < PIPE_GIVE_UP_MIN   ? PIPE_GIVE_UP_MIN
	       : v > PIPE_GIVE_UP_MAX ? PIPE_GIVE_UP_MAX
	                              : (int64_t)v;
}

int pipe_rule_retry_plan(int64_t since, int64_t now, int64_t failures, int retry_after, int code,
                         int64_t *wait)
{
	*wait = pipe_rule_backoff(failures < 1 ? 1 : failures, retry_after, code);
	return since > 0 && now - since >= pipe_rule_give_up_seconds();
}

int pipe_rule_since(struct db *db, const char *entity, int64_t id, const char *entered,
                    int64_t *since)
{
	sqlite3_stmt *st;
	int rc;

	*since = 0;
	/* by status_flow_by_entity: the flow of this one row */
	rc = db_prepare_cached(db,
	                       "SELECT coalesce(max(at), 0) FROM status_flow WHERE entity = ?1"
	                       " AND entity_id = ?2 AND to_status = ?3",
	                       &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, entity, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, id);
	sqlite3_bind_text(st, 3, entered, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		*since = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot read the status history"));
	db_release(db, st);
	return rc;
}

int inbox_source_valid(const char *s)
{
	size_t i, n = s ? strlen(s) : 0;

	if (n < 1 || n > 40)
		return err_set(FD_EINVAL, _("a source must be 1 to 40 characters"));
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '-'))
			return err_set(
			    FD_EINVAL,
			    _("a source may hold only a-z, 0-9, '_' and '-' (like stripe)"));
	return 0;
}
