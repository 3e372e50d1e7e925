/*
 * permit.c - the permission each screen action asks for (see permit.h).
 * Actions that read or move about ask for nothing here: what a view reads
 * is the core's to refuse.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "action.h"
#include "db.h"
#include "i18n.h"
#include "permit.h"

static const struct {
	enum action a;
	enum perm p;
} asks[] = {
    {ACT_SEARCH, PERM_RECORDS_VIEW},
    {ACT_HISTORY, PERM_RECORDS_VIEW},
    {ACT_LINE_HISTORY, PERM_RECORDS_VIEW},
    {ACT_CUSTOMERS, PERM_RECORDS_VIEW},
    {ACT_AGING, PERM_REPORTS},
    {ACT_TAKINGS, PERM_REPORTS},
    {ACT_SERVICES, PERM_CATALOGUE},
    {ACT_RECON, PERM_RECON},
    {ACT_COMMISSIONS, PERM_REPORTS},
    {ACT_RETENTION, PERM_RETENTION},
    {ACT_CAL_NEW_VISIT, PERM_BOOKING},
    {ACT_VISIT_MOVE, PERM_BOOKING},
    {ACT_VISIT_CANCEL, PERM_BOOKING},
    {ACT_VISIT_NO_SHOW, PERM_BOOKING},
    {ACT_DISP_REASSIGN, PERM_BOOKING},
    {ACT_DEAD_RETRY, PERM_OPERATIONS},
    {ACT_DEAD_IGNORE, PERM_OPERATIONS},
    {ACT_CUST_NEW, PERM_CUSTOMER_EDIT},
    {ACT_CUST_EDIT, PERM_CUSTOMER_EDIT},
    {ACT_SVC_NEW, PERM_CATALOGUE},
    {ACT_SVC_EDIT, PERM_CATALOGUE},
    {ACT_SVC_RETIRE, PERM_CATALOGUE},
    {ACT_RECON_ACCEPT, PERM_RECON},
    {ACT_RECON_RECORD, PERM_RECON},
    {ACT_RECON_CORRECT, PERM_RECON},
    {ACT_RET_RESTORE, PERM_RETENTION},
    {ACT_RET_HOLD, PERM_RETENTION},
    {ACT_RET_RELEASE, PERM_RETENTION},
    {ACT_NEW_JOB, PERM_JOB_EDIT},
    {ACT_NEW_ITEM, PERM_JOB_EDIT},
    {ACT_ISSUE_INVOICE, PERM_INVOICE_ISSUE},
    {ACT_RECORD_PAYMENT, PERM_PAYMENT_TAKE},
    {ACT_CARD_CHARGE, PERM_PAYMENT_TAKE},
    {ACT_DRAWER, PERM_PAYMENT_TAKE},
    {ACT_REVERSE_ALLOC, PERM_VOID},
    {ACT_REFUND, PERM_REFUND},
    {ACT_VOID_INVOICE, PERM_VOID},
    {ACT_CREDIT_NOTE, PERM_CREDIT_NOTE},
    {ACT_LOG_CONTACT, PERM_VISIT_WORK},
    {ACT_SEND_ESTIMATE, PERM_JOB_EDIT},
};

enum perm permit_of(enum action a)
{
	size_t i;

	for (i = 0; i < sizeof asks / sizeof asks[0]; i++)
		if (asks[i].a == a)
			return asks[i].p;
	return PERM_N;
}

/* A manager may approve these on the spot. */
static int approvable(enum perm p)
{
	return p == PERM_REFUND || p == PERM_VOID || p == PERM_CREDIT_NOTE || p == PERM_DISCOUNT;
}

/* What staff_may answered, by action (0: not asked yet, 1 offered, 2 not):
 * the key bar asks at every redraw, and permissions change only when
 * another session commits (permit_forget). */
static unsigned char known[ACT_N];

/* On the head office's screen (no shop database) the keys of the whole
 * screen are these; a view's own keys are its own. */
static const enum action hq_globals[] = {ACT_QUIT,    ACT_HELP,  ACT_BACK,    ACT_REDRAW,
                                         ACT_MESSAGE, ACT_AGING, ACT_TAKINGS, ACT_COMMISSIONS};

static int hq_offered(enum action a)
{
	const struct action_def *d = action_def(a);
	size_t i;

	if (!d || d->ctx != CTX_GLOBAL)
		return 1;
	for (i = 0; i < sizeof hq_globals / sizeof hq_globals[0]; i++)
		if (hq_globals[i] == a)
			return 1;
	return 0;
}

int permit_offered(struct db *db, enum action a)
{
	enum perm p = permit_of(a);

	if (!db)
		return hq_offered(a);
	if (p == PERM_N || approvable(p))
		return 1;
	if ((unsigned)a >= ACT_N)
		return staff_may(db, p, 0);
	if (!known[a])
		known[a] = staff_may(db, p, 0) ? 1 : 2;
	return known[a] == 1;
}

void permit_forget(void)
{
	memset(known, 0, sizeof known);
}

const char *permit_refusal(struct db *db, enum action a, char *buf, size_t n)
{
	if (!db) {
		snprintf(
		    buf, n, "%s",
		    _("The head office's screen shows the chain's reports only (aging, takings, "
		      "commissions): ? lists their keys; the rest is at each shop."));
		return buf;
	}
	snprintf(buf, n,
	         _("%s may not do this here: it needs the permission \"%s\" (%s); "
	           "frontdesk staff show says what you may do"),
	         db_operator(), perm_word(permit_of(a)), perm_help(permit_of(a)));
	return buf;
}
