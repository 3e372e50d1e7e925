/*
 * message.c - messages to customers: consent and language, making a
 * message whole, the scheduler (reminders, release to the outbox), the
 * delivery of the e-mail and text message types, and their trace in the
 * contact log (see message.h; the tables: 0029-messages.sql).
 *
 * Invariants:
 *  - a message is made with its final words and recipient, and only its
 *    status, provider reference and error change afterwards (the schema's
 *    triggers refuse the rest but for a retention purge);
 *  - consent is read in the same transaction as every write that would
 *    send: a message is never handed to the outbox, nor sent, for a
 *    customer who withdrew consent before it left;
 *  - the outbox command (business key MSG-<id>) carries the message's
 *    idempotency key; its status and the message's move together, in one
 *    transaction with the contact log row that says what happened;
 *  - a text message is not sent in the quiet hours (message_quiet_start,
 *    message_quiet_end, shop time): its command waits, due, for the morning.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "announce.h"
#include "chan-order.h"
#include "clock.h"
#include "contact.h"
#include "control.h"
#include "customer.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "i18n.h"
#include "inbox.h"
#include "invoice.h"
#include "message-text.h"
#include "message.h"
#include "migrate.h"
#include "outbox.h"
#include "pipe-http.h"
#include "pipe-log.h"
#include "pipe-provider.h"
#include "pipe-rule.h"
#include "pipe-secret.h"
#include "pipe-sig.h"
#include "print.h"
#include "retention-mod.h"
#include "settings.h"
#include "stopflag.h"
#include "strbuf.h"
#include "text.h"
#include "visit.h"
#include "xalloc.h"

/* ------------------------------------------------------------ settings */

static const char *shop_language(void)
{
	const char *l = config_get("message_language", "en");

	return message_text_language(l) ? l : "en";
}

int message_language_known(const char *language)
{
	return message_text_language(language);
}

/* -------------------------------------------------------- preferences */

int message_pref_get(struct db *db, int64_t customer_id, struct message_pref *out)
{
	struct customer c;
	sqlite3_stmt *st;
	int rc, step;

	memset(out, 0, sizeof *out);
	out->customer_id = customer_id;
	out->email_ok = out->sms_ok = 1;
	if ((rc = customer_get(db, customer_id, &c)))
		return rc;
	customer_free(&c);
	if ((rc = db_prepare(db,
	                     "SELECT coalesce(language, ''), email_ok, sms_ok, reason, changed_by,"
	                     " changed_at FROM customer_contact_pref WHERE customer_id = ?",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		dbrow_copy(st, 0, out->language, sizeof out->language);
		out->email_ok = sqlite3_column_int(st, 1);
		out->sms_ok = sqlite3_column_int(st, 2);
		out->reason = dbrow_dup(st, 3);
		out->changed_by = dbrow_dup(st, 4);
		out->changed_at = sqlite3_column_int64(st, 5);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read a customer's consent"));
	}
	sqlite3_finalize(st);
	return rc;
}

void message_pref_free(struct message_pref *p)
{
	free(p->reason);
	free(p->changed_by);
	memset(p, 0, sizeof *p);
}

struct pref_ctx {
	int64_t customer_id;
	const char *channel; /* NULL: the language */
	int allowed;
	const char *reason;
	const char *language;
};

static int set_status(struct db *db, int64_t id, const char *from, const char *to,
                      const char *error);

static int pref_tx(struct db *db, void *arg)
{
	struct pref_ctx *p = arg;
	struct message_pref old;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "change the consent of customer %lld",
	         (long long)p->customer_id);
	if ((rc = control_require(db, PERM_CUSTOMER_EDIT, 0, subject)) ||
	    (rc = message_pref_get(db, p->customer_id, &old)))
		return rc;
	if ((rc = db_prepare(db,
	                     "INSERT INTO customer_contact_pref (customer_id, language, email_ok,"
	                     " sms_ok, reason, changed_by, changed_at) VALUES (?1, nullif(?2, ''),"
	                     " ?3, ?4, nullif(?5, ''), ?6, ?7) ON CONFLICT (customer_id) DO UPDATE"
	                     " SET language = excluded.language, email_ok = excluded.email_ok,"
	                     " sms_ok = excluded.sms_ok, reason = excluded.reason,"
	                     " changed_by = excluded.changed_by, changed_at = excluded.changed_at",
	                     &st))) {
		message_pref_free(&old);
		return rc;
	}
	sqlite3_bind_int64(st, 1, p->customer_id);
	sqlite3_bind_text(st, 2, p->channel ? old.language : (p->language ? p->language : ""), -1,
	                  SQLITE_TRANSIENT);
	sqlite3_bind_int(
	    st, 3, p->channel && !strcmp(p->channel, MESSAGE_EMAIL) ? p->allowed : old.email_ok);
	sqlite3_bind_int(st, 4,
	                 p->channel && !strcmp(p->channel, MESSAGE_SMS) ? p->allowed : old.sms_ok);
	sqlite3_bind_text(
	    st, 5, p->channel ? (p->reason ? p->reason : "") : (old.reason ? old.reason : ""), -1,
	    SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, db_operator(), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, clock_now());
	message_pref_free(&old);
	if ((rc = db_run(db, st, _("cannot store a customer's consent"))))
		return rc;
	if (!p->channel || p->allowed)
		return 0;
	/* withdrawn: what waits to leave does not */
	if ((rc = db_prepare(db,
	                     "UPDATE message SET status = 'cancelled', error = ?3, updated_at = ?4"
	                     " WHERE customer_id = ?1 AND channel = ?2 AND status = 'waiting'",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, p->customer_id);
	sqlite3_bind_text(st, 2, p->channel, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, _("the customer withdrew consent"), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, clock_now());
	return db_run(db, st, _("cannot cancel a message"));
}

static int channel_check(const char *channel)
{
	if (!channel || (strcmp(channel, MESSAGE_EMAIL) && strcmp(channel, MESSAGE_SMS)))
		return err_set(FD_EINVAL, _("the channel is email or sms, not '%.20s'"),
		               channel ? channel : "");
	return 0;
}

int message_consent_set(struct db *db, int64_t customer_id, const char *channel, int allowed,
                        const char *reason)
{
	struct pref_ctx p = {customer_id, channel, allowed != 0, reason, NULL};
	int rc;

	if ((rc = channel_check(channel)) ||
	    (reason && (rc = text_check(reason, _("the reason"), 400, 1))))
		return rc;
	return db_write(db, pref_tx, &p);
}

int message_language_set(struct db *db, int64_t customer_id, const char *language)
{
	struct pref_ctx p = {customer_id, NULL, 0, NULL, language};

	if (language && *language && !message_text_language(language))
		return err_set(FD_EINVAL,
		               _("frontdesk writes messages in en, zh_CN and zh_TW, not '%.20s'"),
		               language);
	return db_write(db, pref_tx, &p);
}

/* ------------------------------------------------------------- making */

static const char *const kinds[] = {"reminder", "on_the_way", "confirmation", "invoice"};

static int kind_check(const char *kind)
{
	size_t i;

	for (i = 0; kind && i < sizeof kinds / sizeof *kinds; i++)
		if (!strcmp(kind, kinds[i]))
			return 0;
	return err_set(FD_EINVAL,
	               _("a message is a reminder, on_the_way, confirmation or invoice, not "
	                 "'%.20s'"),
	               kind ? kind : "");
}

/* The address of channel for customer c in out ("" when none usable). */
static void address_of(const struct customer *c, const char *channel, char *out, size_t n)
{
	const char *a = !strcmp(channel, MESSAGE_EMAIL) ? c->email : c->phone;
	size_t k = 0;

	*out = '\0';
	if (!a)
		return;
	if (!strcmp(channel, MESSAGE_EMAIL)) {
		if (strchr(a, '@') && !strpbrk(a, " <>\r\n\t,;") && strlen(a) < n)
			snprintf(out, n, "%s", a);
		return;
	}
	/* a number as the provider wants it: its digits, and a leading + */
	for (; *a && k + 1 < n; a++)
		if ((*a >= '0' && *a <= '9') || (*a == '+' && k == 0))
			out[k++] = *a;
	out[k] = '\0';
	if (k < 6)
		*out = '\0';
}

struct make_ctx {
	const struct message_input *in;
	int64_t n, first;
	/* per customer */
	struct visit v;
	int have_visit;
	struct invoice inv;
	int have_invoice;
	char paylink[CHAN_ORDER_PAGE_MAX + 64];
};

struct page_find {
	struct db *db;
	char url[CHAN_ORDER_PAGE_MAX + 1];
};

/* The payment page of the invoice's newest card order still open. */
static int page_cb(const struct pay_order *o, void *arg)
{
	struct page_find *p = arg;
	char u[CHAN_ORDER_PAGE_MAX + 1];

	if ((pay_order_state_of(o->status) == PAY_ORDER_CREATED ||
	     pay_order_state_of(o->status) == PAY_ORDER_PAYING) &&
	    chan_order_page(p->db, o->id, u, sizeof u) == 0 && *u)
		snprintf(p->url, sizeof p->url, "%s", u);
	return 0;
}

/* The values the templates name, for customer c. */
static void vars_of(struct make_ctx *m, const struct customer *c, const char *lang,
                    struct message_var vars[9], char when[96], char amount[64], char due[64])
{
	const char *shop = config_get("shop_name", "");

	*when = *amount = *due = '\0';
	if (m->have_visit)
		message_text_when(lang, m->v.start_at, when, 96);
	if (m->have_invoice) {
		message_text_amount(lang, m->inv.balance, m->inv.currency, amount, 64);
		clock_format_local(m->inv.due_at, "%Y-%m-%d", due, 64);
	}
	vars[0] = (struct message_var){"shop", *shop ? shop : "frontdesk"};
	vars[1] = (struct message_var){"customer", c->name};
	vars[2] = (struct message_var){"when", when};
	vars[3] = (struct message_var){
	    "services", m->have_visit && m->v.services && *m->v.services ? m->v.services : "-"};
	vars[4] =
	    (struct message_var){"place", m->have_visit && m->v.location ? m->v.location : "-"};
	vars[5] = (struct message_var){"invoice", m->have_invoice ? m->inv.number : ""};
	vars[6] = (struct message_var){"amount", amount};
	vars[7] = (struct message_var){"due", due};
	vars[8] = (struct message_var){"paylink", m->paylink};
}

/* The message of m->in for customer cid: the channel, consent and address
 * checked, the words made, the row inserted (waiting). */
static int make_one(struct db *db, struct make_ctx *m, int64_t cid)
{
	const struct message_input *in = m->in;
	struct message_pref p;
	struct customer c;
	struct message_var vars[9];
	struct strbuf subject = {0}, body = {0};
	char addr[330], when[96], amount[64], due[64];
	const char *channel = in->channel, *lang;
	sqlite3_stmt *st;
	int rc, allowed;

	if ((rc = customer_get(db, cid, &c)))
		return rc;
	if ((rc = message_pref_get(db, cid, &p))) {
		customer_free(&c);
		return rc;
	}
	if (!channel) {
		/* on our way: a text first; everything else: an e-mail first */
		const char *first = !strcmp(in->kind, "on_the_way") ? MESSAGE_SMS : MESSAGE_EMAIL;
		const char *other = !strcmp(first, MESSAGE_SMS) ? MESSAGE_EMAIL : MESSAGE_SMS;

		address_of(&c, first, addr, sizeof addr);
		allowed = !strcmp(first, MESSAGE_EMAIL) ? p.email_ok : p.sms_ok;
		channel = *addr && allowed ? first : other;
	}
	address_of(&c, channel, addr, sizeof addr);
	allowed = !strcmp(channel, MESSAGE_EMAIL) ? p.email_ok : p.sms_ok;
	if (!allowed)
		rc = err_set(FD_ECONFLICT,
		             !strcmp(channel, MESSAGE_EMAIL)
		                 ? _("%1$s does not want e-mails (since %2$s%3$s%4$s)")
		                 : _("%1$s does not want text messages (since %2$s%3$s%4$s)"),
		             c.name, p.changed_by ? p.changed_by : "-", p.reason ? ": " : "",
		             p.reason ? p.reason : "");
	else if (!*addr)
		rc = err_set(FD_EINVAL,
		             !strcmp(channel, MESSAGE_EMAIL)
		                 ? _("%s has no e-mail address: add one (frontdesk customer edit)")
		                 : _("%s has no mobile number: add one (frontdesk customer edit)"),
		             c.name);
	if (rc)
		goto out;
	lang = *p.language ? p.language : shop_language();
	m->paylink[0] = '\0';
	if (m->have_invoice) {
		struct page_find pf;

		pf.db = db;
		pf.url[0] = '\0';
		if (chan_order_list(db, m->inv.id, page_cb, &pf) >= 0)
			message_text_paylink(lang, channel, pf.url, m->paylink, sizeof m->paylink);
		err_clear();
	}
	vars_of(m, &c, lang, vars, when, amount, due);
	if (message_text(config_get("message_template_dir", NULL), lang, in->kind, channel, vars, 9,
	                 &subject, &body) ||
	    (rc = db_prepare(
	         db,
	         "INSERT INTO message (customer_id, channel, kind, appointment_id,"
	         " invoice_id, language, recipient, subject, body, attach_invoice, status,"
	         " send_after, created_at, updated_at) VALUES (?1, ?2, ?3, nullif(?4, 0),"
	         " nullif(?5, 0), ?6, ?7, ?8, ?9, ?10, 'waiting', ?11, ?12, ?12)"
	         " ON CONFLICT DO NOTHING RETURNING id",
	         &st))) {
		if (!rc)
			rc = err_set(FD_EINVAL, "%s", _("there is no template for that message"));
		goto out;
	}
	sqlite3_bind_int64(st, 1, cid);
	sqlite3_bind_text(st, 2, channel, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, in->kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, in->appt_id);
	sqlite3_bind_int64(st, 5, in->invoice_id);
	sqlite3_bind_text(st, 6, lang, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, addr, -1, SQLITE_TRANSIENT);
	if (subject.len)
		sqlite3_bind_text(st, 8, sb_cstr(&subject), -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, sb_cstr(&body), -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 10, !strcmp(in->kind, "invoice") && !strcmp(channel, MESSAGE_EMAIL));
	sqlite3_bind_int64(st, 11, in->send_after ? in->send_after : clock_now());
	sqlite3_bind_int64(st, 12, clock_now());
	switch (sqlite3_step(st)) {
	case SQLITE_ROW:
		if (!m->first)
			m->first = sqlite3_column_int64(st, 0);
		m->n++;
		break;
	case SQLITE_DONE:
		rc = err_set(FD_ECONFLICT, _("the %1$s of visit %2$lld to %3$s was made already"),
		             in->kind, (long long)in->appt_id, c.name);
		break;
	default:
		rc = db_fail(db, _("cannot store the message"));
	}
	sqlite3_finalize(st);
out:
	sb_free(&subject);
	sb_free(&body);
	message_pref_free(&p);
	customer_free(&c);
	return rc;
}

struct who {
	int64_t ids[32];
	size_t n;
};

static int who_cb(const struct link *l, void *arg)
{
	struct who *w = arg;
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->ids[i] == l->customer_id)
			return 0;
	if (w->n < sizeof w->ids / sizeof *w->ids)
		w->ids[w->n++] = l->customer_id;
	return 0;
}

static int make_tx(struct db *db, void *arg)
{
	struct make_ctx *m = arg;
	const struct message_input *in = m->in;
	struct who w = {{0}, 0};
	size_t i;
	int rc;

	if ((rc = control_require(db, PERM_VISIT_WORK, 0, "send a message to a customer")))
		return rc;
	if (in->appt_id) {
		if ((rc = visit_get(db, in->appt_id, &m->v)))
			return rc;
		m->have_visit = 1;
		if (visit_is_over(visit_state_of(m->v.status)) && strcmp(in->kind, "invoice"))
			return err_set(FD_ECONFLICT,
			               _("visit %1$lld is %2$s: nothing to tell about it"),
			               (long long)in->appt_id, m->v.status);
		if ((rc = link_list(db, in->appt_id, 0, who_cb, &w)) < 0)
			return rc;
		if (!w.n)
			return err_set(FD_ECONFLICT, _("visit %lld works on no customer's job"),
			               (long long)in->appt_id);
	}
	if (in->invoice_id) {
		if ((rc = invoice_get(db, in->invoice_id, &m->inv)))
			return rc;
		m->have_invoice = 1;
		if (!*m->inv.number)
			return err_set(FD_ECONFLICT, "%s", _("a draft invoice is not sent"));
		w.ids[0] = m->inv.customer_id;
		w.n = 1;
	}
	for (i = 0; i < w.n; i++)
		if ((!in->customer_id || in->customer_id == w.ids[i]) &&
		    (rc = make_one(db, m, w.ids[i])))
			return rc;
	if (!m->n)
		return err_set(FD_ENOTFOUND, _("customer %lld is not one of the visit's"),
		               (long long)in->customer_id);
	return 0;
}

int message_make(struct db *db, const struct message_input *in, int64_t *n, int64_t *first)
{
	struct make_ctx m;
	int rc;

	memset(&m, 0, sizeof m);
	m.in = in;
	if ((rc = kind_check(in->kind)) || (in->channel && (rc = channel_check(in->channel))))
		return rc;
	if (!strcmp(in->kind, "invoice") ? !in->invoice_id : !in->appt_id)
		return err_set(FD_EINVAL, "%s",
		               _("an invoice message names an invoice; the others name a visit"));
	rc = db_write(db, make_tx, &m);
	if (m.have_visit)
		visit_free(&m.v);
	if (m.have_invoice)
		invoice_free(&m.inv);
	if (n)
		*n = rc ? 0 : m.n;
	if (first)
		*first = rc ? 0 : m.first;
	return rc;
}

/* ------------------------------------------------------------ reading */

#define MSG_COLS                                                                                   \
	"m.id, m.customer_id, m.channel, m.kind, coalesce(m.appointment_id, 0),"                   \
	" coalesce(m.invoice_id, 0), m.language, m.recipient, m.subject, m.body,"                  \
	" m.attach_invoice, m.status, m.send_after, m.provider_code, m.provider_ref, m.error,"     \
	" coalesce(m.sent_at, 0), coalesce(m.delivered_at, 0), m.created_at, m.updated_at"

static void msg_fill(sqlite3_stmt *st, struct message *m)
{
	memset(m, 0, sizeof *m);
	m->id = sqlite3_column_int64(st, 0);
	m->customer_id = sqlite3_column_int64(st, 1);
	dbrow_copy(st, 2, m->channel, sizeof m->channel);
	dbrow_copy(st, 3, m->kind, sizeof m->kind);
	m->appt_id = sqlite3_column_int64(st, 4);
	m->invoice_id = sqlite3_column_int64(st, 5);
	dbrow_copy(st, 6, m->language, sizeof m->language);
	m->recipient = dbrow_dup(st, 7);
	m->subject = dbrow_dup(st, 8);
	m->body = dbrow_dup(st, 9);
	m->attach_invoice = sqlite3_column_int(st, 10);
	dbrow_copy(st, 11, m->status, sizeof m->status);
	m->send_after = sqlite3_column_int64(st, 12);
	m->provider_code = dbrow_dup(st, 13);
	m->provider_ref = dbrow_dup(st, 14);
	m->error = dbrow_dup(st, 15);
	m->sent_at = sqlite3_column_int64(st, 16);
	m->delivered_at = sqlite3_column_int64(st, 17);
	m->created_at = sqlite3_column_int64(st, 18);
	m->updated_at = sqlite3_column_int64(st, 19);
}

static void msg_name(struct db *db, struct message *m)
{
	struct customer c;

	if (customer_get(db, m->customer_id, &c) == 0) {
		m->customer_name = xstrdup(c.name);
		customer_free(&c);
	} else {
		m->customer_name = xstrdup("");
		err_clear();
	}
}

static void msg_fill_row(sqlite3_stmt *st, void *out)
{
	msg_fill(st, out);
}

int message_get(struct db *db, int64_t id, struct message *out)
{
	int rc, found = 0;

	memset(out, 0, sizeof *out);
	if ((rc = dbrow_get(db, "SELECT " MSG_COLS " FROM message m WHERE m.id = ?1", id,
	                    msg_fill_row, out, _("cannot read a message"), &found)))
		return rc;
	if (!found)
		return err_set(FD_ENOTFOUND, _("there is no message %lld"), (long long)id);
	msg_name(db, out);
	return 0;
}

int message_list(struct db *db, int64_t customer_id, int64_t appt_id, const char *status, int limit,
                 int (*cb)(const struct message *m, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(
	         db,
	         "SELECT " MSG_COLS " FROM message m WHERE (?1 = 0 OR m.customer_id = ?1)"
	         " AND (?2 = 0 OR m.appointment_id = ?2) AND (?3 IS NULL OR m.status = ?3)"
	         " ORDER BY m.id DESC LIMIT ?4",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	sqlite3_bind_int64(st, 2, appt_id);
	if (status)
		sqlite3_bind_text(st, 3, status, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, limit > 0 ? limit : 100);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct message m;

		msg_fill(st, &m);
		msg_name(db, &m);
		rc = cb(&m, arg);
		message_free(&m);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = db_fail(db, _("cannot read the messages"));
	sqlite3_finalize(st);
	return rc;
}

void message_free(struct message *m)
{
	free(m->recipient);
	free(m->subject);
	free(m->body);
	free(m->provider_code);
	free(m->provider_ref);
	free(m->error);
	free(m->customer_name);
	memset(m, 0, sizeof *m);
}

int message_failed_address(struct db *db, int64_t customer_id, const char *channel, char *out,
                           size_t n, char *why, size_t whyn)
{
	sqlite3_stmt *st;
	int rc, step;

	*out = '\0';
	if (why && whyn)
		*why = '\0';
	if ((rc = db_prepare(
	         db,
	         "SELECT recipient, coalesce(error, '') FROM message WHERE customer_id = ?1"
	         " AND channel = ?2 AND status = 'failed' AND NOT EXISTS (SELECT 1 FROM"
	         " message d WHERE d.customer_id = ?1 AND d.channel = ?2"
	         " AND d.recipient = message.recipient AND d.id > message.id"
	         " AND d.status IN ('sent', 'delivered'))"
	         " ORDER BY id DESC LIMIT 1",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	sqlite3_bind_text(st, 2, channel, -1, SQLITE_TRANSIENT);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		dbrow_copy(st, 0, out, n);
		if (why && whyn)
			dbrow_copy(st, 1, why, whyn);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the messages"));
	}
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------- status and trace */

/* INSIDE a transaction: message id from `from` to `to` (the schema's
 * moves), with error (NULL: cleared). */
static int set_status(struct db *db, int64_t id, const char *from, const char *to,
                      const char *error)
{
	sqlite3_stmt *st;
	int rc, moved = 0;

	if ((rc = db_prepare_cached(db,
	                            "UPDATE message SET status = ?3, error = ?4, updated_at = ?5,"
	                            " sent_at = CASE WHEN ?3 = 'sent' THEN ?5 ELSE sent_at END,"
	                            " delivered_at = CASE WHEN ?3 = 'delivered' THEN ?5"
	                            " ELSE delivered_at END WHERE id = ?1 AND status = ?2",
	                            &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, from, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, to, -1, SQLITE_STATIC);
	if (error)
		sqlite3_bind_text(st, 4, error, error && strlen(error) > 400 ? 400 : -1,
		                  SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, clock_now());
	if ((rc = db_run_moved(db, st, _("cannot store a message"), &moved)))
		return rc;
	return moved ? 0
	             : err_set(FD_ECONFLICT, _("message %1$lld is no longer %2$s"), (long long)id,
	                       from);
}

/* The contact log's row of what became of message m (sent, failed,
 * delivered), in the desk's language. */
static int trace(struct db *db, const struct message *m, const char *what)
{
	struct contact_input ci = {0};
	struct strbuf sb = {0};
	int64_t id;
	int rc;

	/* TRANSLATORS: the contact log's line for a message: its kind, its
	 * channel, what became of it, the address, then its subject or start */
	sb_printf(&sb, _("%1$s by %2$s %3$s (%4$s): %5$.300s"), m->kind,
	          !strcmp(m->channel, MESSAGE_EMAIL) ? _("e-mail") : _("text message"), what,
	          m->recipient, m->subject ? m->subject : m->body);
	ci.customer_id = m->customer_id;
	ci.channel = m->channel;
	ci.direction = "out";
	ci.summary = sb_cstr(&sb);
	control_acting_enter();
	rc = contact_add(db, &ci, &id);
	control_acting_leave();
	sb_free(&sb);
	return rc;
}

int message_retry(struct db *db, int64_t id)
{
	struct message m;
	int rc;

	if ((rc = message_get(db, id, &m)))
		return rc;
	if (strcmp(m.status, "failed"))
		rc = err_set(FD_ECONFLICT,
		             _("message %1$lld is %2$s: only a failed one is sent again"),
		             (long long)id, m.status);
	message_free(&m);
	if (rc || (rc = db_begin_write(db)))
		return rc;
	if ((rc = control_require(db, PERM_VISIT_WORK, 0, "send a message again")) ||
	    (rc = set_status(db, id, "failed", "waiting", NULL))) {
		db_rollback(db);
		return rc;
	}
	return db_commit(db);
}

/* ----------------------------------------------------------- schedule */

struct sched {
	struct db *db;
	struct message_round *r;
	int64_t now;
};

/* A visit coming up: its customers' reminders once their time has come,
 * once each (message_once); a customer's refusal (no consent, no address,
 * made already) is that customer's alone. */
static int remind_cb(const struct visit *v, void *arg)
{
	struct sched *s = arg;
	struct message_input in = {0};
	struct who w = {{0}, 0};
	const char *chans = config_get("message_reminder_channels", MESSAGE_EMAIL);
	long days = config_get_int("message_reminder_days", 1);
	long hour = config_get_int("message_reminder_hour", 17);
	char day[16], text[32], ch[16];
	int64_t at, n = 0;
	const char *p;
	size_t i;

	if ((visit_state_of(v->status) != VISIT_SCHEDULED &&
	     visit_state_of(v->status) != VISIT_CONFIRMED) ||
	    v->start_at <= s->now)
		return 0;
	clock_format_local(clock_add_days(v->start_at, -(int)(days < 0 ? 0 : days)), "%Y-%m-%d",
	                   day, sizeof day);
	snprintf(text, sizeof text, "%s %02ld:00", day, hour < 0 || hour > 23 ? 17L : hour);
	if (clock_parse_local(text, &at))
		at = s->now;
	if (at > s->now)
		return 0; /* not yet: made when its time comes, with the visit as it is then */
	if (link_list(s->db, v->id, 0, who_cb, &w) < 0) {
		err_clear();
		return 0;
	}
	in.kind = "reminder";
	in.appt_id = v->id;
	for (p = chans; *p;) {
		size_t k = strcspn(p, ", ");

		if (k && k < sizeof ch) {
			memcpy(ch, p, k);
			ch[k] = '\0';
			in.channel = ch;
			for (i = 0; i < w.n; i++) {
				in.customer_id = w.ids[i];
				if (message_make(s->db, &in, &n, NULL) == 0)
					s->r->made += n;
				else
					err_clear();
			}
		}
		p += k;
		p += strspn(p, ", ");
	}
	return 0;
}

/* Why waiting message m will not be sent, or NULL: consent withdrawn, its
 * visit over. */
static const char *not_wanted(struct db *db, const struct message *m)
{
	struct message_pref p;
	struct visit v;
	int off = 0;

	if (message_pref_get(db, m->customer_id, &p) == 0) {
		off = !strcmp(m->channel, MESSAGE_EMAIL) ? !p.email_ok : !p.sms_ok;
		message_pref_free(&p);
		if (off)
			return _("the customer withdrew consent");
	}
	if (m->appt_id && strcmp(m->kind, "invoice") && visit_get(db, m->appt_id, &v) == 0) {
		off = visit_is_off(v.status);
		visit_free(&v);
		if (off)
			return _("the visit was cancelled");
	}
	err_clear();
	return NULL;
}

/* The idempotency key and the e-mail's Message-ID of message id. */
static void message_keys(struct db *db, int64_t id, char key[80], char msgid[120])
{
	unsigned char r[12];
	int64_t born = 0;
	size_t i;

	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
		memset(r, 0, sizeof r);
	snprintf(key, 80, "msg-%lld-", (long long)id);
	for (i = 0; i < sizeof r; i++)
		snprintf(key + strlen(key), 80 - strlen(key), "%02x", r[i]);
	migrate_created_at(db, &born);
	snprintf(msgid, 120, "<MSG-%lld.%s@frontdesk-%lld>", (long long)id, key + strlen(key) - 8,
	         (long long)born);
}

/* Hand waiting message m to its channel's outbox, in one transaction with
 * its status; or cancel it (consent withdrawn, its visit over); or leave it
 * waiting when its channel has no provider yet. */
struct release_ctx {
	const struct message *m;
	enum { REL_SENT, REL_NO_PROVIDER, REL_CANCELLED } outcome;
};

static int release_tx(struct db *db, void *arg)
{
	struct release_ctx *x = arg;
	const struct message *m = x->m;
	struct outbox_new o = {0};
	char code[41], key[80], msgid[120], bkey[32], payload[64];
	const char *why;
	sqlite3_stmt *st;
	int rc;

	if ((why = not_wanted(db, m)) != NULL) {
		x->outcome = REL_CANCELLED;
		return set_status(db, m->id, "waiting", "cancelled", why);
	}
	snprintf(bkey, sizeof bkey, "MSG-%lld", (long long)m->id);
	if (pipe_provider_route_type(db, m->channel, bkey, code) != 0) {
		err_clear();
		x->outcome = REL_NO_PROVIDER;
		return 0;
	}
	message_keys(db, m->id, key, msgid);
	snprintf(payload, sizeof payload, "{\"message_id\":%lld}", (long long)m->id);
	o.type = m->channel;
	o.event_type = "message.send";
	o.business_key = bkey;
	o.provider = code;
	o.idem_key = key;
	o.payload = payload;
	x->outcome = REL_SENT;
	if ((rc = outbox_enqueue(db, &o, NULL)) ||
	    (rc = set_status(db, m->id, "waiting", "sending", NULL)) ||
	    (rc = db_prepare(
	         db, "UPDATE message SET provider_code = ?2, provider_ref = ?3 WHERE id = ?1",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, m->id);
	sqlite3_bind_text(st, 2, code, -1, SQLITE_TRANSIENT);
	if (!strcmp(m->channel, MESSAGE_EMAIL))
		sqlite3_bind_text(st, 3, msgid, -1, SQLITE_TRANSIENT);
	return db_run(db, st, _("cannot store a message"));
}

struct due_ids {
	int64_t *v;
	size_t n;
};

/* The first column of every row of st (then finalized) into d; 0, or what
 * db_fail says with what. */
static int read_ids(struct db *db, sqlite3_stmt *st, struct due_ids *d, const char *what)
{
	int step, rc = 0;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
		d->v[d->n++] = sqlite3_column_int64(st, 0);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, what);
	sqlite3_finalize(st);
	return rc;
}

int message_schedule(struct db *db, struct message_round *r)
{
	struct sched s = {db, r, clock_now()};
	struct due_ids d = {NULL, 0};
	long days = config_get_int("message_reminder_days", 1);
	sqlite3_stmt *st;
	size_t i;
	int rc;

	memset(r, 0, sizeof *r);
	control_acting_enter();
	rc = visit_list_range(db, s.now, s.now + (int64_t)((days < 0 ? 0 : days) + 2) * 86400,
	                      remind_cb, &s);
	control_acting_leave();
	if (rc)
		return rc;
	/* the waiting messages whose time has come, oldest first */
	if ((rc = db_prepare(db,
	                     "SELECT id FROM message WHERE status = 'waiting' AND send_after <= ?1"
	                     " ORDER BY send_after, id LIMIT 500",
	                     &st)))
		return rc;
	sqlite3_bind_int64(st, 1, s.now);
	rc = read_ids(db, st, &d, _("cannot read the messages"));
	for (i = 0; !rc && i < d.n; i++) {
		struct release_ctx x;
		struct message m;

		if ((rc = message_get(db, d.v[i], &m)))
			break;
		x.m = &m;
		x.outcome = REL_SENT;
		control_acting_enter();
		rc = db_write(db, release_tx, &x);
		control_acting_leave();
		message_free(&m);
		if (rc)
			break;
		if (x.outcome == REL_NO_PROVIDER)
			r->waiting++;
		else if (x.outcome == REL_CANCELLED)
			r->cancelled++;
		else
			r->released++;
	}
	free(d.v);
	return rc;
}

/* ----------------------------------------------------------- delivery */

/* A message provider's settings (pipe_conn.mctx). */
struct msg_conn {
	char *username, *password; /* a mail server's login; NULL: none */
	char *api_key;             /* an SMS provider's */
};

static void msg_conn_free(void *p)
{
	struct msg_conn *m = p;

	if (!m)
		return;
	if (m->password)
		explicit_bzero(m->password, strlen(m->password));
	if (m->api_key)
		explicit_bzero(m->api_key, strlen(m->api_key));
	free(m->username);
	free(m->password);
	free(m->api_key);
	free(m);
}

int message_conn_open(struct db *db, const char *type, const char *code, const char *secrets,
                      volatile sig_atomic_t *stop, struct pipe_conn *c)
{
	struct pipe_secrets *sec = NULL;
	struct msg_conn *mc;
	const char *v;
	char key[64], *logpath;
	int rc;

	(void)stop;
	memset(c, 0, sizeof *c);
	if ((rc = pipe_provider_get_type(db, type, code, &c->p)) != 0)
		return rc;
	if (!c->p.enabled) {
		rc = err_set(FD_EINVAL, _("the message provider '%s' is disabled"), c->p.code);
		goto out;
	}
	logpath = pipe_log_default_path(db_path(db));
	rc = pipe_log_open(logpath, &c->log);
	free(logpath);
	if (rc)
		goto out;
	/* a mail server may take mail without a login: then there may be no
	 * secrets file at all; one that is there must be safe (pipe-secret.h) */
	{
		char *path = secrets ? xstrdup(secrets) : pipe_secret_path();
		int there = path && access(path, F_OK) == 0;

		free(path);
		if ((there || strcmp(type, MESSAGE_EMAIL)) &&
		    (rc = pipe_secret_load(secrets, &sec)) != 0)
			goto out;
	}
	mc = xcalloc(1, sizeof *mc);
	c->mctx = mc;
	c->mfree = msg_conn_free;
	snprintf(key, sizeof key, "%s_username", c->p.code);
	if ((v = pipe_secret_get(sec, key)) != NULL)
		mc->username = xstrdup(v);
	snprintf(key, sizeof key, "%s_password", c->p.code);
	if ((v = pipe_secret_get(sec, key)) != NULL)
		mc->password = xstrdup(v);
	snprintf(key, sizeof key, "%s_api_key", c->p.code);
	if ((v = pipe_secret_get(sec, key)) != NULL)
		mc->api_key = xstrdup(v);
	else if (!strcmp(type, MESSAGE_SMS))
		rc = pipe_secret_need(sec, key, &v); /* says which key is missing */
out:
	pipe_secret_free(sec);
	if (rc)
		pipe_conn_close(c);
	return rc;
}

/* 1 while the shop's quiet hours hold at t (message_quiet_start and
 * message_quiet_end, "HH:MM" shop time; a window may cross midnight). */
static int quiet_now(int64_t t)
{
	const char *a = config_get("message_quiet_start", "21:00");
	const char *b = config_get("message_quiet_end", "08:00");
	char hm[8];
	int ha, ma, hb, mb, now, from, to;

	if (sscanf(a, "%d:%d", &ha, &ma) != 2 || sscanf(b, "%d:%d", &hb, &mb) != 2)
		return 0;
	clock_format_local(t, "%H:%M", hm, sizeof hm);
	now = atoi(hm) * 60 + atoi(hm + 3);
	from = ha * 60 + ma;
	to = hb * 60 + mb;
	if (from == to)
		return 0;
	return from < to ? now >= from && now < to : now >= from || now < to;
}

/* RFC 5322's date of t, in UTC, with no locale. */
static void mail_date(int64_t t, char out[48])
{
	static const char *const d[7] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char *const m[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	                                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	snprintf(out, 48, "%s, %02d %s %04d %02d:%02d:%02d +0000", d[tm.tm_wday % 7], tm.tm_mday,
	         m[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* The invoice's PDF, as `invoice print --format pdf` writes it. */
static int invoice_pdf(struct db *db, int64_t invoice_id, unsigned char **out, size_t *len)
{
	char path[] = "/tmp/frontdesk-invoice-XXXXXX";
	FILE *f = NULL;
	long n = 0;
	int fd, rc;

	*out = NULL;
	*len = 0;
	if ((fd = mkstemp(path)) < 0)
		return err_set(FD_EIO, _("cannot make a temporary file: %s"), strerror(errno));
	close(fd);
	rc = print_write(db, PRINT_INVOICE, invoice_id, PRINT_PDF, PRINT_WIDE, path);
	if (!rc && (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
	            fseek(f, 0, SEEK_SET)))
		rc = err_set(FD_EIO, "%s", _("cannot read the invoice's PDF"));
	if (!rc) {
		*out = xmalloc((size_t)n);
		if (fread(*out, 1, (size_t)n, f) != (size_t)n)
			rc = err_set(FD_EIO, "%s", _("cannot read the invoice's PDF"));
		else
			*len = (size_t)n;
	}
	if (f)
		fclose(f);
	unlink(path);
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* What to write after one send. */
struct sent_ctx {
	const struct control_hold *lease;
	int64_t cmd;
	const struct message *m;
	enum outbox_state to; /* succeeded, failed, dead, sending (no answer) */
	const char *error;
	int64_t wait;
	const char *msg_to; /* the message's status then: sent, failed, NULL (stays) */
	int claim;          /* 1: only the claim before the send */
	const char *ref;    /* the provider's id of it (a text message), NULL: none */
	const char *then;   /* a status the answer already says after sent */
};

static int set_ref(struct db *db, int64_t id, const char *ref)
{
	sqlite3_stmt *st;
	int rc;

	if ((rc = db_prepare(db, "UPDATE message SET provider_ref = ?2 WHERE id = ?1", &st)))
		return rc;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, ref, -1, SQLITE_TRANSIENT);
	return db_run(db, st, _("cannot store a message"));
}

/* INSIDE a transaction: what the provider says became of message id
 * ("delivered", "failed" with error, or "unconfirmed": no receipt came),
 * applied when it moves the message on (a repeat, or a late "sent", changes
 * nothing: *moved 0), with its line in the contact log. */
static int receipt_apply_moved(struct db *db, int64_t id, const char *to, const char *error,
                               int *moved)
{
	struct message m;
	int rc, from_ok;

	*moved = 0;
	if ((rc = message_get(db, id, &m)))
		return rc;
	from_ok = !strcmp(to, "unconfirmed")
	              ? !strcmp(m.status, "sent")
	              : !strcmp(m.status, "sent") || !strcmp(m.status, "unconfirmed");
	if (from_ok &&
	    (!strcmp(to, "delivered") || !strcmp(to, "failed") || !strcmp(to, "unconfirmed"))) {
		rc = set_status(db, id, m.status, to, error);
		if (!rc)
			rc = trace(db, &m,
			           !strcmp(to, "delivered")     ? _("delivered")
			           : !strcmp(to, "unconfirmed") ? _("sent, not confirmed")
			                                        : _("not delivered"));
		*moved = !rc;
	}
	message_free(&m);
	return rc;
}

static int receipt_apply(struct db *db, int64_t id, const char *to, const char *error)
{
	int moved;

	return receipt_apply_moved(db, id, to, error, &moved);
}

static int sent_tx(struct db *db, void *arg)
{
	struct sent_ctx *x = arg;
	int rc;

	if ((rc = control_fence(db, x->lease)) != 0)
		return rc;
	/* a command given up before it was sent (its message is no longer to
	 * send) is claimed here: outbox_record moves only a command in sending,
	 * and left pending it would be read again by every round */
	if ((x->claim || x->to == OUTBOX_DEAD) && (rc = outbox_claim(db, x->cmd, 0, NULL)) != 0)
		return rc;
	if (x->claim)
		return 0;
	if ((rc = outbox_record(db, x->cmd, x->to, x->error, x->wait, 0, NULL)) != 0)
		return rc;
	if (!x->msg_to)
		return 0;
	if ((rc = set_status(db, x->m->id, x->m->status, x->msg_to,
	                     !strcmp(x->msg_to, "sent") ? NULL : x->error)) != 0)
		return rc;
	if (x->ref && (rc = set_ref(db, x->m->id, x->ref)) != 0)
		return rc;
	if ((rc = trace(db, x->m,
	                !strcmp(x->msg_to, "sent")        ? _("sent")
	                : !strcmp(x->msg_to, "cancelled") ? _("not sent")
	                                                  : _("failed"))) != 0)
		return rc;
	return x->then ? receipt_apply(db, x->m->id, x->then, NULL) : 0;
}

static int send_mail(struct db *db, struct pipe_conn *c, const struct message *m,
                     volatile sig_atomic_t *stop, struct chan_status *st)
{
	const struct msg_conn *mc = c->mctx;
	struct pipe_mail pm = {0};
	unsigned char *pdf = NULL;
	char date[48], name[80];
	size_t len = 0;
	int code, rc;

	if (m->attach_invoice && (rc = invoice_pdf(db, m->invoice_id, &pdf, &len)) != 0) {
		memset(st, 0, sizeof *st);
		snprintf(st->reason, sizeof st->reason, "%s", err_msg());
		return CHAN_RETRY;
	}
	mail_date(clock_now(), date);
	pm.provider = c->p.code;
	pm.url = c->p.base_url;
	pm.username = mc ? mc->username : NULL;
	pm.password = mc ? mc->password : NULL;
	pm.ca_file = config_get("message_mail_ca_file", NULL);
	pm.from_name = config_get("shop_name", NULL);
	pm.from_addr = config_get("message_mail_from", "");
	pm.to = m->recipient;
	pm.subject = m->subject ? m->subject : "";
	pm.date = date;
	pm.message_id = m->provider_ref ? m->provider_ref : "<unknown@frontdesk>";
	pm.text = m->body;
	if (pdf) {
		struct invoice inv;

		snprintf(name, sizeof name, "invoice-%lld.pdf", (long long)m->invoice_id);
		if (invoice_get(db, m->invoice_id, &inv) == 0) {
			snprintf(name, sizeof name, "%s.pdf", inv.number);
			invoice_free(&inv);
		}
		pm.attachment = pdf;
		pm.attachment_len = len;
		pm.attachment_name = name;
		pm.attachment_type = "application/pdf";
	}
	pm.connect_timeout_ms = config_get_int("channel_connect_timeout_ms", 5000);
	pm.total_timeout_ms = config_get_int("message_mail_timeout_ms", 60000);
	pm.log = c->log;
	pm.stop = stop;
	if (!*pm.from_addr) {
		memset(st, 0, sizeof *st);
		snprintf(st->reason, sizeof st->reason, "%s",
		         _("no sender address: set message_mail_from in the config file"));
		code = CHAN_RETRY;
	} else {
		code = pipe_mail_send(&pm, st);
	}
	free(pdf);
	return code;
}

/* A text message by the sms-rest contract (tests/chan/contract/
 * sms-rest-contract.md): POST /v1/messages with the command's idempotency
 * key; ref gets the provider's id of it, said its status in the answer. */
static int send_sms(struct pipe_conn *c, const struct message *m, const char *key,
                    volatile sig_atomic_t *stop, struct chan_status *st, char ref[128],
                    char said[16])
{
	const struct msg_conn *mc = c->mctx;
	struct pipe_http_resp resp = {0};
	struct pipe_http h;
	char reference[32];
	cJSON *o, *j, *v;
	char *body;
	int code;

	snprintf(reference, sizeof reference, "MSG-%lld", (long long)m->id);
	pipe_http_setup(&h, c->p.code, c->p.base_url,
	                config_get_int("channel_connect_timeout_ms", 5000),
	                config_get_int("channel_timeout_ms", 30000),
	                config_get_int("channel_low_speed_seconds", 10), c->log, stop);
	h.api_key = mc ? mc->api_key : NULL;
	h.content_type = "application/json";
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "to", m->recipient);
	cJSON_AddStringToObject(o, "body", m->body);
	cJSON_AddStringToObject(o, "reference", reference);
	body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	code = pipe_http_call(&h, "send_sms", "POST", "/v1/messages", NULL, body, key, &resp, st);
	if (code == CHAN_OK) {
		j = cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
		v = cJSON_GetObjectItemCaseSensitive(j, "id");
		if (cJSON_IsString(v) && *v->valuestring && strlen(v->valuestring) < 128)
			snprintf(ref, 128, "%s", v->valuestring);
		v = cJSON_GetObjectItemCaseSensitive(j, "status");
		if (cJSON_IsString(v))
			snprintf(said, 16, "%s", v->valuestring);
		cJSON_Delete(j);
		if (!*ref) {
			/* taken, but its answer names nothing: asked again (same key) */
			snprintf(st->reason, sizeof st->reason, "%s",
			         _("the provider's answer names no message id"));
			code = CHAN_UNKNOWN;
		}
	}
	free(body);
	pipe_http_resp_free(&resp);
	pipe_http_release(&h);
	return code;
}

static int deliver_one(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                       volatile sig_atomic_t *stop, int64_t cmd_id, const char *key,
                       struct message_sent *r)
{
	struct sent_ctx x = {lease, cmd_id, NULL, OUTBOX_SENDING, NULL, 0, NULL, 0, NULL, NULL};
	char ref[128] = "", said[16] = "";
	struct outbox_cmd o;
	struct chan_status st;
	struct message m;
	const char *why;
	long long mid = 0;
	int rc, code;

	memset(&m, 0, sizeof m);
	if ((rc = outbox_cmd_get(db, cmd_id, &o)) != 0)
		return rc;
	if (sscanf(o.business_key ? o.business_key : "", "MSG-%lld", &mid) != 1 ||
	    message_get(db, mid, &m) != 0) {
		err_clear();
		x.to = OUTBOX_DEAD;
		x.error = _("the command names no message");
		rc = db_write(db, sent_tx, &x);
		goto out;
	}
	x.m = &m;
	if (strcmp(m.status, "sending")) {
		x.to = OUTBOX_DEAD;
		x.error = _("the message is no longer to send");
		rc = db_write(db, sent_tx, &x);
		goto out;
	}
	if ((why = not_wanted(db, &m)) != NULL) {
		x.to = OUTBOX_DEAD;
		x.error = why;
		x.msg_to = "cancelled";
		rc = db_write(db, sent_tx, &x);
		goto out;
	}
	if (!strcmp(m.channel, MESSAGE_SMS) && quiet_now(clock_now())) {
		r->held++; /* due still: sent by the first round after the quiet hours */
		goto out;
	}
	/* sending first: a crash after this leaves an unknown outcome */
	if (strcmp(o.status, "sending")) {
		x.claim = 1;
		if ((rc = db_write(db, sent_tx, &x)) != 0)
			goto out;
		x.claim = 0;
	}
	code = !strcmp(m.channel, MESSAGE_EMAIL) ? send_mail(db, c, &m, stop, &st)
	                                         : send_sms(c, &m, key, stop, &st, ref, said);
	switch (code) {
	case CHAN_OK:
		x.to = OUTBOX_SUCCEEDED;
		x.msg_to = "sent";
		x.ref = *ref ? ref : NULL;
		/* an answer that already says what became of it */
		if (!strcmp(said, "delivered") || !strcmp(said, "failed"))
			x.then = said;
		r->sent++;
		break;
	case CHAN_UNKNOWN:
		/* no answer after it may have been taken: sent again on the
		 * backoff, under the same Message-ID (an e-mail) or the same
		 * idempotency key (a text message: the first answer comes back) */
	case CHAN_RETRY: {
		int64_t since = 0;

		if ((rc = pipe_rule_since(db, "outbox_event", cmd_id, "pending", &since)) != 0)
			goto out;
		x.error = st.reason;
		if (pipe_rule_retry_plan(since, clock_now(), o.retry_count + 1, st.retry_after,
		                         CHAN_RETRY, &x.wait)) {
			x.to = OUTBOX_DEAD;
			x.msg_to = "failed";
			r->dead++;
		} else {
			x.to = OUTBOX_FAILED;
			r->failed++;
		}
		break;
	}
	default:
		x.to = OUTBOX_DEAD;
		x.error = st.reason;
		x.msg_to = "failed";
		r->dead++;
		break;
	}
	rc = db_write(db, sent_tx, &x);
out:
	message_free(&m);
	outbox_cmd_free(&o);
	return rc;
}

struct due_cmds {
	int64_t *v;
	char **key;
	size_t n;
};

static int due_cb(const struct outbox_due_cmd *c, void *arg)
{
	struct due_cmds *d = arg;

	d->v = xrealloc(d->v, (d->n + 1) * sizeof *d->v);
	d->key = xrealloc(d->key, (d->n + 1) * sizeof *d->key);
	d->key[d->n] = xstrdup(c->idem_key ? c->idem_key : "");
	d->v[d->n++] = c->id;
	return 0;
}

int message_deliver(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                    volatile sig_atomic_t *stop, struct message_sent *r)
{
	struct due_cmds d = {NULL, NULL, 0};
	size_t i;
	int rc;

	rc = outbox_due(db, c->p.type, c->p.code, due_cb, &d);
	control_acting_enter();
	for (i = 0; !rc && i < d.n && !stop_requested(stop); i++)
		rc = deliver_one(db, c, lease, stop, d.v[i], d.key[i], r);
	control_acting_leave();
	for (i = 0; i < d.n; i++)
		free(d.key[i]);
	free(d.key);
	free(d.v);
	return rc;
}

/* ----------------------------------------------------------- retention */

int message_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE message SET recipient = '" RETENTION_REMOVED "', subject = CASE WHEN subject"
	     " IS NULL THEN NULL ELSE '" RETENTION_REMOVED "' END, body = '" RETENTION_REMOVED "',"
	     " error = NULL WHERE customer_id = ?1 AND body IS NOT '" RETENTION_REMOVED "'",
	     N_("cannot clear the messages")},
	    {"UPDATE customer_contact_pref SET reason = NULL WHERE customer_id = ?1"
	     " AND reason IS NOT NULL",
	     N_("cannot clear the customer's consent")},
	    {"UPDATE customer_contact_pref_his SET reason = NULL WHERE customer_id = ?1"
	     " AND reason IS NOT NULL",
	     N_("cannot clear the customer's consent history")},
	};

	return retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}

/* A message still to leave keeps its customer. */
int message_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n)
{
	char id[32];
	int rc = retention_first(db,
	                         "SELECT id FROM message WHERE customer_id = ?1"
	                         " AND status IN ('waiting', 'sending') ORDER BY id LIMIT 1",
	                         customer_id, id, sizeof id);

	if (rc == 1)
		snprintf(why, n, _("message %s is still to be sent"), id);
	return rc;
}

/* ---------------------------------------------------------------- check */

struct tmpl_report {
	void (*report)(const char *code, const char *detail, void *arg);
	void *arg;
};

static void tmpl_cb(const char *path, const char *why, void *arg)
{
	struct tmpl_report *t = arg;
	char detail[600];

	if (!why)
		return;
	snprintf(detail, sizeof detail,
	         _("%s (the built-in template is used instead; frontdesk message templates)"), why);
	t->report("message-template", detail, t->arg);
}

int message_check(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                  void *arg)
{
	struct tmpl_report tr = {report, arg};
	int64_t horizon = pipe_rule_give_up_seconds(), now = clock_now();
	char detail[500], when[32];
	sqlite3_stmt *st;
	int rc, step, found;

	found = message_text_check(config_get("message_template_dir", NULL), tmpl_cb, &tr);
	if ((rc = db_prepare(
	         db,
	         "SELECT id, kind, channel, send_after FROM message"
	         " WHERE status = 'waiting' AND send_after <= ?1 ORDER BY send_after, id",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, now - horizon);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		clock_format_local(sqlite3_column_int64(st, 3), "%Y-%m-%d %H:%M", when,
		                   sizeof when);
		snprintf(
		    detail, sizeof detail,
		    _("message %1$lld (%2$s by %3$s) has waited to leave since %4$s: no provider "
		      "of its channel takes it, or no worker runs (frontdesk message "
		      "provider-set; frontdesk serve)"),
		    (long long)sqlite3_column_int64(st, 0),
		    (const char *)sqlite3_column_text(st, 1),
		    (const char *)sqlite3_column_text(st, 2), when);
		report("message-not-sent", detail, arg);
		found++;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the messages"));
	sqlite3_finalize(st);
	return rc ? rc : found;
}

/* ------------------------------------------------- text messages' receipts */

/* A receipt as the sms-rest contract writes it: event id, the provider's
 * message id, status, error (may be NULL) and time. 0, or FD_EINVAL. */
struct sms_receipt {
	char id[128], msg[128], status[16];
	char error[300];
	int64_t at;
};

static int receipt_read(const void *raw, size_t len, struct sms_receipt *r)
{
	cJSON *j = cJSON_ParseWithLength(raw, len), *d, *v;
	int rc = 0;

	memset(r, 0, sizeof r[0]);
	d = j ? cJSON_GetObjectItemCaseSensitive(j, "data") : NULL;
	v = j ? cJSON_GetObjectItemCaseSensitive(j, "id") : NULL;
	if (!cJSON_IsString(v) || !*v->valuestring || strlen(v->valuestring) >= sizeof r->id)
		rc = err_set(FD_EINVAL, "%s", _("a receipt with no event id"));
	else
		snprintf(r->id, sizeof r->id, "%s", v->valuestring);
	v = d ? cJSON_GetObjectItemCaseSensitive(d, "id") : NULL;
	if (!rc &&
	    (!cJSON_IsString(v) || !*v->valuestring || strlen(v->valuestring) >= sizeof r->msg))
		rc = err_set(FD_EINVAL, "%s", _("a receipt that names no message"));
	else if (!rc)
		snprintf(r->msg, sizeof r->msg, "%s", v->valuestring);
	v = d ? cJSON_GetObjectItemCaseSensitive(d, "status") : NULL;
	if (!rc && (!cJSON_IsString(v) || strlen(v->valuestring) >= sizeof r->status))
		rc = err_set(FD_EINVAL, "%s", _("a receipt with no status"));
	else if (!rc)
		snprintf(r->status, sizeof r->status, "%s", v->valuestring);
	v = d ? cJSON_GetObjectItemCaseSensitive(d, "error") : NULL;
	if (!rc && cJSON_IsString(v))
		snprintf(r->error, sizeof r->error, "%.290s", v->valuestring);
	v = d ? cJSON_GetObjectItemCaseSensitive(d, "at") : NULL;
	if (!rc && cJSON_IsString(v) && clock_parse_rfc3339(v->valuestring, &r->at))
		r->at = 0;
	cJSON_Delete(j);
	err_clear();
	return rc ? FD_EINVAL : 0;
}

int message_sms_ingest(struct db *db, const char *code, const char *secrets, const char *header,
                       const void *raw, size_t len, struct inbox_ingest_result *r)
{
	struct pipe_secrets *sec = NULL;
	struct inbox_relayed x = {0};
	struct sms_receipt rc_;
	const char *secret = NULL;
	char key[64];
	int rc;

	memset(r, 0, sizeof *r);
	if ((rc = inbox_relay_begin(len)) != 0 || (rc = pipe_secret_load(secrets, &sec)) != 0)
		return rc;
	snprintf(key, sizeof key, "%s_signing_secret", code);
	if ((rc = pipe_secret_need(sec, key, &secret)) != 0)
		goto out;
	x.source = code;
	x.type = MESSAGE_SMS;
	x.header = header;
	x.payload = raw;
	x.len = len;
	x.json = 1;
	x.verified =
	    pipe_sig_verify(header, raw, len, secret, clock_real(), PIPE_SIG_TOLERANCE, NULL) == 0;
	if (x.verified && (x.readable = receipt_read(raw, len, &rc_) == 0)) {
		x.external_id = rc_.id;
		x.event_type = "message.status";
		x.object_id = rc_.msg;
		x.created = rc_.at;
	}
	rc = inbox_store_relayed(db, &x, r);
out:
	pipe_secret_free(sec);
	return rc;
}

struct apply_ctx {
	const struct control_hold *lease;
	const char *code;
	int64_t ev, attempts;
	const unsigned char *raw;
	size_t len;
	const char *outcome;
};

static int receipt_tx(struct db *db, void *arg)
{
	struct apply_ctx *a = arg;
	struct sms_receipt r;
	sqlite3_stmt *st;
	int64_t id = 0;
	char why[300];
	int rc, moved = 0;

	if ((rc = control_fence(db, a->lease)) != 0)
		return rc;
	if (receipt_read(a->raw, a->len, &r)) {
		a->outcome = "dead";
		return inbox_mark_dead(db, a->ev, _("the receipt cannot be read"), NULL, NULL);
	}
	if ((rc = db_prepare(
	         db, "SELECT id FROM message WHERE provider_code = ?1 AND provider_ref = ?2", &st)))
		return rc;
	sqlite3_bind_text(st, 1, a->code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, r.msg, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (!id) {
		/* the answer that names it may not be recorded yet */
		snprintf(why, sizeof why, _("no message is %s at this provider (yet)"), r.msg);
		return inbox_mark_failed(db, a->ev, a->attempts, why, 0, 0, NULL, &a->outcome,
		                         NULL);
	}
	if (strcmp(r.status, "delivered") && strcmp(r.status, "failed")) {
		a->outcome = "ignored";
		return inbox_mark_ignored(db, a->ev, _("a receipt that changes nothing"), NULL);
	}
	if ((rc = receipt_apply_moved(db, id, r.status, *r.error ? r.error : NULL, &moved)) != 0)
		return rc;
	a->outcome = moved ? "processed" : "ignored";
	return moved ? inbox_mark_processed(db, a->ev, r.status, NULL)
	             : inbox_mark_ignored(db, a->ev, _("a repeat, or late"), NULL);
}

int message_sms_process(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                        volatile sig_atomic_t *stop, int64_t *applied)
{
	struct due_ids d = {NULL, 0};
	sqlite3_stmt *st;
	size_t i;
	int rc;

	*applied = 0;
	if ((rc = db_prepare(db,
	                     "SELECT id FROM inbound_callback WHERE integration_type = 'sms'"
	                     " AND source_system = ?1 AND status IN ('received', 'failed')"
	                     " AND coalesce(next_attempt_at, 0) <= ?2"
	                     " ORDER BY coalesce(channel_created_at, 0), id",
	                     &st)))
		return rc;
	sqlite3_bind_text(st, 1, c->p.code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, clock_real());
	rc = read_ids(db, st, &d, _("cannot read the receipts"));
	control_acting_enter();
	for (i = 0; !rc && i < d.n && !stop_requested(stop); i++) {
		struct inbox_event ev;
		struct apply_ctx a;

		if ((rc = inbox_get(db, d.v[i], &ev)) != 0)
			break;
		a.lease = lease;
		a.code = c->p.code;
		a.ev = ev.id;
		a.attempts = ev.attempts;
		a.raw = ev.payload;
		a.len = ev.len;
		a.outcome = "failed";
		rc = db_write(db, receipt_tx, &a);
		inbox_event_free(&ev);
		if (!rc && !strcmp(a.outcome, "processed"))
			(*applied)++;
	}
	control_acting_leave();
	free(d.v);
	return rc;
}

struct query_ctx {
	const struct control_hold *lease;
	int64_t id;
	const char *to;
	const char *error;
};

static int query_tx(struct db *db, void *arg)
{
	struct query_ctx *q = arg;
	int rc;

	if ((rc = control_fence(db, q->lease)) != 0)
		return rc;
	return receipt_apply(db, q->id, q->to, q->error);
}

int message_sms_query(struct db *db, struct pipe_conn *c, const struct control_hold *lease,
                      volatile sig_atomic_t *stop, int64_t *asked)
{
	const struct msg_conn *mc = c->mctx;
	long hours = config_get_int("message_sms_confirm_hours", 24);
	struct due_ids d = {NULL, 0};
	sqlite3_stmt *st;
	size_t i;
	int rc;

	*asked = 0;
	if ((rc =
	         db_prepare(db,
	                    "SELECT id FROM message WHERE status = 'sent' AND channel = 'sms'"
	                    " AND provider_code = ?1 AND sent_at <= ?2 AND provider_ref IS NOT NULL"
	                    " ORDER BY sent_at, id LIMIT 200",
	                    &st)))
		return rc;
	sqlite3_bind_text(st, 1, c->p.code, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, clock_now() - (int64_t)(hours < 0 ? 0 : hours) * 3600);
	rc = read_ids(db, st, &d, _("cannot read the messages"));
	control_acting_enter();
	for (i = 0; !rc && i < d.n && !stop_requested(stop); i++) {
		struct query_ctx q = {lease, d.v[i], "unconfirmed", NULL};
		struct pipe_http_resp resp = {0};
		struct chan_status cs;
		struct pipe_http h;
		struct message m;
		char path[200], status[16] = "", error[300] = "";
		cJSON *j, *v;

		if ((rc = message_get(db, d.v[i], &m)) != 0)
			break;
		pipe_http_setup(&h, c->p.code, c->p.base_url,
		                config_get_int("channel_connect_timeout_ms", 5000),
		                config_get_int("channel_timeout_ms", 30000),
		                config_get_int("channel_low_speed_seconds", 10), c->log, stop);
		h.api_key = mc ? mc->api_key : NULL;
		snprintf(path, sizeof path, "/v1/messages/%.150s", m.provider_ref);
		(*asked)++;
		if (pipe_http_call(&h, "query_sms", "GET", path, NULL, NULL, NULL, &resp, &cs) ==
		    CHAN_OK) {
			j = cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
			v = cJSON_GetObjectItemCaseSensitive(j, "status");
			if (cJSON_IsString(v))
				snprintf(status, sizeof status, "%s", v->valuestring);
			v = cJSON_GetObjectItemCaseSensitive(j, "error");
			if (cJSON_IsString(v))
				snprintf(error, sizeof error, "%.290s", v->valuestring);
			cJSON_Delete(j);
			if (!strcmp(status, "delivered") || !strcmp(status, "failed")) {
				q.to = status;
				q.error = *error ? error : NULL;
			}
			/* still queued or sent this long after: sent, not confirmed */
			rc = db_write(db, query_tx, &q);
		}
		/* no answer: asked again at the next round */
		pipe_http_resp_free(&resp);
		pipe_http_release(&h);
		message_free(&m);
	}
	control_acting_leave();
	free(d.v);
	return rc;
}

/* ------------------------------------------------------- confirmations */

int message_on_booked(struct db *db, const struct announcement *a)
{
	const char *chans = config_get("message_confirm_channels", "");
	struct message_input in = {0};
	char ch[16];
	const char *p;
	int64_t n;

	if (a->kind != ANNOUNCE_VISIT_BOOKED || !*chans)
		return 0;
	in.kind = "confirmation";
	in.appt_id = a->id;
	control_acting_enter();
	for (p = chans; *p;) {
		size_t k = strcspn(p, ", ");

		if (k && k < sizeof ch) {
			memcpy(ch, p, k);
			ch[k] = '\0';
			in.channel = ch;
			/* a customer who wants none, or has no address of that
			 * channel, is not a reason to refuse the booking */
			if (message_make(db, &in, &n, NULL) != 0)
				err_clear();
		}
		p += k;
		p += strspn(p, ", ");
	}
	control_acting_leave();
	return 0;
}
