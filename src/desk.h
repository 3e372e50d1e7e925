/*
 * desk.h - the small read queries the desk screen needs that no other
 * module offers: which invoices bill a job, finding invoices by part of
 * their number, and whether a connection is read-only.
 *
 * Reads only; every function follows the core's conventions (0 or a
 * negative FD_E* code with a reason in err_msg(); a list stops at the
 * first non-zero value of its callback and returns it). The screen never
 * writes SQL itself: what it needs is here. Callers: ui/ (the screen).
 */
#ifndef FD_DESK_H
#define FD_DESK_H

#include <stdint.h>

struct db;

/* desk_readonly - 1 when db was opened read-only, else 0. */
int desk_readonly(struct db *db);

/* desk_job_invoices - call cb with the id of every issued invoice (not
 * draft; void ones included, credit notes not) that bills at least one line
 * item of job job_id, oldest first. */
int desk_job_invoices(struct db *db, int64_t job_id, int (*cb)(int64_t invoice_id, void *arg),
                      void *arg);

/* desk_invoice_search - call cb with the id of each invoice or credit note
 * whose number contains text (case-insensitive; at least 2 characters),
 * newest first, at most limit (<= 0: 50). */
int desk_invoice_search(struct db *db, const char *text, int limit,
                        int (*cb)(int64_t invoice_id, void *arg), void *arg);

#endif
