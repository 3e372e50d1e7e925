/*
 * action.c - the action table and the key map (see action.h).
 *
 * Invariant: after keymap_reset() or any successful keymap_bind(), each
 * action has at most ACTION_MAX_KEYS keys, and keymap_lookup() returns the
 * first action of the asked contexts (in table order) that has the key.
 * The default table binds no key twice within one context (unit-tested).
 */
#include <config.h>

#include <curses.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "action.h"
#include "i18n.h"

static const struct action_def table[] = {
    /* global */
    {ACT_QUIT, "quit", "Q", N_("Quit frontdesk"), CTX_GLOBAL, N_("Quit")},
    {ACT_HELP, "help", "? F1", N_("Show every key of this view"), CTX_GLOBAL, N_("Help")},
    {ACT_BACK, "back", "q Esc", N_("Go back to where you were (q at the top quits)"), CTX_GLOBAL,
     N_("Back")},
    {ACT_REDRAW, "redraw", "C-l", N_("Redraw the whole screen"), CTX_GLOBAL, NULL},
    {ACT_SEARCH, "search", "/", N_("Search customers, phone numbers and invoice numbers"),
     CTX_GLOBAL, N_("Search")},
    {ACT_DEAD_LETTERS, "dead-letters", "D", N_("Show the payment channel's dead letters"),
     CTX_GLOBAL, N_("Dead letters")},
    {ACT_HISTORY, "history", "H",
     N_("Show the history of this pane's record (in a list: the selected one): who changed "
        "what, when and why"),
     CTX_GLOBAL, N_("History")},
    {ACT_MESSAGE, "message", "M F2",
     N_("Show the last message in full, wrapped (the message line cuts a long one)"), CTX_GLOBAL,
     NULL},
    {ACT_CUSTOMERS, "customers", "c",
     N_("Show the customers: type to find one by name, phone number or address"), CTX_GLOBAL,
     N_("Customers")},
    {ACT_AGING, "aging", "A", N_("Show the receivables aging: who owes what, by days past due"),
     CTX_GLOBAL, NULL},
    {ACT_TAKINGS, "takings", "T", N_("Show the takings of the last seven days and their payments"),
     CTX_GLOBAL, NULL},
    {ACT_SERVICES, "services", "S",
     N_("Show the service catalogue: add, edit and retire the services offered"), CTX_GLOBAL, NULL},
    {ACT_RECON, "reconciliation", "B",
     N_("Show the reconciliation against the payment channel: batches, differences, parked "
        "events, payouts"),
     CTX_GLOBAL, NULL},
    {ACT_COMMISSIONS, "commissions", "W",
     N_("Show the commissions of the month: each technician's lines, credits and refunds"),
     CTX_GLOBAL, NULL},
    {ACT_RETENTION, "retention", "L",
     N_("Show customer data retention: proposals, soft-deleted customers, holds, certificates"),
     CTX_GLOBAL, NULL},
    {ACT_APPROVALS, "approvals", "Y",
     N_("Show the requests waiting for a manager's approval: approve or refuse each"), CTX_GLOBAL,
     NULL},
    {ACT_DRAWER, "drawer", "$",
     N_("The cash drawer of this desk: open it with a float; once open, pay out or close it "
        "with a blind count"),
     CTX_GLOBAL, NULL},
    /* calendar */
    {ACT_CAL_LEFT, "calendar-left", "h Left", N_("Previous day"), CTX_CAL, NULL},
    {ACT_CAL_RIGHT, "calendar-right", "l Right", N_("Next day"), CTX_CAL, NULL},
    {ACT_CAL_UP, "calendar-up", "k Up",
     N_("Month view: the week before; week and day views: the previous visit"), CTX_CAL, NULL},
    {ACT_CAL_DOWN, "calendar-down", "j Down",
     N_("Month view: the week after; week and day views: the next visit"), CTX_CAL, NULL},
    {ACT_CAL_NEXT_WEEK, "calendar-next-week", "J", N_("Next week"), CTX_CAL, NULL},
    {ACT_CAL_PREV_WEEK, "calendar-prev-week", "K", N_("Previous week"), CTX_CAL, NULL},
    {ACT_CAL_NEXT_MONTH, "calendar-next-month", "PgDn", N_("Next month"), CTX_CAL, NULL},
    {ACT_CAL_PREV_MONTH, "calendar-prev-month", "PgUp", N_("Previous month"), CTX_CAL, NULL},
    {ACT_CAL_TODAY, "calendar-today", "t", N_("Go to today"), CTX_CAL, N_("Today")},
    {ACT_CAL_GOTO, "calendar-goto", "g", N_("Go to a date"), CTX_CAL, N_("Go to")},
    {ACT_CAL_MONTH, "calendar-month", "m", N_("Show the month"), CTX_CAL, N_("Month")},
    {ACT_CAL_WEEK, "calendar-week", "w", N_("Show the week"), CTX_CAL, N_("Week")},
    {ACT_CAL_DAY, "calendar-day", "d", N_("Show the day"), CTX_CAL, N_("Day")},
    {ACT_CAL_OPEN, "calendar-open", "Enter",
     N_("Open the selected day (month view) or visit (week and day views)"), CTX_CAL, N_("Open")},
    {ACT_CAL_NEW_VISIT, "calendar-new-visit", "a",
     N_("Book a visit: customer, services and time in one form"), CTX_CAL, N_("Book")},
    {ACT_VISIT_MOVE, "visit-move", "v",
     N_("Move the visit to another day and time (keeps its length)"), CTX_CAL | CTX_PANE,
     N_("Move")},
    {ACT_VISIT_CANCEL, "visit-cancel", "X", N_("Cancel the visit (asks why, then y)"),
     CTX_CAL | CTX_PANE, NULL},
    {ACT_VISIT_NO_SHOW, "visit-no-show", "N",
     N_("Mark the visit a no-show: nobody was there (asks why, then y)"), CTX_CAL | CTX_PANE, NULL},
    {ACT_CAL_DISPATCH, "calendar-dispatch", "b",
     N_("Show the dispatch board of the day: its slots by resource, one column each"), CTX_CAL,
     N_("Board")},
    {ACT_DISP_REASSIGN, "dispatch-reassign", "r",
     N_("Dispatch board: move the selected visit to another resource (choose it, then Enter)"),
     CTX_CAL, N_("Resource")},
    /* dead letters: before the panes, whose r and i they override there */
    {ACT_DEAD_RETRY, "dead-retry", "r", N_("Retry the selected inbound event"), CTX_DEAD,
     N_("Retry")},
    {ACT_DEAD_IGNORE, "dead-ignore", "i", N_("Ignore the selected inbound event (asks why)"),
     CTX_DEAD, N_("Ignore")},
    /* the customer list: before the panes, whose a and e they override there */
    {ACT_CUST_NEW, "customer-new", "a", N_("Add a new customer (a form)"), CTX_CUSTS,
     N_("New customer")},
    {ACT_CUST_EDIT, "customer-edit", "e", N_("Edit the selected customer"), CTX_CUSTS, N_("Edit")},
    {ACT_CUST_QUERY, "customer-focus", "Tab", N_("Move between the search line and the list"),
     CTX_CUSTS, N_("List/search")},
    /* the service catalogue: before the panes, whose a and e they override there */
    {ACT_SVC_NEW, "service-new", "a", N_("Add a service to the catalogue (a form)"), CTX_SVCS,
     N_("New service")},
    {ACT_SVC_EDIT, "service-edit", "e", N_("Edit the selected service"), CTX_SVCS, N_("Edit")},
    {ACT_SVC_RETIRE, "service-retire", "R",
     N_("Retire the selected service: it is no longer offered (asks y first)"), CTX_SVCS,
     N_("Retire")},
    {ACT_SVC_ALL, "service-show-retired", "t", N_("Show or hide the retired services"), CTX_SVCS,
     N_("Show retired")},
    /* reconciliation: before the panes, whose a, p and f they override there */
    {ACT_RECON_ACCEPT, "recon-accept", "a",
     N_("Accept the selected difference as it is, with a note (then y)"), CTX_RECON, N_("Accept")},
    {ACT_RECON_RECORD, "recon-record", "p",
     N_("Record the payment a channel-only difference shows, or claim the selected parked "
        "event (whose, which invoices, a note, then y)"),
     CTX_RECON, N_("Record")},
    {ACT_RECON_CORRECT, "recon-correct", "f",
     N_("Post a correcting entry for the selected difference (a note, then y)"), CTX_RECON,
     N_("Correct")},
    /* the commissions view */
    {ACT_COMM_PREV, "commissions-prev-month", "[", N_("The month before"), CTX_COMM,
     N_("Month before")},
    {ACT_COMM_NEXT, "commissions-next-month", "]", N_("The month after"), CTX_COMM,
     N_("Month after")},
    /* the retention view: before the panes, whose r it overrides there */
    {ACT_RET_SECTION, "retention-section", "Tab",
     N_("The next section: soft-deleted customers, proposals, certificates"), CTX_RET,
     N_("Section")},
    {ACT_RET_SOFT, "retention-soft-deleted", "1",
     N_("The soft-deleted customers, with their purge dates"), CTX_RET, NULL},
    {ACT_RET_PROPOSALS, "retention-proposals", "2",
     N_("What a retention run would do now, with the reasons (nothing is written)"), CTX_RET, NULL},
    {ACT_RET_CERTS, "retention-certificates", "3", N_("The deletion certificates of the purges"),
     CTX_RET, NULL},
    {ACT_RET_RESTORE, "retention-restore", "r",
     N_("Restore the selected soft-deleted customer: back in lists and search (asks y first)"),
     CTX_RET, N_("Restore")},
    {ACT_RET_HOLD, "retention-hold", "h",
     N_("Put a legal hold on the selected customer, with a reason: never deleted while held"),
     CTX_RET, N_("Hold")},
    {ACT_RET_RELEASE, "retention-release", "u",
     N_("Release the selected customer's hold (asks y first)"), CTX_RET, N_("Release")},
    /* the approvals queue (before the panes': its n refuses) */
    {ACT_APPR_YES, "approval-yes", "y", N_("Approve the selected request"), CTX_APPROVE,
     N_("Approve")},
    {ACT_APPR_NO, "approval-no", "n", N_("Refuse the selected request"), CTX_APPROVE, N_("Refuse")},
    /* panes */
    {ACT_UP, "up", "k Up", N_("Move up"), CTX_PANE, NULL},
    {ACT_DOWN, "down", "j Down", N_("Move down"), CTX_PANE, NULL},
    {ACT_PAGE_UP, "page-up", "PgUp", N_("Move up a page"), CTX_PANE, NULL},
    {ACT_PAGE_DOWN, "page-down", "PgDn", N_("Move down a page"), CTX_PANE, NULL},
    {ACT_TOP, "top", "Home g", N_("Go to the first line"), CTX_PANE, NULL},
    {ACT_BOTTOM, "bottom", "End G", N_("Go to the last line"), CTX_PANE, NULL},
    {ACT_OPEN, "open", "Enter", N_("Open the selected line"), CTX_PANE, N_("Open")},
    {ACT_EDIT, "edit", "e", N_("Edit the selected visit, job or line item"), CTX_PANE, N_("Edit")},
    {ACT_NEW_JOB, "new-job", "n", N_("Add a job to this visit"), CTX_PANE, N_("New job")},
    {ACT_NEW_ITEM, "new-item", "a", N_("Add a line item to the selected job"), CTX_PANE,
     N_("Add item")},
    {ACT_ISSUE_INVOICE, "issue-invoice", "i",
     N_("Issue an invoice for what is not yet billed of the selected job"), CTX_PANE,
     N_("Invoice")},
    {ACT_RECORD_PAYMENT, "record-payment", "p",
     N_("Record a payment from this customer and allocate it"), CTX_PANE, N_("Pay")},
    {ACT_REVERSE_ALLOC, "reverse-allocation", "x", N_("Reverse the selected allocation"), CTX_PANE,
     N_("Reverse")},
    {ACT_REFUND, "refund", "r", N_("Refund (part of) this payment"), CTX_PANE, N_("Refund")},
    {ACT_CARD_CHARGE, "card-charge", "C",
     N_("Card payment through the payment channel for this invoice"), CTX_PANE, N_("Card")},
    {ACT_LOG_CONTACT, "log-contact", "l",
     N_("Log a call, message or visit at the counter with this customer (a form)"), CTX_PANE,
     N_("Log contact")},
    {ACT_VOID_INVOICE, "void-invoice", "V",
     N_("Void this invoice while nothing is paid on it (asks why, then y)"), CTX_PANE, NULL},
    {ACT_CREDIT_NOTE, "credit-note", "w",
     N_("Issue a credit note against this invoice (an amount, why, then y)"), CTX_PANE, NULL},
    {ACT_PRINT, "print", "P",
     N_("Print this invoice or receipt to a file: text (80 or 42 columns) or PDF"), CTX_PANE,
     N_("Print")},
    {ACT_SEND_ESTIMATE, "send-estimate", "E",
     N_("Send the selected job's estimate for the customer's signature (e-sign provider)"),
     CTX_PANE, N_("Estimate")},
    {ACT_ON_THE_WAY, "on-the-way", "O",
     N_("Tell the visit's customers we are on our way (a text message, else an e-mail)"), CTX_PANE,
     NULL},
    {ACT_LINE_HISTORY, "line-history", "h",
     N_("Show the history of the selected line's record (an allocation, a line item, a job)"),
     CTX_PANE, NULL},
    {ACT_PREVIEW, "preview", "o",
     N_("Preview this invoice or receipt on the screen as it prints (P there prints it)"), CTX_PANE,
     N_("Preview")},
    /* forms */
    {ACT_FORM_SUBMIT, "form-submit", "Enter", N_("Check the form and post it"), CTX_FORM,
     N_("Post")},
    {ACT_FORM_CANCEL, "form-cancel", "Esc", N_("Close the form; nothing is posted"), CTX_FORM,
     N_("Cancel")},
    {ACT_FORM_NEXT, "form-next", "Tab Down", N_("Next field"), CTX_FORM, N_("Next field")},
    {ACT_FORM_PREV, "form-prev", "BTab Up", N_("Previous field"), CTX_FORM, NULL},
    {ACT_FORM_LEFT, "form-left", "Left", N_("Cursor left; previous choice"), CTX_FORM, NULL},
    {ACT_FORM_RIGHT, "form-right", "Right", N_("Cursor right; next choice"), CTX_FORM, NULL},
    {ACT_FORM_HOME, "form-home", "Home C-a", N_("Cursor to the start of the field"), CTX_FORM,
     NULL},
    {ACT_FORM_END, "form-end", "End C-e", N_("Cursor to the end of the field"), CTX_FORM, NULL},
    {ACT_FORM_BACKSPACE, "form-backspace", "Backspace",
     N_("Delete the character before the cursor"), CTX_FORM, NULL},
    {ACT_FORM_DELETE, "form-delete", "Del C-d", N_("Delete the character under the cursor"),
     CTX_FORM, NULL},
    {ACT_FORM_CLEAR, "form-clear", "C-u", N_("Clear the field"), CTX_FORM, NULL},
    {ACT_FORM_PROPOSE, "form-propose", "F5 C-p",
     N_("Propose the allocations again (oldest due first)"), CTX_FORM, NULL},
    {ACT_FORM_CONFIRM, "form-confirm", "y", N_("Yes: confirm what the form asks"), CTX_FORM,
     N_("Yes")},
};

#define NTABLE (sizeof table / sizeof table[0])

static int keys[ACT_N][ACTION_MAX_KEYS];
static int nkeys[ACT_N];
static int ready;

static const struct {
	const char *name;
	int key;
} named[] = {
    {"Enter", '\n'},
    {"Esc", 27},
    {"Tab", '\t'},
    {"Space", ' '},
    {"Backspace", KEYC_BS},
    {"BTab", KEYC_FN | KEY_BTAB},
    {"Del", KEYC_FN | KEY_DC},
    {"Ins", KEYC_FN | KEY_IC},
    {"Up", KEYC_FN | KEY_UP},
    {"Down", KEYC_FN | KEY_DOWN},
    {"Left", KEYC_FN | KEY_LEFT},
    {"Right", KEYC_FN | KEY_RIGHT},
    {"Home", KEYC_FN | KEY_HOME},
    {"End", KEYC_FN | KEY_END},
    {"PgUp", KEYC_FN | KEY_PPAGE},
    {"PgDn", KEYC_FN | KEY_NPAGE},
    /* curses spellings, accepted on input */
    {"KEY_ENTER", '\n'},
    {"KEY_BACKSPACE", KEYC_BS},
    {"KEY_BTAB", KEYC_FN | KEY_BTAB},
    {"KEY_DC", KEYC_FN | KEY_DC},
    {"KEY_IC", KEYC_FN | KEY_IC},
    {"KEY_UP", KEYC_FN | KEY_UP},
    {"KEY_DOWN", KEYC_FN | KEY_DOWN},
    {"KEY_LEFT", KEYC_FN | KEY_LEFT},
    {"KEY_RIGHT", KEYC_FN | KEY_RIGHT},
    {"KEY_HOME", KEYC_FN | KEY_HOME},
    {"KEY_END", KEYC_FN | KEY_END},
    {"KEY_PPAGE", KEYC_FN | KEY_PPAGE},
    {"KEY_NPAGE", KEYC_FN | KEY_NPAGE},
};

const struct action_def *action_table(size_t *n)
{
	*n = NTABLE;
	return table;
}

const struct action_def *action_def(enum action id)
{
	size_t i;

	for (i = 0; i < NTABLE; i++)
		if (table[i].id == id)
			return &table[i];
	return NULL;
}

enum action action_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NTABLE; i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].id;
	return ACT_NONE;
}

/* The one spelling of keys that several terminals send differently. */
static int normalize(int key)
{
	if (key == '\r')
		return '\n';
	if (key == 127 || key == 8)
		return KEYC_BS;
	return key;
}

int keyc_parse(const char *name)
{
	size_t i, len = strlen(name);
	mbstate_t st;
	wchar_t wc;
	size_t k;

	if (len == 0)
		return -1;
	for (i = 0; i < sizeof named / sizeof named[0]; i++)
		if (strcmp(named[i].name, name) == 0)
			return named[i].key;
	if (len == 3 && name[0] == 'C' && name[1] == '-' && name[2] >= 'a' && name[2] <= 'z')
		return normalize(name[2] - 'a' + 1);
	if (name[0] == 'F' && len <= 3 && len >= 2) {
		int n = atoi(name + 1);

		if (n >= 1 && n <= 12 && (len == 2 || (name[1] >= '1' && name[1] <= '9')))
			return KEYC_FN | KEY_F(n);
		return -1;
	}
	memset(&st, 0, sizeof st);
	k = mbrtowc(&wc, name, len, &st);
	if (k != len || wc <= ' ' || wc == 127)
		return -1;
	return (int)wc;
}

void keyc_name(int key, char *buf, size_t n)
{
	size_t i;

	if (n == 0)
		return;
	for (i = 0; i < sizeof named / sizeof named[0]; i++)
		if (named[i].key == key) {
			snprintf(buf, n, "%s", named[i].name);
			return;
		}
	if (key >= 1 && key <= 26) {
		snprintf(buf, n, "C-%c", 'a' + key - 1);
	} else if ((key & KEYC_FN) && (key & ~KEYC_FN) >= KEY_F(1) &&
	           (key & ~KEYC_FN) <= KEY_F(12)) {
		snprintf(buf, n, "F%d", (key & ~KEYC_FN) - KEY_F0);
	} else if (!(key & KEYC_FN) && key > ' ') {
		char mb[MB_LEN_MAX + 1];
		mbstate_t st;
		size_t k;

		memset(&st, 0, sizeof st);
		k = wcrtomb(mb, (wchar_t)key, &st);
		if (k == (size_t)-1)
			snprintf(buf, n, "U+%04X", (unsigned)key);
		else {
			mb[k] = '\0';
			snprintf(buf, n, "%s", mb);
		}
	} else {
		snprintf(buf, n, "#%d", key);
	}
}

/* Parse blank-separated key names into out; -1 on an unknown name. */
static int parse_keys(const char *text, int *out, int *nout, char *bad, size_t badn)
{
	char buf[256], *save = NULL, *tok;
	int n = 0;

	snprintf(buf, sizeof buf, "%s", text);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		int k = keyc_parse(tok);

		if (k < 0) {
			if (bad)
				snprintf(bad, badn, "%s", tok);
			return -1;
		}
		if (n < ACTION_MAX_KEYS)
			out[n++] = k;
	}
	*nout = n;
	return 0;
}

void keymap_reset(void)
{
	size_t i;

	memset(nkeys, 0, sizeof nkeys);
	for (i = 0; i < NTABLE; i++)
		parse_keys(table[i].defaults, keys[table[i].id], &nkeys[table[i].id], NULL, 0);
	ready = 1;
}

static void ensure(void)
{
	if (!ready)
		keymap_reset();
}

int keymap_bind(enum action a, const char *text, char *bad, size_t badn)
{
	int k[ACTION_MAX_KEYS], n = 0;

	ensure();
	if (a <= ACT_NONE || a >= ACT_N || !action_def(a))
		return -1;
	if (parse_keys(text, k, &n, bad, badn))
		return -1;
	memcpy(keys[a], k, sizeof k);
	nkeys[a] = n;
	return 0;
}

static int bound_to(enum action a, int key)
{
	int i;

	for (i = 0; i < nkeys[a]; i++)
		if (keys[a][i] == key)
			return 1;
	return 0;
}

static void append(char *warn, size_t n, const char *line)
{
	size_t len = strlen(warn);

	if (len + 1 < n)
		snprintf(warn + len, n - len, "%s%s", len ? "\n" : "", line);
}

int keymap_load(const char *path, char *warn, size_t n)
{
	FILE *f = fopen(path, "r");
	char line[512], msg[600];
	int lineno = 0, problems = 0;
	size_t i, j;

	ensure();
	if (n)
		warn[0] = '\0';
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		char *s = line, *eq, *name, *e;
		char bad[64] = "";
		enum action a;

		lineno++;
		s[strcspn(s, "\r\n")] = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0' || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			snprintf(msg, sizeof msg,
			         _("%s:%d: expected 'action = keys'; line ignored"), path, lineno);
			append(warn, n, msg);
			problems++;
			continue;
		}
		*eq = '\0';
		name = s;
		e = eq;
		while (e > name && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		a = action_by_name(name);
		if (a == ACT_NONE) {
			snprintf(msg, sizeof msg,
			         _("%s:%d: no action is called '%.40s'; line ignored"), path,
			         lineno, name);
			append(warn, n, msg);
			problems++;
			continue;
		}
		if (keymap_bind(a, eq + 1, bad, sizeof bad)) {
			snprintf(msg, sizeof msg,
			         _("%s:%d: '%.40s' is not a key name; line ignored"), path, lineno,
			         bad);
			append(warn, n, msg);
			problems++;
		}
	}
	fclose(f);
	/* a key bound twice in one context: the first action in the table wins */
	for (i = 0; i < NTABLE; i++)
		for (j = i + 1; j < NTABLE; j++) {
			int k;

			if (!(table[i].ctx & table[j].ctx))
				continue;
			for (k = 0; k < nkeys[table[j].id]; k++)
				if (bound_to(table[i].id, keys[table[j].id][k])) {
					char kn[32];

					keyc_name(keys[table[j].id][k], kn, sizeof kn);
					snprintf(
					    msg, sizeof msg,
					    _("%s: key %s is bound to both %s and %s; %s wins"),
					    path, kn, table[i].name, table[j].name, table[i].name);
					append(warn, n, msg);
					problems++;
				}
		}
	return problems;
}

enum action keymap_lookup(int key, unsigned ctx)
{
	size_t i;

	ensure();
	key = normalize(key);
	for (i = 0; i < NTABLE; i++)
		if ((table[i].ctx & ctx) && table[i].ctx != CTX_GLOBAL &&
		    bound_to(table[i].id, key))
			return table[i].id;
	/* in a form printable keys are text: only function and control keys
	 * keep their global meaning there (F1 help, C-l redraw) */
	if ((ctx & CTX_FORM) && !(key & KEYC_FN) && key >= ' ')
		return ACT_NONE;
	for (i = 0; i < NTABLE; i++)
		if (table[i].ctx == CTX_GLOBAL && bound_to(table[i].id, key))
			return table[i].id;
	return ACT_NONE;
}

void keymap_keys(enum action a, const char *sep, char *buf, size_t n)
{
	size_t len = 0;
	int i;

	ensure();
	if (n == 0)
		return;
	buf[0] = '\0';
	if (a <= ACT_NONE || a >= ACT_N)
		return;
	for (i = 0; i < nkeys[a] && len + 1 < n; i++) {
		char kn[32];

		keyc_name(keys[a][i], kn, sizeof kn);
		snprintf(buf + len, n - len, "%s%s", i ? sep : "", kn);
		len = strlen(buf);
	}
}

int keymap_first_key(enum action a)
{
	ensure();
	if (a <= ACT_NONE || a >= ACT_N || nkeys[a] == 0)
		return -1;
	return keys[a][0];
}
