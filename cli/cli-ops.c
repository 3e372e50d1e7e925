/*
 * cli-ops.c - `frontdesk agenda|projection|tasks|lease ...`: the calendar
 * read from its projection, rebuilding and checking the projection, the
 * background task queue and its runner, and the control table.
 *
 * The agenda reads the projection only (one range query), after asking the
 * core to apply the calendar updates still queued (task_catch_up: itself
 * when no runner is running, else it waits for the runner a moment), so
 * what was just written shows; it says on stderr what is still behind.
 */
#include <config.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli-util.h"
#include "clock.h"
#include "control.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "money.h"
#include "projection.h"
#include "stopflag.h"
#include "task.h"
#include "words.h"
#include "xalloc.h"

#define MAX_AGENDA_DAYS 366

/* _(msgid), looked up once and kept in *slot (format_arg: a format passed
 * through it is still checked against its arguments). */
static const char *tr_once(const char **slot, const char *msgid) __attribute__((format_arg(2)));
static const char *tr_once(const char **slot, const char *msgid)
{
	if (!*slot)
		*slot = _(msgid);
	return *slot;
}

/* The label of a stored identifier (one table for both front ends). */
static const char *label(const char *id)
{
	return words_label(id);
}

/* Print text from the database sanitised for the terminal: plain printable
 * ASCII as it is, anything else through cli_puts_safe (text_sanitize). */
static void puts_field(const char *s)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p >= 0x7f) {
			cli_puts_safe(s);
			return;
		}
	fputs(s, stdout);
}

static void format_local(int64_t t, char *buf, size_t n)
{
	clock_format_local(t, "%Y-%m-%d %H:%M:%S", buf, n);
}

/* The price of a row as text: "180.00 USD", "-" or "mixed currencies". */
static void format_price(const struct cal_row *r, char *buf, size_t n)
{
	const struct currency *cur;
	char amt[MONEY_BUFSZ];

	if (!r->has_total) {
		snprintf(buf, n, "%s", _("mixed currencies"));
		return;
	}
	if (!r->currency[0]) {
		snprintf(buf, n, "-");
		return;
	}
	cur = currency_find(r->currency);
	if (cur && money_format(r->total, cur, 1, amt, sizeof amt) == 0)
		snprintf(buf, n, "%s %s", amt, r->currency);
	else
		snprintf(buf, n, "%lld %s", (long long)r->total, r->currency);
}

static cJSON *row_json(const struct cal_row *r)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "appointment_id", r->appointment_id);
	cli_json_time(o, "start", r->start_at);
	cli_json_time(o, "end", r->end_at);
	cli_json_str(o, "customers", r->customers);
	cli_json_str(o, "services", r->services);
	if (r->has_total)
		cli_json_int(o, "total_price", r->total);
	else
		cJSON_AddNullToObject(o, "total_price");
	cli_json_str(o, "currency", r->currency[0] ? r->currency : NULL);
	cli_json_int(o, "est_minutes", r->est_minutes);
	cli_json_str(o, "payment_status", r->pay_status);
	cli_json_str(o, "status", r->status);
	if (r->version) { /* projection show; the agenda does not read them */
		cli_json_int(o, "projection_version", r->version);
		cli_json_time(o, "built_at", r->built_at);
	}
	return o;
}

/* ---------------------------------------------------------------- agenda */

struct agenda {
	struct cli *c;
	struct cal_row *rows; /* copies, by start time */
	size_t n, cap;
};

static int agenda_collect(const struct cal_row *r, void *arg)
{
	struct agenda *a = arg;
	struct cal_row *copy;

	if (a->c->json) {
		cJSON_AddItemToArray(cJSON_GetObjectItem(a->c->out, "visits"), row_json(r));
		return 0;
	}
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 64;
		a->rows = xrealloc(a->rows, a->cap * sizeof *a->rows);
	}
	copy = &a->rows[a->n++];
	*copy = *r;
	copy->customers = xstrdup(r->customers);
	copy->services = xstrdup(r->services);
	return 0;
}

/* "09:00" when t falls on the day [day, next), else "12-24 22:00". The
 * times of a week repeat (visits start on the quarter hour), so the last
 * few conversions are remembered: localtime is most of the cost. */
static void agenda_time(int64_t t, int64_t day, int64_t next, int is_end, char *buf, size_t n)
{
	static struct {
		int64_t t;
		int inside;
		char text[16];
	} memo[64];
	int inside = is_end ? (t > day && t <= next) : (t >= day && t < next);
	unsigned k = (unsigned)(((uint64_t)t / 60) % 64);

	if (memo[k].t != t || memo[k].inside != inside || !memo[k].text[0]) {
		clock_format_local(t, inside ? "%H:%M" : "%m-%d %H:%M", memo[k].text,
		                   sizeof memo[k].text);
		memo[k].t = t;
		memo[k].inside = inside;
	}
	snprintf(buf, n, "%s", memo[k].text);
}

static void agenda_print(const struct agenda *a, int64_t from, int days)
{
	static const char *mins;
	const char *no_job = _("(no job)");
	int64_t day = from;
	int d, shown = 0;
	size_t i;

	for (d = 0; d < days; d++) {
		int64_t next = clock_add_days(from, d + 1);
		char head[64];
		int any = 0;

		for (i = 0; i < a->n; i++) {
			const struct cal_row *r = &a->rows[i];
			char t1[32], t2[32], price[MONEY_BUFSZ + 40];

			if (r->start_at >= next || r->end_at <= day)
				continue;
			if (!any) {
				clock_format_local(day, "%a %Y-%m-%d", head, sizeof head);
				printf("%s%s\n", shown ? "\n" : "", head);
				any = shown = 1;
			}
			agenda_time(r->start_at, day, next, 0, t1, sizeof t1);
			agenda_time(r->end_at, day, next, 1, t2, sizeof t2);
			format_price(r, price, sizeof price);
			printf("  %s-%s  #%lld  %s  ", t1, t2, (long long)r->appointment_id, price);
			printf(tr_once(&mins, N_("%lld min")), (long long)r->est_minutes);
			printf("  %s, %s  ", label(r->status), label(r->pay_status));
			if (r->customers[0]) {
				puts_field(r->customers);
				fputs(": ", stdout);
				puts_field(r->services);
			} else {
				fputs(no_job, stdout);
			}
			putchar('\n');
		}
		day = next;
	}
	if (!shown)
		printf("%s\n", _("No visits in this range."));
}

/* How long the agenda waits for a live runner to apply what was just written. */
#define AGENDA_WAIT_MS 2000

/* Bring the calendar up to date before it is read (the core applies the
 * waiting updates itself when no runner is running), then say on stderr
 * (text) or in the document (JSON) what is still behind, if anything. */
static void agenda_catch_up(struct cli *c, struct task_backlog *b)
{
	if (task_catch_up(c->db, PROJECTION_TASK_KIND, AGENDA_WAIT_MS, b)) {
		b->waiting = 0;
		b->runner_alive = 0;
		err_clear();
	}
}

static void agenda_backlog(struct cli *c, const struct task_backlog *b)
{
	if (c->json) {
		cli_json_int(c->out, "updates_waiting", b->waiting);
		cJSON_AddBoolToObject(c->out, "runner_alive", b->runner_alive);
		return;
	}
	if (b->waiting == 0)
		return;
	if (b->runner_alive)
		fprintf(stderr,
		        _("frontdesk: note: %lld calendar update(s) are still being applied\n"),
		        (long long)b->waiting);
	else
		fprintf(stderr,
		        _("frontdesk: note: %lld calendar update(s) could not be applied yet "
		          "(see 'frontdesk tasks list'); the calendar may be behind\n"),
		        (long long)b->waiting);
}

/* The days the agenda shows: from a day's start, how many. */
static int agenda_days(const struct cli_args *args, int64_t *from, int *days)
{
	const char *from_s = cli_arg_get(args, "from"), *days_s = cli_arg_get(args, "days");

	*days = 1;
	if (days_s) {
		char *end;
		long v = strtol(days_s, &end, 10);

		if (*end || end == days_s || v < 1 || v > MAX_AGENDA_DAYS)
			return cli_usage(args->cmd,
			                 _("--days must be a number from 1 to %d, not '%.40s'"),
			                 MAX_AGENDA_DAYS, days_s);
		*days = (int)v;
	}
	if (from_s) {
		if (clock_parse_local(from_s, from))
			return cli_usage(args->cmd, "%s", err_msg());
		*from = clock_day_start(*from);
	} else {
		*from = clock_day_start(clock_now());
	}
	return 0;
}

static int agenda_check(struct cli *c, const struct cli_args *args)
{
	int64_t from;
	int days;

	(void)c;
	return agenda_days(args, &from, &days);
}

static int cmd_agenda(struct cli *c, const struct cli_args *args)
{
	struct agenda a = {c, NULL, 0, 0};
	struct task_backlog backlog;
	int rc, days;
	int64_t from, to;
	size_t i;

	if ((rc = agenda_days(args, &from, &days)) != 0)
		return rc;
	to = clock_add_days(from, days);
	if (c->json) {
		c->out = cJSON_CreateObject();
		cli_json_time(c->out, "from", from);
		cli_json_time(c->out, "to", to);
		cJSON_AddArrayToObject(c->out, "visits");
	}
	agenda_catch_up(c, &backlog);
	rc = projection_range(c->db, from, to, agenda_collect, &a);
	if (!rc) {
		if (!c->json)
			agenda_print(&a, from, days);
		agenda_backlog(c, &backlog);
	}
	for (i = 0; i < a.n; i++)
		cal_row_free(&a.rows[i]);
	free(a.rows);
	return cli_list_end(c, rc);
}

/* ---------------------------------------------------------------- projection */

struct progress {
	int tty;
	int last_tenth;
};

static void rebuild_progress(int64_t done, int64_t total, void *arg)
{
	struct progress *p = arg;
	int pct = total ? (int)(done * 100 / total) : 100;

	if (p->tty) {
		/* the carriage return is not part of the sentence */
		fputc('\r', stderr);
		fprintf(stderr, _("Rebuilt %lld of %lld visits (%d%%)"), (long long)done,
		        (long long)total, pct);
		if (done >= total)
			fputc('\n', stderr);
	} else if (pct / 10 > p->last_tenth || done >= total) {
		p->last_tenth = pct / 10;
		fprintf(stderr, _("Rebuilt %lld of %lld visits (%d%%)\n"), (long long)done,
		        (long long)total, pct);
	}
	fflush(stderr);
}

/* What projection rebuild is asked to rebuild: the visit ids into ids
 * (a->npos of them), the batch size for --all into *batch (0: default). */
static int rebuild_what(const struct cli_args *a, int64_t ids[64], int64_t *batch)
{
	const char *batch_s = cli_arg_get(a, "batch");
	int i, rc;

	*batch = 0;
	if (cli_arg_flag(a, "all") == (a->npos > 0))
		return cli_usage(a->cmd, _("give either --all or visit ids"));
	for (i = 0; i < a->npos; i++)
		if ((rc = cli_arg_pos_id(a, i, _("the visit id"), &ids[i])))
			return rc;
	if (batch_s) {
		char *end;
		long v = strtol(batch_s, &end, 10);

		if (*end || end == batch_s || v < 1 || v > 1000000)
			return cli_usage(a->cmd, _("--batch must be a number from 1 to 1000000"));
		*batch = v;
	}
	return 0;
}

static int rebuild_check(struct cli *c, const struct cli_args *a)
{
	int64_t ids[64], batch;

	(void)c;
	return rebuild_what(a, ids, &batch);
}

static int cmd_rebuild(struct cli *c, const struct cli_args *a)
{
	int all = cli_arg_flag(a, "all"), npos = a->npos, rc, i;
	int64_t ids[64], n = 0;
	cJSON *arr = NULL;

	if ((rc = rebuild_what(a, ids, &n)) != 0)
		return rc;
	if (all) {
		struct progress p = {isatty(STDERR_FILENO), -1};
		int64_t done = 0;

		rc = projection_rebuild_all(c->db, (int)n, rebuild_progress, &p, &done);
		if (rc)
			return cli_refused(rc);
		if (c->json) {
			cJSON *o = cJSON_CreateObject();

			cli_json_int(o, "rebuilt", done);
			cli_print_json(o);
		} else {
			printf(_("Rebuilt the calendar rows of %lld visits.\n"), (long long)done);
		}
		return CLI_OK;
	}
	if (c->json)
		arr = cJSON_CreateArray();
	for (i = 0; i < npos; i++) {
		int changed = 0;

		if ((rc = projection_rebuild(c->db, ids[i], &changed))) {
			cJSON_Delete(arr);
			return cli_refused(rc);
		}
		if (arr) {
			cJSON *o = cJSON_CreateObject();

			cli_json_int(o, "appointment_id", ids[i]);
			cJSON_AddBoolToObject(o, "changed", changed);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf(changed ? _("Visit %lld: calendar row rewritten.\n")
			               : _("Visit %lld: calendar row already up to date.\n"),
			       (long long)ids[i]);
		}
	}
	if (arr) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToObject(o, "rebuilt", arr);
		cli_print_json(o);
	}
	return CLI_OK;
}

static int check_cb(const struct projection_diff *d, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "appointment_id", d->appointment_id);
		cli_json_str(o, "problem", d->problem);
		cli_json_str(o, "fields", d->fields);
		cJSON_AddBoolToObject(o, "update_queued", d->queued);
		cJSON_AddItemToArray(cJSON_GetObjectItem(c->out, "differences"), o);
		return 0;
	}
	if (!strcmp(d->problem, "missing"))
		printf(_("visit %lld: no calendar row"), (long long)d->appointment_id);
	else if (!strcmp(d->problem, "orphan"))
		printf(_("visit %lld: calendar row of a visit that no longer exists"),
		       (long long)d->appointment_id);
	else
		printf(_("visit %lld: calendar row differs in %s"), (long long)d->appointment_id,
		       d->fields);
	if (d->queued)
		printf("%s", _(" (an update is queued)"));
	putchar('\n');
	return 0;
}

static int cmd_check(struct cli *c, const struct cli_args *a)
{
	int rc;
	int64_t n = 0;

	(void)a;
	cli_list_begin(c, "differences");
	rc = projection_check(c->db, check_cb, c, &n);
	if (c->json) {
		if (rc) {
			cJSON_Delete(c->out);
		} else {
			cli_json_int(c->out, "count", n);
			cli_print_json(c->out);
		}
		c->out = NULL;
	}
	if (rc)
		return cli_refused(rc);
	if (n) {
		fprintf(stderr,
		        _("frontdesk: %lld calendar row(s) differ from the records; run 'frontdesk "
		          "tasks run --once' or 'frontdesk projection rebuild --all'\n"),
		        (long long)n);
		return CLI_REFUSED;
	}
	if (!c->json)
		printf("%s\n", _("Every calendar row matches the records."));
	return CLI_OK;
}

static void show_row(const char *title, const struct cal_row *r)
{
	char t1[32], t2[32], price[MONEY_BUFSZ + 40], mins[32];

	format_local(r->start_at, t1, sizeof t1);
	format_local(r->end_at, t2, sizeof t2);
	format_price(r, price, sizeof price);
	snprintf(mins, sizeof mins, "%lld", (long long)r->est_minutes);
	printf("%s\n", title);
	cli_field(_("  Start"), t1);
	cli_field(_("  End"), t2);
	cli_field(_("  Customers"), r->customers);
	cli_field(_("  Services"), r->services);
	cli_field(_("  Price"), price);
	cli_field(_("  Estimated minutes"), mins);
	cli_field(_("  Payment"), label(r->pay_status));
	cli_field(_("  Status"), label(r->status));
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	struct cal_row stored, fresh;
	int rc, have_stored, have_fresh;
	int64_t id = a->id;

	rc = projection_get(c->db, id, &stored);
	if (rc && rc != FD_ENOTFOUND)
		return cli_refused(rc);
	have_stored = rc == 0;
	rc = projection_compute(c->db, id, &fresh);
	if (rc && rc != FD_ENOTFOUND) {
		if (have_stored)
			cal_row_free(&stored);
		return cli_refused(rc);
	}
	have_fresh = rc == 0;
	if (!have_stored && !have_fresh) {
		err_set(FD_ENOTFOUND, _("there is no visit %lld and no calendar row for it"),
		        (long long)id);
		return cli_refused(FD_ENOTFOUND);
	}
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_int(o, "appointment_id", id);
		if (have_stored)
			cJSON_AddItemToObject(o, "stored", row_json(&stored));
		else
			cJSON_AddNullToObject(o, "stored");
		if (have_fresh) {
			fresh.built_at = have_stored ? stored.built_at : 0;
			cJSON_AddItemToObject(o, "recomputed", row_json(&fresh));
		} else {
			cJSON_AddNullToObject(o, "recomputed");
		}
		cli_print_json(o);
	} else {
		if (have_stored) {
			char built[32], title[96];

			format_local(stored.built_at, built, sizeof built);
			snprintf(title, sizeof title, _("Calendar row (built %s, version %d):"),
			         built, stored.version);
			show_row(title, &stored);
		} else {
			printf("%s\n", _("No calendar row yet."));
		}
		if (have_fresh)
			show_row(_("Recomputed from the records now:"), &fresh);
		else
			printf("%s\n", _("The visit no longer exists."));
	}
	if (have_stored)
		cal_row_free(&stored);
	if (have_fresh)
		cal_row_free(&fresh);
	return CLI_OK;
}

const struct cli_entry cli_projection_cmds[] = {
    {"rebuild", NULL, "--all | ID...", NULL, N_("recompute calendar rows from the records"),
     .opts = {{"all", CLI_FLAG, N_("rebuild every row (in batches, with a lock)"), NULL, NULL},
              {"batch", CLI_VALUE, N_("visits per transaction for --all (default 2000)"), NULL,
               NULL}},
     .max_pos = 64, .db = CLI_DB_OPEN, .check = rebuild_check, .run = cmd_rebuild},
    {"check", NULL, "", NULL, N_("list rows that differ from a fresh recomputation"),
     .db = CLI_DB_OPEN, .run = cmd_check},
    {"show", NULL, "ID", NULL, N_("show a visit's stored row beside a fresh recomputation"),
     .max_pos = 1, .id = N_("the visit id"), .db = CLI_DB_OPEN, .run = cmd_show},
    {NULL},
};

/* ---------------------------------------------------------------- tasks */

static cJSON *task_json(const struct task *j)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", j->id);
	cli_json_str(o, "kind", j->kind);
	cli_json_str(o, "key", j->key);
	cli_json_str(o, "status", j->status);
	cli_json_int(o, "attempts", j->attempts);
	cli_json_time(o, "next_run_at", j->next_run_at);
	cli_json_str(o, "last_error", j->last_error);
	cli_json_str(o, "claimed_by", j->claimed_by);
	if (j->claim_expires_at)
		cli_json_time(o, "claim_expires_at", j->claim_expires_at);
	else
		cJSON_AddNullToObject(o, "claim_expires_at");
	cli_json_time(o, "created_at", j->created_at);
	cli_json_time(o, "updated_at", j->updated_at);
	if (j->started_at)
		cli_json_time(o, "started_at", j->started_at);
	else
		cJSON_AddNullToObject(o, "started_at");
	if (j->finished_at)
		cli_json_time(o, "finished_at", j->finished_at);
	else
		cJSON_AddNullToObject(o, "finished_at");
	return o;
}

static int tasks_list_cb(const struct task *j, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cJSON_AddItemToArray(cJSON_GetObjectItem(c->out, "tasks"), task_json(j));
		return 0;
	}
	printf("%6lld  %-9s  ", (long long)j->id, j->status);
	cli_puts_safe(j->kind);
	putchar(' ');
	cli_puts_safe(j->key);
	printf("  ");
	printf(_("attempts %lld"), (long long)j->attempts);
	if (j->last_error) {
		fputs("  ", stdout);
		cli_puts_safe(j->last_error);
	}
	putchar('\n');
	return 0;
}

static int cmd_tasks_list(struct cli *c, const struct cli_args *a)
{
	int64_t limit = cli_arg_flag(a, "limit") ? cli_arg_id(a, "limit") : 100;

	if (limit > 100000)
		limit = 100000;
	cli_list_begin(c, "tasks");
	return cli_list_end(c, task_list(c->db, cli_arg_get(a, "status"), cli_arg_get(a, "kind"),
	                                 (int)limit, tasks_list_cb, c));
}

static void time_field(const char *name, int64_t t)
{
	char buf[32];

	if (!t) {
		cli_field(name, NULL);
		return;
	}
	format_local(t, buf, sizeof buf);
	cli_field(name, buf);
}

static int cmd_tasks_show(struct cli *c, const struct cli_args *a)
{
	struct task j;
	char num[32];
	int rc;

	if ((rc = task_get(c->db, a->id, &j)))
		return cli_refused(rc);
	if (c->json) {
		cli_print_json(task_json(&j));
	} else {
		printf("%s: %lld\n", _("Task"), (long long)j.id);
		cli_field(_("Kind"), j.kind);
		cli_field(_("Key"), j.key);
		cli_field(_("Status"), j.status);
		snprintf(num, sizeof num, "%lld", (long long)j.attempts);
		cli_field(_("Attempts"), num);
		time_field(_("Next run"), j.next_run_at);
		cli_field(_("Last error"), j.last_error);
		cli_field(_("Claimed by"), j.claimed_by);
		time_field(_("Claim expires"), j.claim_expires_at);
		time_field(_("Created"), j.created_at);
		time_field(_("Started"), j.started_at);
		time_field(_("Finished"), j.finished_at);
	}
	task_free(&j);
	return CLI_OK;
}

static int cmd_tasks_retry(struct cli *c, const struct cli_args *a)
{
	int64_t id = a->id;
	int rc;

	if ((rc = task_retry(c->db, id)))
		return cli_refused(rc);
	if (c->json) {
		struct task j;

		if ((rc = task_get(c->db, id, &j)))
			return cli_refused(rc);
		cli_print_json(task_json(&j));
		task_free(&j);
	} else {
		printf(_("Task %lld is pending again; the task runner will run it.\n"),
		       (long long)id);
	}
	return CLI_OK;
}

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_set(&stop_flag, 1);
}

static void say_stderr(const char *msg, void *arg)
{
	(void)arg;
	fputs("frontdesk: tasks: ", stderr);
	fputs(msg, stderr);
	fputc('\n', stderr);
	fflush(stderr);
}

static int cmd_tasks_run(struct cli *c, const struct cli_args *a)
{
	struct task_opts o;
	struct sigaction sa, old_int, old_term;
	int64_t for_seconds = cli_arg_id(a, "for"), n;
	int rc;

	task_opts_default(&o);
	if (!cli_arg_flag(a, "quiet"))
		o.say = say_stderr;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop; /* no SA_RESTART: a sleep ends at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	stop_set(&stop_flag, 0);
	rc = task_run_loop(c->db, &stop_flag, &o, (double)for_seconds, cli_arg_flag(a, "once"));
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o2 = cJSON_CreateObject();
		static const char *const st[] = {"pending", "running", "failed", "dead"};
		size_t i;

		for (i = 0; i < sizeof st / sizeof st[0]; i++) {
			if (task_count(c->db, NULL, st[i], &n) == 0)
				cli_json_int(o2, st[i], n);
		}
		cli_print_json(o2);
	}
	return CLI_OK;
}

const struct cli_entry cli_tasks_cmds[] = {
    {"list", NULL, "[--status S] [--kind K]", "[--status S] [--kind K] [--limit N]",
     N_("list background tasks, newest first"),
     .opts = {{"status", CLI_VALUE,
               N_("only tasks in this state: pending, running, succeeded, failed, dead"), NULL,
               NULL},
              {"kind", CLI_VALUE, N_("only tasks of this kind (e.g. calendar)"), NULL, NULL},
              {"limit", CLI_ID, N_("at most this many, newest first (default 100)"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_tasks_list},
    {"show", NULL, "ID", NULL, N_("show one task and its last error"), .max_pos = 1,
     .id = N_("the task id"), .db = CLI_DB_OPEN, .run = cmd_tasks_show},
    {"retry", NULL, "ID", NULL, N_("run a dead or failed task again"), .max_pos = 1,
     .id = N_("the task id"), .db = CLI_DB_OPEN, .run = cmd_tasks_retry},
    {"run", NULL, "[--once] [--for S]", "[--once] [--for SECONDS] [--quiet]",
     N_("be the task runner (holds the runner lease)"),
     .opts = {{"once", CLI_FLAG, N_("run what is due now, then stop"), NULL, NULL},
              {"for", CLI_ID, N_("stop after this many seconds (default: until stopped)"), NULL,
               NULL},
              {"quiet", CLI_FLAG, N_("say nothing on stderr but errors"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_tasks_run},
    {NULL},
};

/* ---------------------------------------------------------------- leases */

static const char *state_name(int state)
{
	switch (state) {
	case CONTROL_HELD:
		return _("held");
	case CONTROL_EXPIRED:
		return _("expired");
	case CONTROL_ORPHANED:
		return _("holder gone");
	default:
		return _("free");
	}
}

static int lease_list_cb(const struct control_info *ci, void *arg)
{
	struct cli *c = arg;
	static const char *const states[] = {"free", "held", "expired", "holder_gone"};

	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "name", ci->name);
		cli_json_str(o, "kind", ci->kind);
		cli_json_str(o, "state", states[ci->state]);
		cli_json_str(o, "owner_host", ci->owner_host);
		if (ci->owner_host)
			cli_json_int(o, "owner_pid", ci->owner_pid);
		else
			cJSON_AddNullToObject(o, "owner_pid");
		cli_json_str(o, "operator", ci->operator_id);
		cli_json_int(o, "epoch", ci->epoch);
		if (ci->owner_host) {
			cli_json_time(o, "acquired_at", ci->acquired_at);
			cli_json_time(o, "heartbeat_at", ci->heartbeat_at);
			cli_json_time(o, "expires_at", ci->expires_at);
		}
		cJSON_AddItemToArray(cJSON_GetObjectItem(c->out, "leases"), o);
		return 0;
	}
	printf("%-20s %-5s %-11s ", ci->name, ci->kind, state_name(ci->state));
	printf(_("epoch %lld"), (long long)ci->epoch);
	if (ci->owner_host) {
		char since[32], until[32];

		format_local(ci->acquired_at, since, sizeof since);
		format_local(ci->expires_at, until, sizeof until);
		fputs("  ", stdout);
		cli_puts_safe(ci->owner_host);
		printf(":%lld (", (long long)ci->owner_pid);
		cli_puts_safe(ci->operator_id ? ci->operator_id : "?");
		printf(_(") since %s until %s"), since, until);
	}
	putchar('\n');
	return 0;
}

static int cmd_lease_list(struct cli *c, const struct cli_args *a)
{
	int rc;

	(void)a;
	cli_list_begin(c, "leases");
	rc = control_list(c->db, lease_list_cb, c);
	return cli_list_end(c, rc);
}

static int cmd_lease_break(struct cli *c, const struct cli_args *a)
{
	char *const *pos = a->pos;
	int rc;

	if ((rc = control_break(c->db, pos[0])))
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "broken", pos[0]);
		cli_print_json(o);
	} else {
		printf(_("%s is free; its last holder can no longer write.\n"), pos[0]);
	}
	return CLI_OK;
}

const struct cli_entry cli_lease_cmds[] = {
    {"list", NULL, "", NULL, N_("show every lease and lock, who holds it, until when"),
     .db = CLI_DB_OPEN, .run = cmd_lease_list},
    {"break", NULL, "NAME", NULL, N_("free a lease or lock whose holder is stuck"), .min_pos = 1,
     .max_pos = 1, .missing = N_("name the lease or lock to break"), .db = CLI_DB_OPEN,
     .run = cmd_lease_break},
    {NULL},
};

const struct cli_entry cli_agenda_entry = {
    "agenda",
    NULL,
    "[--from DATE] [--days N]",
    NULL,
    N_("list the visits of a date range (from the calendar projection)"),
    .opts = {{"from", CLI_VALUE, N_("the first day (YYYY-MM-DD; default today)"), NULL, NULL},
             {"days", CLI_VALUE, N_("how many days (1-366; default 1)"), NULL, NULL}},
    .db = CLI_DB_OPEN,
    .check = agenda_check,
    .run = cmd_agenda};
