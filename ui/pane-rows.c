/*
 * pane-rows.c - a line item's and an invoice's row, the same in every pane
 * (see pane-rows.h). The figures are the core's (item.h, invoice.h); this
 * file only lays them out.
 */
#include <config.h>

#include <stdio.h>

#include "draw.h"
#include "fmt.h"
#include "i18n.h"
#include "invoice.h"
#include "item.h"
#include "pane-rows.h"
#include "theme.h"
#include "views.h"

/* The column tables must outlive the panes (pane_row keeps them): the
 * visit pane indents its jobs' rows by 4, the job pane by 2. Below 92
 * columns an invoice's "paid" gives way: the balance is what the desk
 * asks. */
/* clang-format off */
#define ITEM_TAIL {9, 0, AL_LEFT}, {16, 1, AL_LEFT}, {16, 0, AL_RIGHT}, {14, 0, AL_RIGHT}
#define INV_TAIL {16, 0, AL_LEFT}, {16, 0, AL_LEFT}, {17, 0, AL_RIGHT}, \
	{PANE_DROP(17), 0, AL_RIGHT}, {17, 1, AL_RIGHT}
/* clang-format on */

/* kind, description, qty x price, amount */
static const struct pane_col item_cols2[] = {{2, 0, AL_LEFT}, ITEM_TAIL};
static const struct pane_col item_cols4[] = {{4, 0, AL_LEFT}, ITEM_TAIL};
/* number, status, total, paid, balance */
static const struct pane_col inv_cols2[] = {{2, 0, AL_LEFT}, INV_TAIL};
static const struct pane_col inv_cols4[] = {{4, 0, AL_LEFT}, INV_TAIL};

void pane_item_row(struct pane *p, int kind, int indent, const struct line_item *li)
{
	char q[32], pr[FMT_MONEY], am[FMT_MONEY], qp[96];
	const char *cells[5];

	qty_format(li->qty_milli, q, sizeof q);
	snprintf(qp, sizeof qp, "%s x %s", q, fmt_money(li->unit_price, li->currency, pr));
	cells[0] = "";
	cells[1] = fmt_status(li->kind);
	cells[2] = li->description;
	cells[3] = qp;
	cells[4] = fmt_money(li->amount, li->currency, am);
	pane_row(p, kind, li->id, R_NORMAL, 5, indent > 2 ? item_cols4 : item_cols2, cells);
}

int pane_invoice_row(struct pane *p, int kind, int indent, int64_t id)
{
	struct invoice inv;
	char t[FMT_MONEY], pd[FMT_MONEY], bal[FMT_MONEY], lt[64], lp[64], lb[64];
	const char *cells[6];
	int rc = invoice_get(ui_db(), id, &inv);

	if (rc != 0)
		return rc;
	snprintf(lt, sizeof lt, "%s %s", _("total"), fmt_money(inv.total, inv.currency, t));
	snprintf(lp, sizeof lp, "%s %s", _("paid"), fmt_money(inv.paid, inv.currency, pd));
	snprintf(lb, sizeof lb, "%s %s", _("balance"),
	         fmt_money(invoice_owed(&inv), inv.currency, bal));
	cells[0] = "";
	cells[1] = inv.number;
	cells[2] = fmt_status(inv.status);
	cells[3] = lt;
	cells[4] = lp;
	cells[5] = lb;
	pane_row(p, kind, inv.id, R_NORMAL, 6, indent > 2 ? inv_cols4 : inv_cols2, cells);
	pane_cell_role(p, 2, theme_invoice_role(inv.status));
	invoice_free(&inv);
	return 0;
}
