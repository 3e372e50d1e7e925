/*
 * payment.c - payments, allocations, reversals and refunds (see payment.h).
 *
 * Invariants: every rule is checked here inside the write transaction, on
 * figures read in that transaction (BEGIN IMMEDIATE, so nobody else can
 * change them before the commit), so that a refusal says exactly what is
 * wrong and nothing is written. The figures of invoices and payments are
 * never computed here: the rows posted here (allocation, reversal, refund)
 * make the schema's triggers update them in the same statement, and the
 * schema refuses any figure that does not match the posted rows.
 *
 * Permissions: see payment.h (the plain functions ask, the _in variants
 * run inside an action that asked).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "control.h"
#include "db.h"
#include "dbrow.h"
#include "drawer.h"
#include "err.h"
#include "i18n.h"
#include "invoice.h"
#include "money.h"
#include "payment.h"
#include "retention-mod.h"
#include "settings.h"
#include "states.h"
#include "strbuf.h"
#include "text.h"
#include "words.h"
#include "xalloc.h"

/* ------------------------------------------------------------ states */

/* The stored word of each state of a payment, once. */
static const char *const payment_words[PAYMENT_STATES] = {
    [PAYMENT_UNALLOCATED] = "unallocated",
    [PAYMENT_PARTIALLY_ALLOCATED] = "partially_allocated",
    [PAYMENT_ALLOCATED] = "allocated",
    [PAYMENT_REFUNDED] = "refunded",
    [PAYMENT_VOID] = "void",
};

/* Every legal move of a payment: status_transition's rows for 'payment'. */
static const struct state_move payment_moves[] = {
    {PAYMENT_UNALLOCATED, PAYMENT_PARTIALLY_ALLOCATED},
    {PAYMENT_UNALLOCATED, PAYMENT_ALLOCATED},
    {PAYMENT_UNALLOCATED, PAYMENT_REFUNDED},
    {PAYMENT_UNALLOCATED, PAYMENT_VOID},
    {PAYMENT_PARTIALLY_ALLOCATED, PAYMENT_UNALLOCATED},
    {PAYMENT_PARTIALLY_ALLOCATED, PAYMENT_ALLOCATED},
    {PAYMENT_PARTIALLY_ALLOCATED, PAYMENT_REFUNDED},
    {PAYMENT_ALLOCATED, PAYMENT_UNALLOCATED},
    {PAYMENT_ALLOCATED, PAYMENT_PARTIALLY_ALLOCATED},
    {PAYMENT_ALLOCATED, PAYMENT_REFUNDED},
    {PAYMENT_REFUNDED, PAYMENT_UNALLOCATED},
    {PAYMENT_REFUNDED, PAYMENT_PARTIALLY_ALLOCATED},
    {PAYMENT_REFUNDED, PAYMENT_ALLOCATED},
    {-1, -1},
};

const struct states payment_states = {"payment", payment_words, PAYMENT_STATES, payment_moves};

enum payment_state payment_state_of(const char *word)
{
	return (enum payment_state)states_of(&payment_states, word);
}

const char *payment_state_word(enum payment_state s)
{
	return states_word(&payment_states, (int)s);
}

/* The stored word of each state of a refund, once. */
static const char *const refund_words[REFUND_STATES] = {
    [REFUND_PENDING] = "pending",
    [REFUND_SUCCEEDED] = "succeeded",
    [REFUND_FAILED] = "failed",
};

/* Every legal move of a refund: status_transition's rows for 'refund'. */
static const struct state_move refund_moves[] = {
    {REFUND_PENDING, REFUND_SUCCEEDED},
    {REFUND_PENDING, REFUND_FAILED},
    {-1, -1},
};

const struct states refund_states = {"refund", refund_words, REFUND_STATES, refund_moves};

enum refund_state refund_state_of(const char *word)
{
	return (enum refund_state)states_of(&refund_states, word);
}

const char *refund_state_word(enum refund_state s)
{
	return states_word(&refund_states, (int)s);
}

/* ------------------------------------------------------------ helpers */

static const char *fmt(int64_t v, const char *code, char buf[MONEY_BUFSZ])
{
	return money_text(v, code, 1, buf);
}

int payment_method_valid(const char *m)
{
	size_t i;

	for (i = 0; m && i < WORDS_NMETHODS; i++)
		if (!strcmp(m, words_methods[i]))
			return 1;
	return 0;
}

/* s, or NULL when it is NULL or empty. */
static const char *given(const char *s)
{
	return s && *s ? s : NULL;
}

int payment_read(const struct payment_text *t, struct payment_input *in)
{
	const struct currency *cur;
	const char *p = t->customer ? t->customer : "", *code;
	uint64_t id = 0;
	char *why;
	int rc;

	memset(in, 0, sizeof *in);
	for (; *p >= '0' && *p <= '9' && id <= (uint64_t)INT64_MAX; p++)
		id = id * 10 + (uint64_t)(*p - '0');
	if (!t->customer || !*t->customer || *p || id == 0 || id > (uint64_t)INT64_MAX)
		return err_set(FD_EINVAL, _("bad customer '%.40s': give the customer's id"),
		               t->customer ? t->customer : "");
	in->customer_id = (int64_t)id;
	code = given(t->currency) ? t->currency : config_get("currency", "USD");
	if (!(cur = currency_find(code)))
		return err_set(FD_EINVAL, _("unknown currency '%.10s'"), code);
	in->currency = cur->code;
	if ((rc = money_parse(t->amount ? t->amount : "", cur, &in->amount)) != 0) {
		why = xstrdup(err_msg());
		rc = err_set(rc, _("bad amount '%.40s': %s"), t->amount ? t->amount : "", why);
		free(why);
		return rc;
	}
	in->method = t->method ? t->method : "";
	in->reference = given(t->reference);
	in->note = given(t->note);
	if (given(t->received) && (rc = clock_parse_local(t->received, &in->received_at)) != 0)
		return rc;
	return 0;
}

int alloc_read(struct db *db, const char *text, const char *code, struct alloc_input *out)
{
	const char *eq = text ? strchr(text, '=') : NULL;
	char *name, *why;
	int rc;

	if (!eq || eq == text || !eq[1])
		return err_set(FD_EINVAL, _("an allocation is INVOICE=AMOUNT, not '%.40s'"),
		               text ? text : "");
	name = xstrndup(text, (size_t)(eq - text));
	rc = invoice_find(db, name, &out->invoice_id);
	free(name);
	if (rc)
		return rc;
	if ((rc = money_parse(eq + 1, currency_find(code), &out->amount)) != 0) {
		why = xstrdup(err_msg());
		rc = err_set(rc, _("bad allocation amount '%.40s': %s"), eq + 1, why);
		free(why);
	}
	return rc;
}

int alloc_read_list(struct db *db, const char *text, const char *code, struct alloc_input **out,
                    size_t *n)
{
	const char *p = text ? text : "", *s, *e, *end;
	size_t n0 = *n;
	char *item;
	int rc = 0;

	while (!rc && *p) {
		end = p + strcspn(p, ";");
		s = p;
		e = end;
		if (p != text) /* just after a ';': its blanks go with it */
			s += strspn(s, " \t");
		if (*end == ';') /* and so do those just before one */
			while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
		p = *end ? end + 1 : end;
		if (s == e) /* nothing beside a ';' ("A=1;;B=2", "A=1;") */
			continue;
		item = xstrndup(s, (size_t)(e - s));
		*out = xrealloc(*out, (*n + 1) * sizeof **out);
		memset(&(*out)[*n], 0, sizeof **out);
		if ((rc = alloc_read(db, item, code, &(*out)[*n])) == 0)
			(*n)++;
		free(item);
	}
	if (!rc && *n == n0) /* "", ";": an allocation was asked for, none given */
		rc = err_set(FD_EINVAL, _("an allocation is INVOICE=AMOUNT, not '%.40s'"),
		             text ? text : "");
	if (rc)
		*n = n0;
	return rc;
}

int alloc_fits_invoice(int64_t amount, int64_t balance, int allow_overpay)
{
	return allow_overpay || amount <= balance;
}

/* A reference a person typed is refused when it looks like a card number.
 * An id the payment channel gave us (channel_ref) is the channel's reference
 * and is never refused by that rule: refusing it would leave a payment the
 * customer made unposted. */
static int check_reference(const char *ref, int channel_ref)
{
	if (!ref || !*ref)
		return 0;
	if (channel_ref)
		return text_check_id(ref, _("the reference"), 100, 0);
	if (text_has_card_number(ref))
		return err_set(FD_EINVAL,
		               _("the reference looks like a card number; card numbers are never "
		                 "stored: give the last four digits or the channel's reference"));
	/* the card rule was applied just above, with the reference's own words */
	return text_check_id(ref, _("the reference"), 100, 0);
}

/* ------------------------------------------------------------ reading */

#define PAYMENT_COLS                                                                               \
	"p.id, p.customer_id, c.name, p.method, p.reference, p.received_at, p.currency,"           \
	" p.amount, p.allocated, p.refunded, p.status, p.note, p.created_at, p.updated_at"
#define PAYMENT_FROM " FROM payment p JOIN customer c ON c.id = p.customer_id"

static void fill_payment(sqlite3_stmt *st, struct payment *p)
{
	memset(p, 0, sizeof *p);
	p->id = sqlite3_column_int64(st, 0);
	p->customer_id = sqlite3_column_int64(st, 1);
	p->customer_name = dbrow_dup(st, 2);
	dbrow_copy(st, 3, p->method, sizeof p->method);
	p->reference = dbrow_dup(st, 4);
	p->received_at = sqlite3_column_int64(st, 5);
	dbrow_copy(st, 6, p->currency, sizeof p->currency);
	p->amount = sqlite3_column_int64(st, 7);
	p->allocated = sqlite3_column_int64(st, 8);
	p->refunded = sqlite3_column_int64(st, 9);
	p->unallocated = p->amount - p->allocated - p->refunded;
	dbrow_copy(st, 10, p->status, sizeof p->status);
	p->note = dbrow_dup(st, 11);
	p->created_at = sqlite3_column_int64(st, 12);
	p->updated_at = sqlite3_column_int64(st, 13);
}

void payment_free(struct payment *p)
{
	free(p->customer_name);
	free(p->reference);
	free(p->note);
	memset(p, 0, sizeof *p);
}

static void payment_get_row(sqlite3_stmt *st, void *out)
{
	fill_payment(st, out);
}

int payment_is_void(const struct payment *p)
{
	return payment_state_of(p->status) == PAYMENT_VOID;
}

int payment_get(struct db *db, int64_t id, struct payment *out)
{
	int rc, found;

	memset(out, 0, sizeof *out);
	rc = dbrow_get(db, "SELECT " PAYMENT_COLS PAYMENT_FROM " WHERE p.id = ?", id,
	               payment_get_row, out, _("cannot read the payment"), &found);
	if (!rc && !found)
		rc = err_set(FD_ENOTFOUND, _("there is no payment %lld"), (long long)id);
	return rc;
}

/* Step st (finalizing it), giving each payment row to cb until it returns
 * non-zero. */
static int each_payment(struct db *db, sqlite3_stmt *st,
                        int (*cb)(const struct payment *p, void *arg), void *arg)
{
	int rc = 0, step;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct payment p;

		fill_payment(st, &p);
		rc = cb(&p, arg);
		payment_free(&p);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list payments"));
	sqlite3_finalize(st);
	return rc;
}

int payment_list_received(struct db *db, int64_t from, int64_t to,
                          int (*cb)(const struct payment *p, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc;

	if (control_require(db, PERM_RECORDS_VIEW, 0, "list payments received"))
		return FD_EPERM;

	rc = db_prepare(db,
	                "SELECT " PAYMENT_COLS PAYMENT_FROM " WHERE p.received_at >= ?1"
	                " AND p.received_at < ?2 ORDER BY p.received_at, p.id",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	return each_payment(db, st, cb, arg);
}

static int list_rows(struct db *db, int64_t customer_id,
                     int (*cb)(const struct payment *p, void *arg), void *arg);

int payment_list(struct db *db, int64_t customer_id, int (*cb)(const struct payment *p, void *arg),
                 void *arg)
{
	int rc = control_require(db, PERM_RECORDS_VIEW, 0, "list payments");

	return rc ? rc : list_rows(db, customer_id, cb, arg);
}

/* payment_list without asking (a customer's credit, inside an action that
 * asked) */
static int list_rows(struct db *db, int64_t customer_id,
                     int (*cb)(const struct payment *p, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc;

	rc = db_prepare(db,
	                "SELECT " PAYMENT_COLS PAYMENT_FROM " WHERE ?1 = 0 OR p.customer_id = ?1"
	                " ORDER BY p.received_at DESC, p.id DESC",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	return each_payment(db, st, cb, arg);
}

#define ALLOC_COLS                                                                                 \
	"a.id, a.payment_id, a.invoice_id, i.number, p.currency, a.amount, a.reverses_id,"         \
	" (SELECT r.id FROM payment_allocation r WHERE r.reverses_id = a.id), a.reason,"           \
	" a.created_at"
#define ALLOC_FROM                                                                                 \
	" FROM payment_allocation a JOIN invoice i ON i.id = a.invoice_id"                         \
	" JOIN payment p ON p.id = a.payment_id"

static void fill_alloc(sqlite3_stmt *st, struct allocation *a)
{
	memset(a, 0, sizeof *a);
	a->id = sqlite3_column_int64(st, 0);
	a->payment_id = sqlite3_column_int64(st, 1);
	a->invoice_id = sqlite3_column_int64(st, 2);
	dbrow_copy(st, 3, a->invoice_number, sizeof a->invoice_number);
	dbrow_copy(st, 4, a->currency, sizeof a->currency);
	a->amount = sqlite3_column_int64(st, 5);
	a->reverses_id = sqlite3_column_int64(st, 6);
	a->reversed_by = sqlite3_column_int64(st, 7);
	a->reason = dbrow_dup(st, 8);
	a->created_at = sqlite3_column_int64(st, 9);
}

void alloc_free(struct allocation *a)
{
	free(a->reason);
	memset(a, 0, sizeof *a);
}

static void alloc_row(sqlite3_stmt *st, void *out)
{
	fill_alloc(st, out);
}

int alloc_get(struct db *db, int64_t id, struct allocation *out)
{
	int rc, found;

	memset(out, 0, sizeof *out);
	rc = dbrow_get(db, "SELECT " ALLOC_COLS ALLOC_FROM " WHERE a.id = ?", id, alloc_row, out,
	               _("cannot read the allocation"), &found);
	if (!rc && !found)
		rc = err_set(FD_ENOTFOUND, _("there is no allocation %lld"), (long long)id);
	return rc;
}

int alloc_list(struct db *db, int64_t payment_id, int64_t invoice_id,
               int (*cb)(const struct allocation *a, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare(
	    db,
	    payment_id ? "SELECT " ALLOC_COLS ALLOC_FROM " WHERE a.payment_id = ? ORDER BY a.id"
	               : "SELECT " ALLOC_COLS ALLOC_FROM " WHERE a.invoice_id = ? ORDER BY a.id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, payment_id ? payment_id : invoice_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct allocation a;

		fill_alloc(st, &a);
		rc = cb(&a, arg);
		alloc_free(&a);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list allocations"));
	sqlite3_finalize(st);
	return rc;
}

void refund_free(struct refund *r)
{
	free(r->reference);
	free(r->reason);
	memset(r, 0, sizeof *r);
}

int refund_list(struct db *db, int64_t payment_id, int (*cb)(const struct refund *r, void *arg),
                void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	rc = db_prepare(
	    db,
	    "SELECT r.id, r.payment_id, p.currency, r.amount, r.method, r.reference,"
	    " r.status, r.reason, r.refunded_at FROM refund r"
	    " JOIN payment p ON p.id = r.payment_id WHERE r.payment_id = ? ORDER BY r.id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, payment_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct refund r;

		memset(&r, 0, sizeof r);
		r.id = sqlite3_column_int64(st, 0);
		r.payment_id = sqlite3_column_int64(st, 1);
		dbrow_copy(st, 2, r.currency, sizeof r.currency);
		r.amount = sqlite3_column_int64(st, 3);
		dbrow_copy(st, 4, r.method, sizeof r.method);
		r.reference = dbrow_dup(st, 5);
		dbrow_copy(st, 6, r.status, sizeof r.status);
		r.reason = dbrow_dup(st, 7);
		r.refunded_at = sqlite3_column_int64(st, 8);
		rc = cb(&r, arg);
		refund_free(&r);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot list refunds"));
	sqlite3_finalize(st);
	return rc;
}

/* ------------------------------------------------------------ allocating */

int alloc_propose(struct db *db, int64_t customer_id, const char *currency, int64_t amount,
                  struct alloc_input **out, size_t *n)
{
	return alloc_propose_first(db, customer_id, currency, amount, NULL, 0, out, n);
}

/* take - append to *out what invoice id of balance bal takes of *amount. */
static void take(int64_t id, int64_t bal, int64_t *amount, struct alloc_input **out, size_t *n)
{
	int64_t t;

	if (bal <= 0 || *amount <= 0)
		return;
	t = bal < *amount ? bal : *amount;
	*out = xrealloc(*out, (*n + 1) * sizeof **out);
	(*out)[*n].invoice_id = id;
	(*out)[*n].amount = t;
	(*n)++;
	*amount -= t;
}

int alloc_propose_first(struct db *db, int64_t customer_id, const char *currency, int64_t amount,
                        const int64_t *first, size_t nfirst, struct alloc_input **out, size_t *n)
{
	sqlite3_stmt *st;
	struct alloc_input *open = NULL; /* every open invoice, oldest due first */
	size_t nopen = 0, i, k;
	int rc, step;

	*out = NULL;
	*n = 0;
	rc = db_prepare_cached(
	    db,
	    "SELECT id, balance FROM invoice WHERE customer_id = ? AND currency = ?"
	    " AND " INVOICE_OPEN_SQL("") " ORDER BY due_at, id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, customer_id);
	sqlite3_bind_text(st, 2, currency, -1, SQLITE_TRANSIENT);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		open = xrealloc(open, (nopen + 1) * sizeof *open);
		open[nopen].invoice_id = sqlite3_column_int64(st, 0);
		open[nopen].amount = sqlite3_column_int64(st, 1);
		nopen++;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the open invoices"));
	db_release(db, st);
	if (rc) {
		free(open);
		return rc;
	}
	for (k = 0; k < nfirst; k++)
		for (i = 0; i < nopen; i++)
			if (open[i].invoice_id == first[k] && open[i].amount > 0) {
				take(open[i].invoice_id, open[i].amount, &amount, out, n);
				open[i].amount = 0; /* taken: not again below */
			}
	for (i = 0; i < nopen; i++)
		take(open[i].invoice_id, open[i].amount, &amount, out, n);
	free(open);
	return 0;
}

/* What post_one checks, of the payment and of the invoice, as they are now. */
struct alloc_state {
	int64_t pay_customer, unallocated;
	char pay_status[24], pay_currency[4];
	int64_t inv_customer, balance;
	char inv_kind[16], inv_number[32], inv_status[16], inv_currency[4];
	int allow_overpay;
};

/* Read both in one step (this runs for every allocation posted); when one
 * of them does not exist, say which. */
static int read_alloc_state(struct db *db, int64_t pay_id, int64_t inv_id, struct alloc_state *s)
{
	sqlite3_stmt *st;
	struct payment p;
	struct invoice inv;
	int rc, step;

	rc = db_prepare_cached(
	    db,
	    "SELECT p.customer_id, p.amount - p.allocated - p.refunded, p.status, p.currency,"
	    " i.customer_id, i.balance, i.kind, i.number, i.status, i.currency, i.allow_overpay"
	    " FROM payment p, invoice i WHERE p.id = ?1 AND i.id = ?2",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, pay_id);
	sqlite3_bind_int64(st, 2, inv_id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		s->pay_customer = sqlite3_column_int64(st, 0);
		s->unallocated = sqlite3_column_int64(st, 1);
		dbrow_copy(st, 2, s->pay_status, sizeof s->pay_status);
		dbrow_copy(st, 3, s->pay_currency, sizeof s->pay_currency);
		s->inv_customer = sqlite3_column_int64(st, 4);
		s->balance = sqlite3_column_int64(st, 5);
		dbrow_copy(st, 6, s->inv_kind, sizeof s->inv_kind);
		dbrow_copy(st, 7, s->inv_number, sizeof s->inv_number);
		dbrow_copy(st, 8, s->inv_status, sizeof s->inv_status);
		dbrow_copy(st, 9, s->inv_currency, sizeof s->inv_currency);
		s->allow_overpay = sqlite3_column_int(st, 10);
	} else if (step != SQLITE_DONE) {
		rc = db_fail(db, _("cannot read the payment"));
	}
	db_release(db, st);
	if (rc || step == SQLITE_ROW)
		return rc;
	/* one of them is missing: the usual readers say which */
	if ((rc = payment_get(db, pay_id, &p)) != 0)
		return rc;
	payment_free(&p);
	if ((rc = invoice_get(db, inv_id, &inv)) != 0)
		return rc;
	invoice_free(&inv);
	return err_set(FD_EDB, _("cannot read the payment"));
}

/* Post one allocation of amount from payment pay_id to invoice inv_id after
 * checking every rule on the figures as they are now. */
static int post_one(struct db *db, int64_t pay_id, int fresh, int64_t inv_id, int64_t amount,
                    int64_t now, int64_t *alloc_id)
{
	struct alloc_state s;
	sqlite3_stmt *st;
	char a[MONEY_BUFSZ], b[MONEY_BUFSZ], who[64];
	int rc;

	if ((rc = read_alloc_state(db, pay_id, inv_id, &s)) != 0)
		return rc;
	/* a payment being recorded has no id worth naming: it may never exist */
	if (fresh)
		snprintf(who, sizeof who, "%s", _("the payment"));
	else
		snprintf(who, sizeof who, _("payment %lld"), (long long)pay_id);
	if (amount <= 0)
		rc = err_set(FD_EINVAL, _("an allocation must be greater than zero"));
	else if (payment_state_of(s.pay_status) == PAYMENT_VOID)
		rc = err_set(FD_ECONFLICT, _("payment %lld is void and cannot be allocated"),
		             (long long)pay_id);
	else if (strcmp(s.inv_kind, "invoice") != 0)
		rc = err_set(FD_EINVAL, _("%s is a credit note; payments settle invoices only"),
		             s.inv_number);
	else if (invoice_takes_nothing(invoice_state_of(s.inv_status)))
		rc = err_set(FD_ECONFLICT, _("invoice %s is %s and takes no payments"),
		             s.inv_number, s.inv_status);
	else if (s.inv_customer != s.pay_customer)
		rc = err_set(FD_EINVAL,
		             _("invoice %s belongs to customer %lld, but %s came from "
		               "customer %lld"),
		             s.inv_number, (long long)s.inv_customer, who,
		             (long long)s.pay_customer);
	else if (strcmp(s.inv_currency, s.pay_currency) != 0)
		rc = err_set(FD_EINVAL,
		             _("invoice %s is in %s but %s is in %s: currencies must match"),
		             s.inv_number, s.inv_currency, who, s.pay_currency);
	else if (amount > s.unallocated)
		rc = err_set(FD_EINVAL, _("%s has only %s %s unallocated; it cannot give %s to %s"),
		             who, fmt(s.unallocated, s.pay_currency, a), s.pay_currency,
		             fmt(amount, s.pay_currency, b), s.inv_number);
	else if (!alloc_fits_invoice(amount, s.balance, s.allow_overpay))
		rc = err_set(FD_EINVAL,
		             _("invoice %s has only %s %s left to pay; %s would overpay it (keep "
		               "the rest on the payment as the customer's credit)"),
		             s.inv_number, fmt(s.balance < 0 ? 0 : s.balance, s.inv_currency, a),
		             s.inv_currency, fmt(amount, s.inv_currency, b));
	if (rc)
		return rc;
	rc = db_prepare_cached(
	    db,
	    "INSERT INTO payment_allocation (payment_id, invoice_id, amount, created_at)"
	    " VALUES (?, ?, ?, ?)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, pay_id);
	sqlite3_bind_int64(st, 2, inv_id);
	sqlite3_bind_int64(st, 3, amount);
	sqlite3_bind_int64(st, 4, now);
	if ((rc = db_run_cached(db, st, _("cannot post the allocation"))) != 0)
		return rc;
	*alloc_id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

/* Post the allocations asked for (or the automatic proposal) from pay_id. */
static int post_all(struct db *db, int64_t pay_id, int fresh, const struct alloc_input *allocs,
                    size_t n, int auto_alloc, struct idem_result *res)
{
	struct alloc_input *prop = NULL;
	int64_t now = clock_now(), id;
	size_t i;
	int rc = 0;

	if (auto_alloc) {
		struct payment p;

		if ((rc = payment_get(db, pay_id, &p)) != 0)
			return rc;
		if (payment_is_void(&p))
			rc =
			    err_set(FD_ECONFLICT, _("payment %lld is void and cannot be allocated"),
			            (long long)p.id);
		else
			rc = alloc_propose(db, p.customer_id, p.currency, p.unallocated, &prop, &n);
		payment_free(&p);
		if (rc)
			return rc;
		allocs = prop;
	}
	for (i = 0; i < n && !rc; i++) {
		rc = post_one(db, pay_id, fresh, allocs[i].invoice_id, allocs[i].amount, now, &id);
		if (!rc)
			idem_result_add(res, id);
	}
	free(prop);
	return rc;
}

static int check_allocs(const struct alloc_input *allocs, size_t n, int auto_alloc)
{
	size_t i;

	if (auto_alloc && n)
		return err_set(FD_EINVAL,
		               _("give allocations or ask for the automatic ones, not both"));
	for (i = 0; i < n; i++) {
		if (allocs[i].invoice_id <= 0)
			return err_set(FD_EINVAL, _("bad invoice in allocation %zu"), i + 1);
		if (allocs[i].amount <= 0)
			return err_set(FD_EINVAL, _("an allocation must be greater than zero"));
		if (allocs[i].amount > MONEY_DOC_MAX)
			return err_set(FD_EINVAL, _("the amount is too large"));
	}
	return 0;
}

static void canon_allocs(struct strbuf *sb, const struct alloc_input *allocs, size_t n,
                         int auto_alloc)
{
	size_t i;

	sb_printf(sb, "auto=%d\n", auto_alloc);
	for (i = 0; i < n; i++)
		sb_printf(sb, "alloc=%lld:%lld\n", (long long)allocs[i].invoice_id,
		          (long long)allocs[i].amount);
}

struct record_ctx {
	const struct payment_input *in;
	const char *currency;
	int64_t received_at;
	const struct alloc_input *allocs;
	size_t n;
	int auto_alloc;
};

static void bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static int record_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct record_ctx *r = arg;
	const struct payment_input *in = r->in;
	sqlite3_stmt *st;
	int64_t now = clock_now();
	int rc, found;

	rc = db_prepare_cached(db, "SELECT 1 FROM customer WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, in->customer_id);
	found = sqlite3_step(st) == SQLITE_ROW;
	db_release(db, st);
	if (!found)
		return err_set(FD_ENOTFOUND, _("there is no customer %lld"),
		               (long long)in->customer_id);
	/* a closed day takes nothing the desk posts; the channel's confirmed
	 * card money is the channel's (drawer.h) */
	if (!in->channel_ref &&
	    (rc = day_refuse_in(db, r->received_at, _("a payment is not dated into it"))) != 0)
		return rc;
	rc = db_prepare_cached(
	    db,
	    "INSERT INTO payment (customer_id, method, reference, received_at, currency,"
	    " amount, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, in->customer_id);
	sqlite3_bind_text(st, 2, in->method, -1, SQLITE_TRANSIENT);
	bind_opt(st, 3, in->reference);
	sqlite3_bind_int64(st, 4, r->received_at);
	sqlite3_bind_text(st, 5, r->currency, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, in->amount);
	bind_opt(st, 7, in->note);
	sqlite3_bind_int64(st, 8, now);
	sqlite3_bind_int64(st, 9, now);
	if ((rc = db_run_cached(db, st, _("cannot record the payment"))) != 0)
		return rc;
	res->id = sqlite3_last_insert_rowid(db_sqlite(db));
	/* cash goes into the desk's open drawer, in this same transaction */
	if ((rc = drawer_take_in(db, res->id)) != 0)
		return rc;
	return post_all(db, res->id, 1, r->allocs, r->n, r->auto_alloc, res);
}

/* How many whole shop days before today (clock_now()) received_at is; 0
 * for today. */
static int64_t days_back(int64_t received_at)
{
	int64_t today = clock_day_start(clock_now()), day = clock_day_start(received_at);

	/* a day is 23 to 25 hours long: round to the nearest whole one */
	return day < today ? (today - day + 43200) / 86400 : 0;
}

/* The permissions of taking a payment received at received_at (0: now):
 * payment.take, and payment.backdate up to the days it lies back. */
static int require_take(struct db *db, int64_t received_at, const char *subject)
{
	int64_t n = received_at ? days_back(received_at) : 0;
	int rc = control_require(db, PERM_PAYMENT_TAKE, 0, subject);

	if (!rc && n >= 1)
		rc = control_require(db, PERM_PAYMENT_BACKDATE, n, subject);
	return rc;
}

/* record_tx for a person (payment_record): asks first. */
static int record_checked_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct record_ctx *r = arg;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "record a payment for customer %lld",
	         (long long)r->in->customer_id);
	if ((rc = require_take(db, r->received_at, subject)))
		return rc;
	return record_tx(db, arg, res);
}

/* Check a payment request as far as it can be checked before the write
 * transaction; fill r (currency, time received) and append the request's
 * canonical text to canon. */
static int record_prepare(const struct payment_input *in, const struct alloc_input *allocs,
                          size_t n, int auto_alloc, int64_t now, struct record_ctx *r,
                          struct strbuf *canon)
{
	const struct currency *cur;
	int rc;

	memset(r, 0, sizeof *r);
	r->in = in;
	r->allocs = allocs;
	r->n = n;
	r->auto_alloc = auto_alloc;
	r->currency = in->currency ? in->currency : config_get("currency", "USD");
	cur = currency_find(r->currency);
	if (!cur)
		return err_set(FD_EINVAL, _("unknown currency '%.10s'"), r->currency);
	r->currency = cur->code;
	if (in->customer_id <= 0)
		return err_set(FD_EINVAL, _("a payment needs the customer it came from"));
	if (in->amount <= 0)
		return err_set(FD_EINVAL, _("the amount of a payment must be greater than zero"));
	if (in->amount > MONEY_DOC_MAX)
		return err_set(FD_EINVAL, _("the amount is too large"));
	if (!payment_method_valid(in->method))
		return err_set(FD_EINVAL,
		               _("the method must be cash, check, card, bank_transfer or other"));
	if ((rc = check_reference(in->reference, in->channel_ref)) != 0)
		return rc;
	/* a channel payment's note is ours ("card payment order ..."), not typed */
	if (in->note && (rc = (in->channel_ref ? text_check_id : text_check)(
	                     in->note, _("the note"), 2000, 1)) != 0)
		return rc;
	r->received_at = in->received_at ? in->received_at : now;
	if (r->received_at >= clock_add_days(clock_day_start(now), 1))
		return err_set(FD_EINVAL, _("a payment cannot be received after today"));
	if ((rc = check_allocs(allocs, n, auto_alloc)) != 0)
		return rc;

	sb_printf(canon,
	          "customer=%lld\ncurrency=%s\namount=%lld\nmethod=%s\nreference=%s\n"
	          "received=%lld\nnote=%s\n",
	          (long long)in->customer_id, r->currency, (long long)in->amount, in->method,
	          in->reference ? in->reference : "", (long long)in->received_at,
	          in->note ? in->note : "");
	canon_allocs(canon, allocs, n, auto_alloc);
	return 0;
}

int payment_record(struct db *db, const struct payment_input *in, const struct alloc_input *allocs,
                   size_t n, int auto_alloc, const char *idem_key, struct idem_result *res)
{
	struct record_ctx r;
	struct strbuf canon = {0};
	int rc;

	memset(res, 0, sizeof *res);
	rc = record_prepare(in, allocs, n, auto_alloc, clock_now(), &r, &canon);
	if (!rc)
		rc = idem_run(db, idem_key, "pay record", sb_cstr(&canon), record_checked_tx, &r,
		              res);
	sb_free(&canon);
	return rc;
}

/* Run one of the *_tx bodies inside the caller's transaction; *id gets its
 * result id. */
static int run_in(struct db *db, int (*fn)(struct db *, void *, struct idem_result *), void *arg,
                  int64_t *id)
{
	struct idem_result res = {0};
	int rc = fn(db, arg, &res);

	if (!rc && id)
		*id = res.id;
	idem_result_free(&res);
	return rc;
}

int payment_record_in(struct db *db, const struct payment_input *in,
                      const struct alloc_input *allocs, size_t n, int64_t *id)
{
	struct record_ctx r;
	struct strbuf canon = {0};
	int rc;

	rc = record_prepare(in, allocs, n, 0, clock_now(), &r, &canon);
	sb_free(&canon);
	return rc ? rc : run_in(db, record_tx, &r, id);
}

#define BATCH_CACHE_KIB 32768 /* page cache of a batch, at least */

/* Say which payment of a batch a refusal is about (err_msg is rewritten). */
static int batch_refusal(int rc, size_t i, size_t n)
{
	char *why = xstrdup(err_msg());

	err_set(rc, _("payment %zu of %zu: %s"), i + 1, n, why);
	free(why);
	return rc;
}

struct batch_ctx {
	struct record_ctx *r;
	size_t n;
	size_t refused; /* which payment was refused; n when none */
};

static int batch_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct batch_ctx *b = arg;
	struct idem_result one;
	int64_t oldest = 0;
	char subject[64];
	size_t i;
	int rc;

	/* asked once for the batch, for its payment dated furthest back */
	for (i = 0; i < b->n; i++)
		if (!oldest || b->r[i].received_at < oldest)
			oldest = b->r[i].received_at;
	snprintf(subject, sizeof subject, "record %zu payments", b->n);
	if ((rc = require_take(db, oldest, subject)))
		return rc;
	res->ids = xmalloc(b->n * sizeof *res->ids);
	for (i = 0; i < b->n; i++) {
		memset(&one, 0, sizeof one);
		rc = record_tx(db, &b->r[i], &one);
		if (!rc)
			res->ids[res->n++] = one.id;
		idem_result_free(&one);
		if (rc) {
			b->refused = i;
			return batch_refusal(rc, i, b->n);
		}
	}
	res->id = b->n ? res->ids[0] : 0;
	return 0;
}

int payment_record_batch(struct db *db, const struct payment_batch_item *items, size_t n,
                         const char *idem_key, struct idem_result *res, size_t *refused)
{
	struct batch_ctx b = {NULL, n, n};
	struct strbuf canon = {0};
	int64_t now = clock_now();
	size_t i;
	int rc = 0;

	memset(res, 0, sizeof *res);
	if (refused)
		*refused = n;
	if (n == 0)
		return err_set(FD_EINVAL, _("there are no payments to record"));
	if (n > PAYMENT_BATCH_MAX)
		return err_set(FD_EINVAL, _("at most %d payments can be recorded at once"),
		               PAYMENT_BATCH_MAX);
	b.r = xcalloc(n, sizeof *b.r);
	sb_printf(&canon, "batch=%zu\n", n);
	for (i = 0; i < n && !rc; i++) {
		rc = record_prepare(&items[i].in, items[i].allocs, items[i].n, items[i].auto_alloc,
		                    now, &b.r[i], &canon);
		if (rc) {
			b.refused = i;
			rc = batch_refusal(rc, i, n);
		}
		sb_printf(&canon, "--\n");
	}
	if (!rc) {
		/* a batch dirties far more pages than a desk's default 2 MiB page
		 * cache holds, and spilling them in the middle of the transaction
		 * costs about a sixth of its time (bench/MONEY-RESULTS.md): use at
		 * least 32 MiB while it runs */
		int64_t cache;

		db_cache_grow(db, BATCH_CACHE_KIB, &cache);
		rc = idem_run(db, idem_key, "pay batch", sb_cstr(&canon), batch_tx, &b, res);
		db_cache_restore(db, cache);
	}
	sb_free(&canon);
	free(b.r);
	if (refused)
		*refused = rc ? b.refused : n;
	return rc;
}

struct post_ctx {
	int64_t payment_id;
	const struct alloc_input *allocs;
	size_t n;
	int auto_alloc;
};

static int post_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct post_ctx *p = arg;
	struct payment pay;
	int rc;

	if ((rc = payment_get(db, p->payment_id, &pay)) != 0)
		return rc;
	payment_free(&pay);
	res->id = p->payment_id;
	if ((rc = post_all(db, p->payment_id, 0, p->allocs, p->n, p->auto_alloc, res)) != 0)
		return rc;
	if (res->n == 0)
		return err_set(FD_ECONFLICT,
		               _("nothing to allocate: payment %lld has nothing unallocated or the "
		                 "customer has no open invoice in its currency"),
		               (long long)p->payment_id);
	return 0;
}

/* post_tx for a person (alloc_post): asks first. */
static int post_checked_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct post_ctx *p = arg;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "allocate payment %lld", (long long)p->payment_id);
	if ((rc = control_require(db, PERM_PAYMENT_TAKE, 0, subject)))
		return rc;
	return post_tx(db, arg, res);
}

int alloc_post(struct db *db, int64_t payment_id, const struct alloc_input *allocs, size_t n,
               int auto_alloc, const char *idem_key, struct idem_result *res)
{
	struct post_ctx p = {payment_id, allocs, n, auto_alloc};
	struct strbuf canon = {0};
	int rc;

	memset(res, 0, sizeof *res);
	if ((rc = check_allocs(allocs, n, auto_alloc)) != 0)
		return rc;
	if (!auto_alloc && n == 0)
		return err_set(FD_EINVAL, _("give at least one allocation"));
	sb_printf(&canon, "payment=%lld\n", (long long)payment_id);
	canon_allocs(&canon, allocs, n, auto_alloc);
	rc = idem_run(db, idem_key, "pay allocate", sb_cstr(&canon), post_checked_tx, &p, res);
	sb_free(&canon);
	return rc;
}

int alloc_post_in(struct db *db, int64_t payment_id, const struct alloc_input *allocs, size_t n)
{
	struct post_ctx p = {payment_id, allocs, n, 0};
	int rc;

	if ((rc = check_allocs(allocs, n, 0)) != 0)
		return rc;
	if (n == 0)
		return err_set(FD_EINVAL, _("give at least one allocation"));
	return run_in(db, post_tx, &p, NULL);
}

/* ------------------------------------------------------------ credit */

struct credit_pay {
	int64_t id, unallocated, received_at;
};

struct credit_list {
	const char *currency;
	struct credit_pay *p;
	size_t n, cap;
	int64_t total;
	int rc;
};

static int credit_row(const struct payment *p, void *arg)
{
	struct credit_list *l = arg;

	if (strcmp(p->currency, l->currency) || payment_is_void(p) || p->unallocated <= 0)
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->p = xrealloc(l->p, l->cap * sizeof *l->p);
	}
	l->p[l->n].id = p->id;
	l->p[l->n].unallocated = p->unallocated;
	l->p[l->n].received_at = p->received_at;
	l->n++;
	if ((l->rc = money_add(l->total, p->unallocated, &l->total)))
		return 1;
	return 0;
}

/* The customer's payments holding credit in currency, oldest first. */
static int credit_read(struct db *db, int64_t customer_id, const char *currency,
                       struct credit_list *l)
{
	int rc;
	size_t i;

	memset(l, 0, sizeof *l);
	l->currency = currency;
	rc = list_rows(db, customer_id, credit_row, l);
	if (!rc && l->rc)
		rc = l->rc;
	/* payment_list gives the newest first */
	for (i = 0; i < l->n / 2; i++) {
		struct credit_pay t = l->p[i];

		l->p[i] = l->p[l->n - 1 - i];
		l->p[l->n - 1 - i] = t;
	}
	return rc;
}

static const char *currency_or_default(const char *currency)
{
	const struct currency *cur =
	    currency_find(currency && *currency ? currency : config_get("currency", "USD"));

	return cur ? cur->code : NULL;
}

int credit_available(struct db *db, int64_t customer_id, const char *currency, int64_t *amount)
{
	struct credit_list l;
	const char *code = currency_or_default(currency);
	int rc;

	*amount = 0;
	if (!code)
		return err_set(FD_EINVAL, _("unknown currency '%.10s'"), currency ? currency : "");
	rc = credit_read(db, customer_id, code, &l);
	if (!rc)
		*amount = l.total;
	free(l.p);
	return rc;
}

struct credit_settle_ctx {
	int64_t customer_id;
	const char *currency;
	const struct alloc_input *allocs;
	size_t n;
	const struct payment_input *in;
};

/* The allocations of payment_id after allocation id since, into res (the
 * ids of what was just posted). */
static int new_allocs(struct db *db, int64_t payment_id, int64_t since, struct idem_result *res)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare_cached(
	         db,
	         "SELECT id FROM payment_allocation WHERE payment_id = ?1 AND id > ?2"
	         " AND reverses_id IS NULL ORDER BY id",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, payment_id);
	sqlite3_bind_int64(st, 2, since);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		idem_result_add(res, sqlite3_column_int64(st, 0));
	rc = step == SQLITE_DONE ? 0 : db_fail(db, _("cannot read the allocations"));
	db_release(db, st);
	return rc;
}

static int credit_settle_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct credit_settle_ctx *c = arg;
	struct credit_list l;
	struct alloc_input *rest, *chunk;
	int64_t need = 0, last = 0, id;
	char subject[80];
	size_t i, k, nrest;
	int rc;

	snprintf(subject, sizeof subject, "settle invoices of customer %lld from credit",
	         (long long)c->customer_id);
	if ((rc = require_take(db, c->in ? c->in->received_at : 0, subject)))
		return rc;
	rest = xcalloc(c->n + 1, sizeof *rest);
	chunk = xcalloc(c->n + 1, sizeof *chunk);
	for (i = 0; i < c->n; i++)
		rest[i] = c->allocs[i];
	nrest = c->n;
	if ((rc = credit_read(db, c->customer_id, c->currency, &l)))
		goto out;
	if ((rc = db_one_int(db, "SELECT coalesce(max(id), 0) FROM payment_allocation", &last)))
		goto out;
	/* the credit, oldest payment first, over the invoices in order */
	for (k = 0; k < l.n; k++) {
		int64_t left = l.p[k].unallocated;
		size_t nc = 0;

		for (i = 0; i < nrest && left > 0; i++) {
			int64_t take = rest[i].amount < left ? rest[i].amount : left;

			if (take <= 0)
				continue;
			chunk[nc].invoice_id = rest[i].invoice_id;
			chunk[nc].amount = take;
			nc++;
			rest[i].amount -= take;
			left -= take;
		}
		if (nc && (rc = alloc_post_in(db, l.p[k].id, chunk, nc)))
			goto out;
		if (nc && (rc = new_allocs(db, l.p[k].id, last, res)))
			goto out;
	}
	/* what the credit did not cover comes from the new payment */
	for (i = 0, k = 0; i < nrest; i++)
		if (rest[i].amount > 0) {
			rest[k++] = rest[i];
			if ((rc = money_add(need, rest[i].amount, &need)))
				goto out;
		}
	if (need > 0 && !c->in) {
		char m[MONEY_BUFSZ];

		rc =
		    err_set(FD_EINVAL,
		            _("the customer's credit leaves %s of these allocations unpaid: record "
		              "a payment for the rest"),
		            money_text(need, c->currency, 0, m));
		goto out;
	}
	if (c->in) {
		if ((rc = payment_record_in(db, c->in, rest, k, &id)))
			goto out;
		res->id = id;
		if (k && (rc = new_allocs(db, id, last, res)))
			goto out;
	}
out:
	free(l.p);
	free(rest);
	free(chunk);
	return rc;
}

int payment_settle(struct db *db, int64_t customer_id, const char *currency,
                   const struct alloc_input *allocs, size_t n, const struct payment_input *in,
                   const char *idem_key, struct idem_result *res)
{
	struct credit_settle_ctx c = {customer_id, NULL, allocs, n, in};
	struct strbuf canon = {0};
	const char *in_cur;
	int rc;

	memset(res, 0, sizeof *res);
	if (!(c.currency = currency_or_default(currency)))
		return err_set(FD_EINVAL, _("unknown currency '%.10s'"), currency ? currency : "");
	if (customer_id <= 0)
		return err_set(FD_EINVAL, _("a payment needs the customer it came from"));
	if ((rc = check_allocs(allocs, n, 0)) != 0)
		return rc;
	if (n == 0)
		return err_set(FD_EINVAL, _("give at least one allocation"));
	in_cur = in ? currency_or_default(in->currency) : NULL;
	if (in && (in->customer_id != customer_id || !in_cur || strcmp(in_cur, c.currency)))
		return err_set(
		    FD_EINVAL, "%s",
		    _("the new payment must be the same customer's, in the same currency"));
	sb_printf(&canon, "customer=%lld\ncurrency=%s\nuse_credit=1\n", (long long)customer_id,
	          c.currency);
	canon_allocs(&canon, allocs, n, 0);
	if (in)
		sb_printf(&canon, "amount=%lld\nmethod=%s\nreference=%s\nreceived=%lld\nnote=%s\n",
		          (long long)in->amount, in->method ? in->method : "",
		          in->reference ? in->reference : "", (long long)in->received_at,
		          in->note ? in->note : "");
	rc = idem_run(db, idem_key, "pay settle", sb_cstr(&canon), credit_settle_tx, &c, res);
	sb_free(&canon);
	return rc;
}

/* ------------------------------------------------------------ reversals */

struct reverse_ctx {
	int64_t alloc_id;
	const char *reason;
};

static int reverse_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct reverse_ctx *r = arg;
	struct allocation a;
	sqlite3_stmt *st;
	int rc;

	if ((rc = alloc_get(db, r->alloc_id, &a)) != 0)
		return rc;
	if (a.reverses_id)
		rc =
		    err_set(FD_EINVAL,
		            _("allocation %lld is itself a reversal (of allocation %lld); post the "
		              "allocation again instead"),
		            (long long)a.id, (long long)a.reverses_id);
	else if (a.reversed_by)
		rc = err_set(FD_ECONFLICT, _("allocation %lld was already reversed by %lld"),
		             (long long)a.id, (long long)a.reversed_by);
	if (rc)
		goto out;
	rc = db_prepare_cached(
	    db,
	    "INSERT INTO payment_allocation (payment_id, invoice_id, amount, reverses_id,"
	    " reason, created_at) VALUES (?, ?, ?, ?, ?, ?)",
	    &st);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, a.payment_id);
	sqlite3_bind_int64(st, 2, a.invoice_id);
	sqlite3_bind_int64(st, 3, a.amount);
	sqlite3_bind_int64(st, 4, a.id);
	sqlite3_bind_text(st, 5, r->reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 6, clock_now());
	db_set_reason(db, r->reason);
	rc = db_run_cached(db, st, _("cannot post the reversal"));
	db_set_reason(db, NULL);
	if (!rc)
		res->id = sqlite3_last_insert_rowid(db_sqlite(db));
out:
	alloc_free(&a);
	return rc;
}

/* by_program: the reason was written by the program (a channel refund names
 * the channel's refund id), not typed by a person: the card-number rule of
 * typed text does not apply (see text_check_id). */
static int reverse_check(const char *reason, int by_program)
{
	if (!reason || !*reason)
		return err_set(FD_EINVAL, _("a reversal needs a reason"));
	if (by_program)
		return text_check_id(reason, _("the reason"), 400, 0);
	return text_check(reason, _("the reason"), 400, 0);
}

static int reverse_in(struct db *db, int64_t alloc_id, const char *reason, int by_program,
                      int64_t *id)
{
	struct reverse_ctx r = {alloc_id, reason};
	int rc;

	if ((rc = reverse_check(reason, by_program)) != 0)
		return rc;
	return run_in(db, reverse_tx, &r, id);
}

/* reverse_tx for a person (alloc_reverse): asks void. */
static int reverse_checked_tx(struct db *db, void *arg, struct idem_result *res)
{
	struct reverse_ctx *r = arg;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "reverse allocation %lld", (long long)r->alloc_id);
	if ((rc = control_require(db, PERM_VOID, 0, subject)))
		return rc;
	return reverse_tx(db, arg, res);
}

int alloc_reverse_in(struct db *db, int64_t alloc_id, const char *reason, int64_t *id)
{
	return reverse_in(db, alloc_id, reason, 0, id);
}

int alloc_reverse(struct db *db, int64_t alloc_id, const char *reason, const char *idem_key,
                  struct idem_result *res)
{
	struct reverse_ctx r = {alloc_id, reason};
	char canon[600];
	int rc;

	memset(res, 0, sizeof *res);
	if ((rc = reverse_check(reason, 0)) != 0)
		return rc;
	snprintf(canon, sizeof canon, "allocation=%lld\nreason=%s\n", (long long)alloc_id, reason);
	return idem_run(db, idem_key, "pay reverse", canon, reverse_checked_tx, &r, res);
}

/* ------------------------------------------------------------ refunds */

struct refund_ctx {
	const struct refund_input *in;
};

static int refund_tx(struct db *db, void *arg, struct idem_result *res);

/* refund_tx for a person (refund_post): asks refund up to its amount. */
static int refund_checked_tx(struct db *db, void *arg, struct idem_result *res)
{
	const struct refund_input *in = ((struct refund_ctx *)arg)->in;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "refund of payment %lld", (long long)in->payment_id);
	if ((rc = control_require(db, PERM_REFUND, in->amount, subject)))
		return rc;
	return refund_tx(db, arg, res);
}

static int refund_tx(struct db *db, void *arg, struct idem_result *res)
{
	const struct refund_input *in = ((struct refund_ctx *)arg)->in;
	struct payment p;
	sqlite3_stmt *st;
	char a[MONEY_BUFSZ], b[MONEY_BUFSZ];
	int64_t now = clock_now();
	int rc;

	if ((rc = payment_get(db, in->payment_id, &p)) != 0)
		return rc;
	if (payment_is_void(&p))
		rc = err_set(FD_ECONFLICT, _("payment %lld is void; there is nothing to refund"),
		             (long long)p.id);
	else if (in->amount > p.amount - p.refunded)
		rc =
		    err_set(FD_EINVAL,
		            _("payment %lld has only %s %s left to refund (its amount less earlier "
		              "refunds)"),
		            (long long)p.id, fmt(p.amount - p.refunded, p.currency, a), p.currency);
	else if (in->amount > p.unallocated)
		rc = err_set(FD_ECONFLICT,
		             _("only %s %s of payment %lld is unallocated; to refund %s, first "
		               "reverse allocations of it (frontdesk pay reverse ALLOCATION)"),
		             fmt(p.unallocated, p.currency, a), p.currency, (long long)p.id,
		             fmt(in->amount, p.currency, b));
	if (!rc && !in->channel_ref)
		rc = day_refuse_in(db, now, _("no refund is posted into it"));
	if (rc)
		goto out;
	rc = db_prepare_cached(
	    db,
	    "INSERT INTO refund (payment_id, amount, method, reference, status, reason,"
	    " refunded_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
	    &st);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, p.id);
	sqlite3_bind_int64(st, 2, in->amount);
	sqlite3_bind_text(st, 3, in->method ? in->method : p.method, -1, SQLITE_TRANSIENT);
	bind_opt(st, 4, in->reference);
	sqlite3_bind_text(st, 5, refund_state_word(in->pending ? REFUND_PENDING : REFUND_SUCCEEDED),
	                  -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, in->reason, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 7, now);
	sqlite3_bind_int64(st, 8, now);
	sqlite3_bind_int64(st, 9, now);
	db_set_reason(db, in->reason);
	rc = db_run_cached(db, st, _("cannot post the refund"));
	db_set_reason(db, NULL);
	if (!rc) {
		res->id = sqlite3_last_insert_rowid(db_sqlite(db));
		/* cash given back leaves the desk's open drawer */
		rc = drawer_refund_in(db, res->id);
	}
out:
	payment_free(&p);
	return rc;
}

static int refund_check(const struct refund_input *in)
{
	int rc;

	if (in->amount <= 0)
		return err_set(FD_EINVAL, _("the amount of a refund must be greater than zero"));
	if (in->amount > MONEY_DOC_MAX)
		return err_set(FD_EINVAL, _("the amount is too large"));
	if (in->method && !payment_method_valid(in->method))
		return err_set(FD_EINVAL,
		               _("the method must be cash, check, card, bank_transfer or other"));
	if ((rc = check_reference(in->reference, in->channel_ref)) != 0)
		return rc;
	if (!in->reason || !*in->reason)
		return err_set(FD_EINVAL, _("a refund needs a reason"));
	/* a channel refund's reason names the channel's refund id */
	if ((rc = (in->channel_ref ? text_check_id : text_check)(in->reason, _("the reason"), 400,
	                                                         0)) != 0)
		return rc;
	return 0;
}

int refund_post_in(struct db *db, const struct refund_input *in, int64_t *id)
{
	struct refund_ctx r = {in};
	int rc;

	if ((rc = refund_check(in)) != 0)
		return rc;
	return run_in(db, refund_tx, &r, id);
}

int refund_post(struct db *db, const struct refund_input *in, const char *idem_key,
                struct idem_result *res)
{
	struct refund_ctx r = {in};
	struct strbuf canon = {0};
	int rc;

	memset(res, 0, sizeof *res);
	if ((rc = refund_check(in)) != 0)
		return rc;
	sb_printf(&canon,
	          "payment=%lld\namount=%lld\nmethod=%s\nreference=%s\nreason=%s\n"
	          "pending=%d\n",
	          (long long)in->payment_id, (long long)in->amount, in->method ? in->method : "",
	          in->reference ? in->reference : "", in->reason, in->pending);
	rc = idem_run(db, idem_key, "refund", sb_cstr(&canon), refund_checked_tx, &r, res);
	sb_free(&canon);
	return rc;
}

struct settle_ctx {
	int64_t id;
	int succeeded;
	const char *reason;
};

static int settle_tx(struct db *db, void *arg)
{
	struct settle_ctx *s = arg;
	enum refund_state to = s->succeeded ? REFUND_SUCCEEDED : REFUND_FAILED;
	sqlite3_stmt *st;
	char status[16] = "", subject[64];
	int64_t amount = 0;
	int rc, step;

	rc = db_prepare(db, "SELECT status, amount FROM refund WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, s->id);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		dbrow_copy(st, 0, status, sizeof status);
		amount = sqlite3_column_int64(st, 1);
	} else if (step == SQLITE_DONE)
		rc = err_set(FD_ENOTFOUND, _("there is no refund %lld"), (long long)s->id);
	else
		rc = db_fail(db, _("cannot read the refund"));
	sqlite3_finalize(st);
	if (rc)
		return rc;
	/* settling a refund by hand is for one who may make it */
	snprintf(subject, sizeof subject, "settle refund %lld", (long long)s->id);
	if ((rc = control_require(db, PERM_REFUND, amount, subject)))
		return rc;
	/* only a pending refund moves (to succeeded or failed) */
	if (!states_may_move(&refund_states, refund_state_of(status), to))
		return err_set(FD_ECONFLICT, _("refund %lld is %s, not pending"), (long long)s->id,
		               status);
	rc = db_prepare(db, "UPDATE refund SET status = ?, updated_at = ? WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, refund_state_word(to), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, clock_now());
	sqlite3_bind_int64(st, 3, s->id);
	db_set_reason(db, s->reason);
	rc = db_run(db, st, _("cannot settle the refund"));
	db_set_reason(db, NULL);
	/* a pending cash refund that succeeded leaves the drawer now */
	return rc || to != REFUND_SUCCEEDED ? rc : drawer_refund_in(db, s->id);
}

int refund_settle(struct db *db, int64_t refund_id, int succeeded, const char *reason)
{
	struct settle_ctx s = {refund_id, succeeded, reason};
	int rc;

	if (reason && (rc = text_check(reason, _("the reason"), 400, 1)) != 0)
		return rc;
	return db_write(db, settle_tx, &s);
}

/* ------------------------------------------------------------ voiding */

struct pvoid_ctx {
	int64_t id;
	const char *reason;
};

static int pvoid_tx(struct db *db, void *arg)
{
	struct pvoid_ctx *v = arg;
	struct payment p;
	sqlite3_stmt *st;
	char subject[64];
	int rc;

	snprintf(subject, sizeof subject, "void payment %lld", (long long)v->id);
	if ((rc = control_require(db, PERM_VOID, 0, subject)))
		return rc;
	if ((rc = payment_get(db, v->id, &p)) != 0)
		return rc;
	if (payment_is_void(&p))
		rc = err_set(FD_ECONFLICT, _("payment %lld is already void"), (long long)p.id);
	else if (p.allocated || p.refunded)
		rc = err_set(FD_ECONFLICT,
		             _("payment %lld has allocations or refunds; reverse the allocations "
		               "(frontdesk pay reverse) and refund instead of voiding"),
		             (long long)p.id);
	if (!rc)
		rc = day_refuse_in(db, p.received_at, _("a payment received in it is not voided"));
	if (!rc)
		rc = day_refuse_in(db, clock_now(), _("no payment is voided in it"));
	payment_free(&p);
	/* cash voided leaves its drawer (refused once the drawer was counted) */
	if (!rc)
		rc = drawer_void_in(db, v->id);
	if (rc)
		return rc;
	rc = db_prepare(db, "UPDATE payment SET status = 'void', updated_at = ? WHERE id = ?", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, clock_now());
	sqlite3_bind_int64(st, 2, v->id);
	db_set_reason(db, v->reason);
	rc = db_run(db, st, _("cannot void the payment"));
	db_set_reason(db, NULL);
	return rc;
}

int payment_void(struct db *db, int64_t id, const char *reason)
{
	struct pvoid_ctx v = {id, reason};
	int rc;

	if (!reason || !*reason)
		return err_set(FD_EINVAL, _("voiding a payment needs a reason"));
	if ((rc = text_check(reason, _("the reason"), 400, 0)) != 0)
		return rc;
	return db_write(db, pvoid_tx, &v);
}

/* ---------------------------------------------------------------- room for a refund */

struct live {
	int64_t id, invoice_id, amount;
};

struct lives {
	struct live *v;
	size_t n, cap;
};

static int collect_live(const struct allocation *a, void *arg)
{
	struct lives *l = arg;

	if (a->reverses_id || a->reversed_by)
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	l->v[l->n].id = a->id;
	l->v[l->n].invoice_id = a->invoice_id;
	l->v[l->n].amount = a->amount;
	l->n++;
	return 0;
}

/* Free `need` of payment pay_id by reversing its newest live allocations;
 * what a reversal frees beyond the need is allocated again to the same
 * invoice. Explicit rows both ways, so the invoice's history shows it. */
static int free_allocated(struct db *db, int64_t pay_id, int64_t need, const char *reason)
{
	struct lives l = {0};
	size_t j;
	int rc;

	if ((rc = alloc_list(db, pay_id, 0, collect_live, &l)) != 0)
		goto out;
	for (j = l.n; j-- > 0 && need > 0;) {
		int64_t back = l.v[j].amount < need ? l.v[j].amount : need;

		if ((rc = reverse_in(db, l.v[j].id, reason, 1, NULL)) != 0)
			goto out;
		need -= back;
		if (l.v[j].amount > back) {
			struct alloc_input again = {l.v[j].invoice_id, l.v[j].amount - back};

			if ((rc = alloc_post_in(db, pay_id, &again, 1)) != 0)
				goto out;
		}
	}
	if (need > 0)
		rc = err_set(FD_ECONFLICT, _("payment %lld cannot free enough to refund"),
		             (long long)pay_id);
out:
	free(l.v);
	return rc;
}

int refund_make_room_in(struct db *db, int64_t pay_id, int64_t amount, const char *reason)
{
	struct payment p;
	int rc;

	if ((rc = payment_get(db, pay_id, &p)) != 0)
		return rc;
	if (p.unallocated < amount)
		rc = free_allocated(db, pay_id, amount - p.unallocated, reason);
	payment_free(&p);
	return rc;
}

/* ---------------------------------------------------------------- retention */

int payment_retention_blocker(struct db *db, int64_t customer_id, char *why, size_t n)
{
	char id[32];
	int rc;

	rc = retention_first(db,
	                     "SELECT id FROM payment WHERE customer_id = ?1"
	                     " AND " RETENTION_PAYMENT_CREDIT " ORDER BY id LIMIT 1",
	                     customer_id, id, sizeof id);
	if (rc == 1) {
		snprintf(why, n, _("payment %s is not all allocated: the customer has credit"), id);
		return 1;
	}
	if (rc < 0)
		return rc;
	rc = retention_first(
	    db,
	    "SELECT r.id FROM refund r JOIN payment y ON y.id = r.payment_id"
	    " WHERE y.customer_id = ?1 AND r.status = 'pending' ORDER BY r.id LIMIT 1",
	    customer_id, id, sizeof id);
	if (rc == 1)
		snprintf(why, n, _("refund %s is still pending"), id);
	return rc;
}

#define CUSTOMER_PAYMENTS "SELECT id FROM payment WHERE customer_id = ?1"

/* CHANNEL_REF(t, pay): whether row t (a payment or a refund, or a history
 * row of one; pay names its payment's id) carries the channel's own id as
 * its reference: a card payment or card refund of a payment taken through
 * the channel (a card order's, or one recorded from the channel's
 * settlement data). That id is the channel's, not the customer's, and
 * check, the reconciliation and the channel's records match on it: a purge
 * keeps it. A reference a person typed (a check number) is cleared. */
#define CHANNEL_REF(t, pay)                                                                        \
	"(" t ".method = 'card' AND (EXISTS (SELECT 1 FROM pay_order o WHERE o.payment_id = " pay  \
	") OR EXISTS (SELECT 1 FROM reconciliation_payment r WHERE r.payment_id = " pay ")))"
#define PAYMENT_CHANNEL_REF     CHANNEL_REF("payment", "payment.id")
#define PAYMENT_HIS_CHANNEL_REF CHANNEL_REF("payment_his", "payment_his.id")
#define REFUND_CHANNEL_REF      CHANNEL_REF("refund", "refund.payment_id")
#define REFUND_HIS_CHANNEL_REF  CHANNEL_REF("refund_his", "refund_his.payment_id")

int payment_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE payment SET reference = CASE WHEN " PAYMENT_CHANNEL_REF " THEN reference END,"
	     " note = NULL WHERE customer_id = ?1 AND (note IS NOT NULL"
	     " OR (reference IS NOT NULL AND NOT " PAYMENT_CHANNEL_REF "))",
	     N_("cannot clear the payments")},
	    {"UPDATE payment_his SET reference = CASE WHEN " PAYMENT_HIS_CHANNEL_REF
	     " THEN reference END, note = NULL WHERE customer_id = ?1 AND (note IS NOT NULL"
	     " OR (reference IS NOT NULL AND NOT " PAYMENT_HIS_CHANNEL_REF "))",
	     N_("cannot clear the payments' history")},
	    {"UPDATE payment_allocation SET reason = NULL WHERE payment_id IN (" CUSTOMER_PAYMENTS
	     ")"
	     " AND reason IS NOT NULL",
	     N_("cannot clear the allocations")},
	    {"UPDATE payment_allocation_his SET reason = NULL"
	     " WHERE payment_id IN (" CUSTOMER_PAYMENTS ") AND reason IS NOT NULL",
	     N_("cannot clear the allocations' history")},
	    {"UPDATE refund SET reference = CASE WHEN " REFUND_CHANNEL_REF " THEN reference END,"
	     " reason = '" RETENTION_REMOVED "' WHERE payment_id IN (" CUSTOMER_PAYMENTS ")"
	     " AND ((reference IS NOT NULL AND NOT " REFUND_CHANNEL_REF ")"
	     " OR reason IS NOT '" RETENTION_REMOVED "')",
	     N_("cannot clear the refunds")},
	    {"UPDATE refund_his SET reference = CASE WHEN " REFUND_HIS_CHANNEL_REF
	     " THEN reference END, reason = '" RETENTION_REMOVED "'"
	     " WHERE payment_id IN (" CUSTOMER_PAYMENTS ")"
	     " AND ((reference IS NOT NULL AND NOT " REFUND_HIS_CHANNEL_REF ")"
	     " OR reason IS NOT '" RETENTION_REMOVED "')",
	     N_("cannot clear the refunds' history")},
	    {"UPDATE status_flow SET reason = NULL WHERE entity = 'payment' AND reason IS NOT NULL"
	     " AND entity_id IN (" CUSTOMER_PAYMENTS ")",
	     N_("cannot clear the payments' status reasons")},
	    {"UPDATE status_flow SET reason = NULL WHERE entity = 'refund' AND reason IS NOT NULL"
	     " AND entity_id IN (SELECT id FROM refund WHERE payment_id IN (" CUSTOMER_PAYMENTS
	     "))",
	     N_("cannot clear the refunds' status reasons")},
	};

	return retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}
