/*
 * pane-rows.h - the rows that several panes show alike: a job's line item
 * and an invoice, in the same columns wherever they stand (the visit pane
 * under each job, the job pane).
 */
#ifndef FD_PANE_ROWS_H
#define FD_PANE_ROWS_H

#include <stdint.h>

#include "pane.h"

struct line_item;

/* pane_item_row - a line item: kind, description, quantity x unit price,
 * amount; selectable as kind with the item's id. indent is 2 or 4 (the
 * blanks before it). */
void pane_item_row(struct pane *p, int kind, int indent, const struct line_item *li);

/* pane_invoice_row - invoice id: number, status, total, paid (dropped
 * below 92 columns) and balance; selectable as kind with its id. indent as
 * above. 0, or the error of reading it (nothing is added then). */
int pane_invoice_row(struct pane *p, int kind, int indent, int64_t id);

#endif
