/*
 * checkdb.h - the invariants of the whole database, written once (module
 * "check"; the file is not check.h so that it never hides the Check test
 * library's <check.h>).
 *
 * Each invariant is a named SQL query (in checkdb.c) that returns one row per
 * violation, with a one-line description of it. `frontdesk check` and the
 * tests run the same table, so a rule that the tests rely on is the rule
 * that the shop can run on its own database. Other modules add their own
 * invariants (the calendar projection) as rows of that table.
 *
 * What is checked: SQLite's integrity_check (the file, its tables and
 * their indexes agree) and foreign_key_check (every reference exists); every
 * invoice's paid equals the sum of its live
 * allocations, credited the sum of its credit notes, total the sum of its
 * lines, balance = total - credited - paid, and its status matches; no
 * invoice is paid past its total unless allowed; no line item is invoiced
 * beyond its quantity; no line item's amount, and no job's sum of them, is
 * beyond the money limit; invoice numbers have no gaps; every payment's
 * allocated and refunded match its rows, it is never over-allocated, its
 * status matches; no allocation mixes currencies or customers; reversals
 * repeat what they reverse; every authoritative row has its history, no
 * posted money row differs from its latest history row, and no posted row
 * was changed or deleted since it was posted; every status is the last one
 * recorded in status_flow; no resource is held by two live visits at one
 * time, every reservation holds its visit's interval, and every resource
 * and reservation has its history (capacity.h); a counted drawer's
 * expected is its float plus its movements and its difference counted -
 * expected, a drawer's cash movements are their payments' and refunds'
 * amounts, and no money (payment, refund, void, credit note; card money
 * excepted) was posted into a closed day after its close without a reopen
 * (drawer.h, dayclose.h).
 */
#ifndef FD_CHECKDB_H
#define FD_CHECKDB_H

#include <stdint.h>

struct db;

/* check_run - run every invariant on db (reading only) and call report
 * (code, detail, arg) for each violation: code is the invariant's name
 * (e.g. "invoice-paid"), detail says which row and how. A query that cannot
 * run or finish (a sum beyond 64 bits in rows another program wrote) is one
 * violation of its code, whose detail says why, and the others still run.
 * Returns the number of violations (0: clean), or a negative FD_E* code if
 * the read transaction cannot begin (with a reason in err_msg()). */
int check_run(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
              void *arg);

/* check_all - everything `frontdesk check` verifies: check_run, then the
 * calendar projection (projection_check), whose rows that differ from a
 * fresh recomputation are reported as code "projection_stale" unless a
 * rebuild job for the visit is waiting (the projection is catching up); a
 * visit whose row cannot be computed is one too, and so is a walk that
 * stopped (after what it found). SQLite's integrity_check runs beside the
 * rest, on a second read-only connection in a thread of its own (a file
 * check, not a snapshot's), and its findings come last; the connection
 * uses a page cache of 64 MiB for the length of the check, then its own
 * again. Returns the number of violations, or a
 * negative FD_E* code when check_run cannot begin. Callers:
 * `frontdesk check`, the checks of a backup (backup.c). */
int check_all(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
              void *arg);

/* check_desk - everything `frontdesk check` reports: check_all, then what
 * a person must look at in the running shop that says nothing about the
 * file itself: the promises not kept (check_promises, below),
 * "channel-provider-failing", an enabled payment provider
 * whose calls have failed for longer than channel_failing_report_seconds
 * (pipe_provider_failing_each, at the real clock), and
 * "recon-batch-interrupted", a reconciliation batch left running by a run
 * that was killed (recon_check). Kept out of check_all so that a channel
 * that is down never makes a backup fail its checks.
 * Returns the number of problems, or a negative FD_E* code. */
int check_desk(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
               void *arg);

/* check_desk_since - check_desk over a range: the invariants of the records
 * created or changed at or after since (UTC seconds; the records their
 * figures depend on too: an invoice whose allocation, line or credit note
 * is new, a payment whose allocation or refund is, a visit whose job
 * changed, the customer of any of them), for a nightly run whose cost
 * follows the day's work, not the history. SQLite's own checks: PRAGMA
 * quick_check (every page of the file read once: a damaged file is still
 * found the next morning) instead of integrity_check (which also looks up
 * every row in every index of its table: the whole check's), and no
 * foreign_key_check (every reference of the file: the whole check's).
 * Whole as in check_desk: invoice and estimate numbering, posted money
 * deleted, the channel, drawers, closed days, promises and status moves
 * (small tables, or read through their own indexes); calendar rows without
 * a visit are the whole check's. The list of records is taken in its own
 * transaction just before the checks (temporary tables, dropped after).
 * Returns the number of problems, or a negative FD_E* code. Caller:
 * `frontdesk check --since`. */
int check_desk_since(struct db *db, int64_t since,
                     void (*report)(const char *code, const char *detail, void *arg), void *arg);

/* check_promises - what the desk promised through a provider and
 * has not kept, as of clock_now() and the give-up horizon
 * (pipeline_give_up_seconds, outbox.h): "channel-command-dead", a refund
 * command given up (or never sent for the whole horizon) while its order
 * still says paid or refunding; "channel-refund-stuck", a refund the
 * channel accepted that is not posted while an event about it lies dead or
 * it stays unsettled past the horizon; "channel-order-paying-long", a card
 * payment order still created or paying past the horizon;
 * "esign-command-dead", an estimate's envelope never sent while its flow
 * waits, or never withdrawn once cancelled; "booking-command-dead", a
 * booking answer never delivered, or a push of free slots that no later
 * push of the same day replaced; "recurring-behind", a recurring job's
 * visits not made up to the horizon (recurring_check). Calls report
 * for each (as check_run) and returns how many. Part of check_desk; the
 * status line counts them too (reading only). */
int check_promises(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                   void *arg);

/* check_describe - the translated one-line description of invariant code,
 * or NULL if there is no such invariant. */
const char *check_describe(const char *code);

#endif
