/*
 * views.h - the constructors of the views, one per file, for whoever
 * pushes them. Each returns a new view (the loop frees it when popped), or
 * NULL after showing a message with ui_msg when it cannot open (a record
 * that no longer exists, a read-only database for a form).
 */
#ifndef FD_VIEWS_H
#define FD_VIEWS_H

#include <stdint.h>

#include "view.h"

struct pane;

/* view-calendar.c: the month, week and day views (the bottom of the stack) */
struct view *view_calendar_new(void);

/* view-help.c: every key of view `of` and the global ones */
struct view *view_help_new(struct view *of);

/* view-visit.c: a visit with its jobs, line items and invoices */
struct view *view_visit_new(int64_t appt_id);

/* view-job.c: a job with its visits, line items, invoices and what is left
 * to bill; the cursor starts on line item item_id (0: the first line) */
struct view *view_job_new(int64_t job_id, int64_t item_id);

/* view-preview.c: invoice (PRINT_INVOICE) or payment receipt
 * (PRINT_RECEIPT) id as print_text lays it out (80 columns, 42 in a
 * narrower window), scrollable; P there opens the print form at that width */
struct view *view_preview_new(int doc, int64_t id);

/* view-invoice.c: an invoice's lines, figures and allocations */
struct view *view_invoice_new(int64_t invoice_id);

/* view-estimate.c: an estimate sent for signature, its flow, its signed
 * document and the provider's evidence */
struct view *view_estimate_new(int64_t estimate_id);

/* view-payment.c: a payment with all its allocations, refunds and credit */
struct view *view_payment_new(int64_t payment_id);

/* view-customer.c: a customer's jobs, invoices and payments */
struct view *view_customer_new(int64_t customer_id);

/* view-customers.c: the customer list with its search line (typing
 * narrows it: name, phone number by its digits, address) */
struct view *view_customers_new(void);

/* view-services.c: the service catalogue (name, kind, default price and
 * minutes; the retired ones on request), where services are added, edited
 * and retired */
struct view *view_services_new(void);
/* view_aging_new / view_takings_new - receivables aging (A) and takings (T)
 * at a glance, with drill-down (view-money.c). */
struct view *view_aging_new(void);
struct view *view_takings_new(void);

/* view-commission.c: the commissions of a month by technician (W) */
struct view *view_commissions_new(void);

/* view-recon.c: reconciliation (B): batches, their differences, one
 * difference whole, parked events and payouts */
struct view *view_recon_new(void);

/* view-retention.c: customer data retention (L): the soft-deleted
 * customers with their purge dates, what a run would do, the deletion
 * certificates; restore, hold and release from there */
struct view *view_retention_new(void);

/* form-recon.c: resolve difference diff_id (RECON_FORM_ACCEPT, _RECORD,
 * _CORRECT) with a note and y; claim parked event event_id for a customer */
enum { RECON_FORM_ACCEPT = 1, RECON_FORM_RECORD, RECON_FORM_CORRECT, RECON_FORM_CLAIM };
struct view *form_recon_resolve(int64_t diff_id, int how);
struct view *form_recon_claim(int64_t event_id);

/* view-dispatch.c: the dispatch board of day (a local midnight): the
 * day's slots by resource, one column each (b from the calendar) */
struct view *view_dispatch_new(int64_t day);

/* view-search.c: the search prompt (its result list replaces it) */
struct view *view_search_new(void);

/* view-dead-list.c: the payment channel's dead letters (inbound events and
 * outbox commands given up) */
struct view *view_dead_new(void);
/* view_approvals_new - the requests waiting for a manager (view-approvals.c). */
struct view *view_approvals_new(void);

/* dead_retry - make inbound event inbox_id due again (inbox_retry) and say
 * the outcome on the message line; 0 when it was retried, else the core's
 * code (read-only screen: FD_EINVAL). */
int dead_retry(int64_t inbox_id);

/* view-dead-detail.c: one inbound event with every field and its raw payload */
struct view *view_event_new(int64_t inbox_id);

/* view-dead-detail.c: one outbox command with every field and its payload */
struct view *view_command_new(int64_t outbox_id);

/* view-paypage.c: the payment page of card order order_no as a QR code for
 * the customer to scan, following the order live (opened by the card form) */
struct view *view_paypage_new(const char *order_no);
/* view_paypage_of - the same for the card order with row id order_id
 * (Enter on a card order of the invoice pane); NULL after a message when
 * it cannot be read */
struct view *view_paypage_of(int64_t order_id);

/* view-message.c: text (the last message, copied) in full, wrapped to the
 * width; level gives it the message line's look */
struct view *view_message_new(const char *text, enum msg_level level);

/* view-history.c: the timeline of record id of kind (a history.h kind word) */
struct view *view_history_new(const char *kind, int64_t id);

/* pane_history_target - the history kind word and id of pane p's selected
 * line (a visit, job, item, invoice, allocation, payment, refund or
 * customer), else own_kind / own_id: the target op of the lists (the
 * record panes' H is their own record; h, pane_line_history, the line's). */
int pane_history_target(const struct pane *p, const char *own_kind, int64_t own_id,
                        const char **kind, int64_t *id);
/* pane_line_history - h on a record pane: push the history of pane p's
 * selected line's record (pane_history_target's kinds), or say on the
 * message line that a line must be selected (UI_REDRAW). */
struct ui_next pane_line_history(const struct pane *p);

/* form-customer.c: add a customer. hint (may be NULL) is what was typed
 * to look for them: it fills the phone field when it is a phone number,
 * else the name. When the customer is added, done(id, arg) is called if
 * done is given (a booking form that needed a customer: its state gets
 * the id) and the form shows its receipt, Enter returning to the caller;
 * without done, the new customer's pane replaces the form. */
typedef void (*form_customer_done_fn)(int64_t customer_id, void *arg);
struct view *form_customer_new(const char *hint, form_customer_done_fn done, void *arg);

/* form-customer.c: edit customer_id's name, phone, email, address, note */
struct view *form_customer_edit(int64_t customer_id);

/* form-contact.c: log a call, message or visit at the counter with
 * customer_id (contact_add) */
struct view *form_contact_new(int64_t customer_id);

/* form-service.c: add a service to the catalogue (service_id 0) or edit
 * service service_id; once posted, *posted (when not NULL; it must
 * outlive the form) gets the service's id */
struct view *form_service_new(int64_t service_id, int64_t *posted);

/* form-ignore.c: ignore inbound event inbox_id with a reason (confirmed) */
struct view *form_ignore_new(int64_t inbox_id);

/* form-payment.c: record a payment from customer_id and allocate it */
struct view *form_payment_new(int64_t customer_id, const char *currency);
/* form_payment_new_at - the payment form opened at an invoice or a visit:
 * the open invoices among first[0..nfirst) are listed and proposed first. */
struct view *form_payment_new_at(int64_t customer_id, const char *currency, const int64_t *first,
                                 int nfirst);

/* form-reverse.c: reverse allocation alloc_id (destructive, confirmed) */
struct view *form_reverse_new(int64_t alloc_id);
/* form-drawer.c: the cash drawer of this desk ($): open it when none is
 * open here, else pay out or close it with a blind count */
struct view *form_drawer_new(void);
/* form_invoice_void / form_invoice_credit - void an issued invoice, or issue
 * a credit note against it, each with a reason and y (form-void.c). */
struct view *form_invoice_void(int64_t invoice_id);
struct view *form_invoice_credit(int64_t invoice_id);

/* form-refund.c: refund (part of) payment payment_id (confirmed); a card
 * payment that came from the payment channel is refunded through the
 * channel (outbox_refund), any other posts a refund row */
struct view *form_refund_new(int64_t payment_id);

/* form-charge.c: ask the payment channel for a card payment towards
 * invoice_id (confirmed); NULL with a message when no payment provider is
 * set up, the screen is read-only or the invoice owes nothing */
struct view *form_charge_new(int64_t invoice_id);

/* form-print.c: print invoice (PRINT_INVOICE) or payment receipt
 * (PRINT_RECEIPT) id to a file, text or PDF (a quiet form: it writes no
 * record, so it works on a read-only screen too) */
struct view *form_print_new(int doc, int64_t id);
/* form_print_width - the same with width (PRINT_WIDE or PRINT_NARROW)
 * chosen: P on the preview, which shows that width */
struct view *form_print_width(int doc, int64_t id, int width);

/* form-invoice.c: issue an invoice for what is left of job_id */
struct view *form_invoice_new(int64_t job_id);

/* form-work.c: visits, jobs and line items */
/* form_book_new - the one booking form (form-book.c) on that day; done
 * (may be NULL) gets the new visit's id and start once it is booked. */
typedef void (*form_book_done_fn)(int64_t appt_id, int64_t start_at, void *arg);
struct view *form_book_new(int64_t day_start, form_book_done_fn done, void *arg);
/* form_book_at - the same opened at start_at (a local midnight: the day,
 * starting 09:00) with resource (a name; may be NULL) in its Resources
 * field: the dispatch board's free cell. */
struct view *form_book_at(int64_t start_at, const char *resource, form_book_done_fn done,
                          void *arg);
struct view *form_visit_edit(int64_t appt_id);
/* form_visit_move - move a visit to another day and start, keeping its
 * length; done as form_book_new's (may be NULL). */
struct view *form_visit_move(int64_t appt_id, form_book_done_fn done, void *arg);
/* form_visit_close - cancel a visit, or (no_show = 1) mark it a no-show,
 * with a reason and y. */
struct view *form_visit_close(int64_t appt_id, int no_show);
struct view *form_job_new(int64_t appt_id); /* a job worked on by that visit */
struct view *form_job_edit(int64_t job_id);
struct view *form_item_new(int64_t job_id);
struct view *form_item_edit(int64_t item_id);

#endif
