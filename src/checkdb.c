/*
 * checkdb.c - the invariants of the database as a table of named SQL queries
 * (see checkdb.h).
 *
 * Each query returns one TEXT column, one row per violation, saying which
 * row breaks the rule and how (figures in minor units). The queries only
 * read. To add an invariant, add a row to `checks`; keep each query
 * self-contained so that it can be run alone with the sqlite3 shell.
 *
 * The first two rows are SQLite's own checks: a damaged file or an index
 * that disagrees with its table (searches through it silently miss rows),
 * and references to rows that do not exist (written with foreign keys off).
 *
 * Callers: `frontdesk check` (cli-money.c) and the tests, which assert a
 * clean check after every scenario and a reported violation after a
 * deliberate corruption.
 *
 * A range (check_desk_since, `frontdesk check --since`): the rows the
 * queries start from are narrowed to the records created or changed since
 * a time, listed first in temporary tables temp.since_TABLE (id), by
 * comments in the query text: a comment that opens with "since:" (such as
 * "since: x.id IN temp.since_invoice AND ") is a comment for the whole
 * check (the query runs as written, in the sqlite3 shell too) and its
 * text for a range, where check_uncomment opens it. The narrowing only ever adds a condition to the
 * rows a query starts from and to the sums it compares them with (the sums of the same records), so
 * a range finds a subset of what the whole check finds.
 */
#include <config.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "booking-chan.h"
#include "chan-order.h"
#include "checkdb.h"
#include "clock.h"
#include "condition.h"
#include "db.h"
#include "err.h"
#include "esign.h"
#include "hq.h"
#include "i18n.h"
#include "inbox.h"
#include "invoice.h"
#include "job.h"
#include "lifecycle.h"
#include "message.h"
#include "money.h"
#include "outbox.h"
#include "payment.h"
#include "pipe-provider.h"
#include "projection.h"
#include "recon.h"
#include "recurring.h"
#include "retention.h"
#include "staff.h"
#include "states.h"
#include "visit.h"
#include "xalloc.h"

/* The money limit (MONEY_MAX of money.h) as SQL text; check_run makes sure
 * they agree. */
#define MONEY_MAX_SQL "100000000000000"

/* How a document is named in a detail: "invoice 5 (INV-2026-000005)". */
#define INV_NAME(a) "'invoice ' || " a ".id || coalesce(' (' || " a ".number || ')', '')"

/* Live effect of an allocation row: a reversal counts negatively. */
#define EFFECT "CASE WHEN reverses_id IS NULL THEN amount ELSE -amount END"

/* The status an invoice's figures call for (void and draft are kept). */
#define INVOICE_STATUS(a)                                                                          \
	"CASE WHEN " a ".status = 'draft' THEN 'draft'"                                            \
	" WHEN " a ".status = 'void' AND " a ".kind = 'invoice' AND " a ".paid = 0 AND " a         \
	".credited = 0 THEN 'void'"                                                                \
	" WHEN " a ".kind = 'credit_note' THEN 'issued'"                                           \
	" WHEN " a ".balance < 0 THEN 'overpaid' WHEN " a ".balance = 0 THEN 'paid'"               \
	" WHEN " a ".paid > 0 THEN 'partially_paid' ELSE 'issued' END"

#define PAYMENT_STATUS(a)                                                                          \
	"CASE WHEN " a ".status = 'void' AND " a ".allocated = 0 AND " a ".refunded = 0"           \
	" THEN 'void' WHEN " a ".refunded = " a ".amount THEN 'refunded'"                          \
	" WHEN " a ".allocated = 0 THEN 'unallocated'"                                             \
	" WHEN " a ".allocated + " a ".refunded < " a ".amount THEN 'partially_allocated'"         \
	" ELSE 'allocated' END"

/* History: a row without any history row. */
#define HIS_MISSING(t)                                                                             \
	"SELECT '" t " ' || x.id || ' has no history row' FROM " t " x"                            \
	" WHERE /*since: x.id IN temp.since_" t " AND */ NOT EXISTS (SELECT 1 FROM " t             \
	"_his h WHERE h.id = x.id)"

/* History: a row that differs from its latest history row in any column
 * (or has none): each row against the one history row its id's index
 * finds, not the whole table less the whole history (EXCEPT: two sorts of
 * every row); the same rows, and IS NOT, as EXCEPT, holds NULLs equal. */
#define HIS_DIFFERS(t, cols)                                                                       \
	"SELECT '" t " ' || x.id || ' differs from its latest history row' FROM " t " x"           \
	" WHERE /*since: x.id IN temp.since_" t " AND */ (x.id, " cols ") IS NOT"                  \
	" (SELECT id, " cols " FROM " t "_his WHERE his_id ="                                      \
	" (SELECT max(his_id) FROM " t "_his WHERE id = x.id))"

/* Posted: columns that differ from the history row written when posted
 * (the first one of its id that says first), or a row without one. */
#define POSTED_FIXED(t, cols, first)                                                               \
	"SELECT '" t " ' || x.id || ' was changed after it was posted' FROM " t " x"               \
	" WHERE /*since: x.id IN temp.since_" t " AND */ (x.id, " cols ") IS NOT"                  \
	" (SELECT id, " cols " FROM " t "_his WHERE his_id ="                                      \
	" (SELECT min(his_id) FROM " t "_his WHERE id = x.id AND " first "))"

/* Posted: rows never updated at all. */
#define POSTED_NO_UPDATE(t)                                                                        \
	"SELECT DISTINCT '" t " ' || id || ' was changed after it was posted' FROM " t             \
	"_his WHERE /*since: id IN temp.since_" t " AND */ operate_type = 3"

#define POSTED_DELETED(t)                                                                          \
	"SELECT '" t " ' || id || ' was deleted' FROM"                                             \
	" (SELECT id FROM " t "_his WHERE operate_type = 1 EXCEPT SELECT id FROM " t ")"

#define STATUS_FLOW(t, entity)                                                                     \
	"SELECT '" t " ' || x.id || ': status ' || x.status ||"                                    \
	" ' is not the last one recorded in status_flow' FROM " t " x"                             \
	" WHERE /*since: x.id IN temp.since_" t                                                    \
	" AND */ x.status IS NOT (SELECT f.to_status FROM status_flow f WHERE f.entity = '" entity \
	"' AND f.entity_id = x.id ORDER BY f.id DESC LIMIT 1)"

#define INVOICE_COLS                                                                               \
	"kind, number, series, year, seq, customer_id, currency, credits_id, issued_at,"           \
	" due_at, total, credited, paid, balance, status, allow_overpay, note, created_at,"        \
	" updated_at"
#define INVOICE_LINE_COLS                                                                          \
	"invoice_id, line_item_id, kind, description, qty_milli, unit_price, amount, created_at"
#define PAYMENT_COLS                                                                               \
	"customer_id, method, reference, received_at, currency, amount, allocated,"                \
	" refunded, status, note, created_at, updated_at"
#define ALLOC_COLS "payment_id, invoice_id, amount, reverses_id, reason, created_at"
#define REFUND_COLS                                                                                \
	"payment_id, amount, method, reference, status, reason, refunded_at, created_at,"          \
	" updated_at"

/* A close c of a day not reopened at time t (no later row of the day made
 * by then: day_close_by_day). */
#define DAY_NOT_REOPENED(t)                                                                        \
	" AND NOT EXISTS (SELECT 1 FROM day_close o WHERE o.day = c.day AND o.id > c.id"           \
	" AND o.at <= " t ")"

struct check_def {
	const char *code;
	const char *what; /* N_() */
	const char *sql;
};

/* clang-format off */
static const struct check_def checks[] = {
	{ "integrity", N_("SQLite finds the file, its tables and their indexes intact "
	                  "(PRAGMA integrity_check)"),
	  "SELECT integrity_check FROM pragma_integrity_check WHERE integrity_check <> 'ok'" },
	{ "retention-purging", N_("no purge marker was ever committed (retention_purging is empty)"),
	  "SELECT 'a purge marker was committed for deletion ' || deletion_id ||"
	  " ': the guards of personal text are open' FROM retention_purging" },
	{ "foreign-key", N_("every reference names a row that exists (PRAGMA foreign_key_check)"),
	  "SELECT \"table\" || ' row ' || coalesce(rowid, '?') || ' refers to a ' || parent ||"
	  " ' row that does not exist' FROM pragma_foreign_key_check" },
	{ "invoice-paid", N_("an invoice's paid equals the sum of its live allocations"),
	  "SELECT " INV_NAME("i") " || ': paid ' || i.paid || ' but its live allocations add up"
	  " to ' || coalesce(s.eff, 0) FROM invoice i LEFT JOIN (SELECT invoice_id, sum(" EFFECT
	  ") AS eff FROM payment_allocation WHERE /*since: invoice_id IN temp.since_invoice AND */ 1"
	  " GROUP BY invoice_id) s ON s.invoice_id = i.id"
	  " WHERE /*since: i.id IN temp.since_invoice AND */ i.paid IS NOT coalesce(s.eff, 0)" },
	{ "invoice-credited", N_("an invoice's credited equals the sum of its credit notes"),
	  "SELECT " INV_NAME("i") " || ': credited ' || i.credited || ' but its credit notes add"
	  " up to ' || coalesce(s.c, 0) FROM invoice i LEFT JOIN (SELECT credits_id, -sum(total)"
	  " AS c FROM invoice WHERE /*since: credits_id IN temp.since_invoice AND */ credits_id IS NOT NULL"
	  " GROUP BY credits_id) s ON s.credits_id = i.id"
	  " WHERE /*since: i.id IN temp.since_invoice AND */ i.credited IS NOT coalesce(s.c, 0)" },
	{ "invoice-balance", N_("an invoice's balance equals total - credited - paid"),
	  "SELECT " INV_NAME("i") " || ': balance ' || i.balance || ', total ' || i.total ||"
	  " ', credited ' || i.credited || ', paid ' || i.paid FROM invoice i"
	  " WHERE /*since: i.id IN temp.since_invoice AND */ ((i.kind = 'invoice'"
	  " AND i.balance IS NOT i.total - i.credited - i.paid)"
	  " OR (i.kind = 'credit_note' AND (i.balance <> 0 OR i.paid <> 0 OR i.credited <> 0"
	  " OR i.total > 0)))" },
	{ "invoice-total", N_("an issued document's total equals the sum of its lines"),
	  "SELECT " INV_NAME("i") " || ': total ' || i.total || ' but its lines add up to ' ||"
	  " coalesce(s.t, 0) FROM invoice i LEFT JOIN (SELECT invoice_id, sum(amount) AS t"
	  " FROM invoice_line WHERE /*since: invoice_id IN temp.since_invoice AND */ 1 GROUP BY invoice_id) s"
	  " ON s.invoice_id = i.id WHERE /*since: i.id IN temp.since_invoice AND */ i.status <> 'draft' AND i.total IS NOT coalesce(s.t, 0)" },
	{ "invoice-overpaid", N_("an invoice is paid past its total only when it allows it"),
	  "SELECT " INV_NAME("i") " || ': paid ' || i.paid || ' of ' || (i.total - i.credited) ||"
	  " ' without allowing overpayment' FROM invoice i"
	  " WHERE /*since: i.id IN temp.since_invoice AND */ i.kind = 'invoice'"
	  " AND i.allow_overpay = 0 AND i.paid > i.total - i.credited" },
	{ "invoice-status", N_("an invoice's status matches its figures"),
	  "SELECT " INV_NAME("i") " || ': status ' || i.status || ' but its figures say ' || "
	  INVOICE_STATUS("i") " FROM invoice i WHERE /*since: i.id IN temp.since_invoice AND */ i.status IS NOT " INVOICE_STATUS("i") },
	{ "invoice-void", N_("a void invoice has nothing allocated and no credit note"),
	  "SELECT " INV_NAME("i") " || ': void with paid ' || i.paid || ' and credited ' ||"
	  " i.credited FROM invoice i WHERE /*since: i.id IN temp.since_invoice AND */ i.status = 'void'"
	  " AND (i.paid <> 0"
	  " OR i.credited <> 0 OR EXISTS (SELECT 1 FROM payment_allocation a"
	  " WHERE a.invoice_id = i.id AND a.reverses_id IS NULL AND NOT EXISTS"
	  " (SELECT 1 FROM payment_allocation r WHERE r.reverses_id = a.id)))" },
	{ "invoice-number", N_("invoice and credit note numbers are gap-free per year"),
	  "SELECT c.series || ' ' || c.year || ': counter at ' || c.last || ' but ' ||"
	  " count(i.id) || ' document(s) numbered up to ' || coalesce(max(i.seq), 0)"
	  " FROM document_counter c LEFT JOIN invoice i ON i.series = c.series"
	  " AND i.year = c.year WHERE c.series <> 'EST' GROUP BY c.series, c.year"
	  " HAVING count(i.id) <> c.last OR coalesce(max(i.seq), 0) <> c.last"
	  " UNION ALL SELECT " INV_NAME("i") " || ': its number has no counter' FROM invoice i"
	  " WHERE i.number IS NOT NULL AND NOT EXISTS (SELECT 1 FROM document_counter c"
	  " WHERE c.series = i.series AND c.year = i.year)"
	  " UNION ALL SELECT " INV_NAME("i") " || ': number does not match its series, year"
	  " and sequence' FROM invoice i WHERE i.number IS NOT NULL AND i.number IS NOT"
	  " printf('%s-%04d-%06d', i.series, i.year, i.seq)" },
	{ "estimate-number", N_("estimate numbers are gap-free per year"),
	  "SELECT 'EST ' || c.year || ': counter at ' || c.last || ' but ' || count(e.id) ||"
	  " ' estimate(s) numbered up to ' || coalesce(max(e.seq), 0)"
	  " FROM document_counter c LEFT JOIN estimate e ON e.year = c.year"
	  " WHERE c.series = 'EST' GROUP BY c.year"
	  " HAVING count(e.id) <> c.last OR coalesce(max(e.seq), 0) <> c.last"
	  " UNION ALL SELECT 'estimate ' || e.number || ': number does not match its year"
	  " and sequence' FROM estimate e WHERE e.number IS NOT"
	  " printf('EST-%04d-%06d', e.year, e.seq)" },
	{ "line-item-overinvoiced", N_("no line item is invoiced beyond its quantity"),
	  "SELECT 'line item ' || li.id || ': quantity ' || li.qty_milli || '/1000 but ' ||"
	  " s.q || '/1000 invoiced' FROM line_item li JOIN (SELECT il.line_item_id,"
	  " sum(il.qty_milli) AS q FROM invoice_line il JOIN invoice i ON i.id = il.invoice_id"
	  " WHERE /*since: il.line_item_id IN temp.since_line_item AND */ i.status <> 'void'"
	  " AND il.line_item_id IS NOT NULL GROUP BY il.line_item_id) s ON s.line_item_id = li.id"
	  " WHERE /*since: li.id IN temp.since_line_item AND */ s.q > li.qty_milli" },
	{ "line-item-amount", N_("a line item's amount is an integer within the money limit"),
	  "SELECT 'line item ' || id || ': amount ' || amount || ' is beyond the money limit"
	  " of ' || " MONEY_MAX_SQL " FROM line_item"
	  " WHERE /*since: id IN temp.since_line_item AND */ (typeof(amount) <> 'integer'"
	  " OR amount NOT BETWEEN -" MONEY_MAX_SQL " AND " MONEY_MAX_SQL ")" },
	{ "job-total", N_("a job's line items add up to no more than the money limit"),
	  /* rows beyond the limit are line-item-amount's: summing them could
	   * overflow, and the sum of the others cannot */
	  "SELECT 'job ' || service_order_id || ': its line items add up to ' || sum(amount) ||"
	  " ', beyond the money limit of ' || " MONEY_MAX_SQL " FROM line_item"
	  " WHERE /*since: service_order_id IN temp.since_service_order AND */ typeof(amount) = 'integer'"
	  " AND amount BETWEEN -" MONEY_MAX_SQL " AND "
	  MONEY_MAX_SQL " GROUP BY service_order_id HAVING sum(amount) NOT BETWEEN -"
	  MONEY_MAX_SQL " AND " MONEY_MAX_SQL },
	{ "invoice-line-party", N_("an invoice bills only its customer's items, in their currency"),
	  "SELECT " INV_NAME("i") " || ': line ' || il.id || ' bills line item ' ||"
	  " il.line_item_id || ' of another customer, currency or kind' FROM invoice_line il"
	  " JOIN invoice i ON i.id = il.invoice_id JOIN line_item li ON li.id = il.line_item_id"
	  " JOIN service_order so ON so.id = li.service_order_id"
	  " WHERE /*since: il.id IN temp.since_invoice_line AND */ (so.customer_id <> i.customer_id"
	  " OR so.currency <> i.currency OR li.kind <> il.kind)" },
	{ "payment-allocated", N_("a payment's allocated equals the sum of its live allocations"),
	  "SELECT 'payment ' || p.id || ': allocated ' || p.allocated || ' but its live"
	  " allocations add up to ' || coalesce(s.eff, 0) FROM payment p LEFT JOIN"
	  " (SELECT payment_id, sum(" EFFECT ") AS eff FROM payment_allocation"
	  " WHERE /*since: payment_id IN temp.since_payment AND */ 1 GROUP BY payment_id) s ON s.payment_id = p.id"
	  " WHERE /*since: p.id IN temp.since_payment AND */ p.allocated IS NOT coalesce(s.eff, 0)" },
	{ "payment-refunded", N_("a payment's refunded equals the sum of its refunds"),
	  "SELECT 'payment ' || p.id || ': refunded ' || p.refunded || ' but its refunds add up"
	  " to ' || coalesce(s.r, 0) FROM payment p LEFT JOIN (SELECT payment_id, sum(amount)"
	  " AS r FROM refund WHERE /*since: payment_id IN temp.since_payment AND */ status <> 'failed'"
	  " GROUP BY payment_id) s ON s.payment_id = p.id"
	  " WHERE /*since: p.id IN temp.since_payment AND */ p.refunded IS NOT coalesce(s.r, 0)" },
	{ "payment-overallocated", N_("no payment is allocated or refunded beyond its amount"),
	  "SELECT 'payment ' || p.id || ': amount ' || p.amount || ' but allocated ' ||"
	  " p.allocated || ' and refunded ' || p.refunded FROM payment p"
	  " WHERE /*since: p.id IN temp.since_payment AND */ (p.allocated + p.refunded > p.amount"
	  " OR p.allocated < 0 OR p.refunded < 0 OR p.amount <= 0)" },
	{ "payment-status", N_("a payment's status matches its figures"),
	  "SELECT 'payment ' || p.id || ': status ' || p.status || ' but its figures say ' ||"
	  " " PAYMENT_STATUS("p") " FROM payment p WHERE /*since: p.id IN temp.since_payment AND */ p.status IS NOT " PAYMENT_STATUS("p") },
	{ "currency-mismatch", N_("an allocation or credit note never mixes currencies"),
	  "SELECT 'allocation ' || a.id || ': payment ' || p.id || ' in ' || p.currency ||"
	  " ' but ' || " INV_NAME("i") " || ' in ' || i.currency FROM payment_allocation a"
	  " JOIN payment p ON p.id = a.payment_id JOIN invoice i ON i.id = a.invoice_id"
	  " WHERE /*since: a.id IN temp.since_payment_allocation AND */ p.currency IS NOT i.currency"
	  " UNION ALL SELECT " INV_NAME("c") " || ' in ' || c.currency || ' corrects ' || "
	  INV_NAME("i") " || ' in ' || i.currency FROM invoice c JOIN invoice i"
	  " ON i.id = c.credits_id WHERE /*since: c.id IN temp.since_invoice AND */ c.currency IS NOT i.currency" },
	{ "customer-mismatch", N_("a payment settles only its own customer's invoices"),
	  "SELECT 'allocation ' || a.id || ': payment ' || p.id || ' of customer ' ||"
	  " p.customer_id || ' but ' || " INV_NAME("i") " || ' of customer ' || i.customer_id"
	  " FROM payment_allocation a JOIN payment p ON p.id = a.payment_id JOIN invoice i"
	  " ON i.id = a.invoice_id"
	  " WHERE /*since: a.id IN temp.since_payment_allocation AND */ p.customer_id IS NOT i.customer_id"
	  " UNION ALL SELECT " INV_NAME("c") " || ' corrects an invoice of another customer'"
	  " FROM invoice c JOIN invoice i ON i.id = c.credits_id"
	  " WHERE /*since: c.id IN temp.since_invoice AND */ c.customer_id IS NOT i.customer_id" },
	{ "allocation-target", N_("allocations go to invoices, never to credit notes or drafts"),
	  "SELECT 'allocation ' || a.id || ' goes to ' || " INV_NAME("i") " || ', a ' ||"
	  " i.kind || ' that is ' || i.status FROM payment_allocation a JOIN invoice i"
	  " ON i.id = a.invoice_id"
	  " WHERE /*since: a.id IN temp.since_payment_allocation AND */ (i.kind <> 'invoice' OR i.status = 'draft')" },
	{ "allocation-reversal", N_("a reversal repeats the allocation it reverses"),
	  "SELECT 'allocation ' || r.id || ' reverses ' || r.reverses_id || ' but does not"
	  " repeat it' FROM payment_allocation r LEFT JOIN payment_allocation o"
	  " ON o.id = r.reverses_id"
	  " WHERE /*since: r.id IN temp.since_payment_allocation AND */ r.reverses_id IS NOT NULL AND (o.id IS NULL"
	  " OR o.reverses_id IS NOT NULL OR o.payment_id <> r.payment_id"
	  " OR o.invoice_id <> r.invoice_id OR o.amount <> r.amount)" },
	{ "history-missing", N_("every authoritative row has its history"),
	  HIS_MISSING("customer")
	  " UNION ALL " HIS_MISSING("service_order")
	  " UNION ALL " HIS_MISSING("appointment")
	  " UNION ALL " HIS_MISSING("appointment_work")
	  " UNION ALL " HIS_MISSING("line_item")
	  " UNION ALL " HIS_MISSING("invoice")
	  " UNION ALL " HIS_MISSING("invoice_line")
	  " UNION ALL " HIS_MISSING("payment")
	  " UNION ALL " HIS_MISSING("payment_allocation")
	  " UNION ALL " HIS_MISSING("refund") },
	{ "history-differs", N_("no money row differs from its latest history row"),
	  HIS_DIFFERS("invoice", INVOICE_COLS)
	  " UNION ALL " HIS_DIFFERS("invoice_line", INVOICE_LINE_COLS)
	  " UNION ALL " HIS_DIFFERS("payment", PAYMENT_COLS)
	  " UNION ALL " HIS_DIFFERS("payment_allocation", ALLOC_COLS)
	  " UNION ALL " HIS_DIFFERS("refund", REFUND_COLS) },
	{ "posted-changed", N_("posted money was never edited"),
	  POSTED_NO_UPDATE("invoice_line")
	  " UNION ALL " POSTED_NO_UPDATE("payment_allocation")
	  " UNION ALL " POSTED_FIXED("invoice", "kind, customer_id, currency, credits_id,"
				     " allow_overpay, note, created_at", "operate_type = 1")
	  " UNION ALL " POSTED_FIXED("invoice", "number, series, year, seq, issued_at, due_at,"
				     " total", "status <> 'draft'")
	  " UNION ALL " POSTED_FIXED("payment", "customer_id, method, reference, received_at,"
				     " currency, amount, note, created_at", "operate_type = 1")
	  " UNION ALL " POSTED_FIXED("refund", "payment_id, amount, method, reference, reason,"
				     " refunded_at, created_at", "operate_type = 1") },
	{ "posted-deleted", N_("posted money was never deleted"),
	  POSTED_DELETED("invoice")
	  " UNION ALL " POSTED_DELETED("invoice_line")
	  " UNION ALL " POSTED_DELETED("payment")
	  " UNION ALL " POSTED_DELETED("payment_allocation")
	  " UNION ALL " POSTED_DELETED("refund") },
	{ "status-flow", N_("every status is the last one recorded in the status flow"),
	  STATUS_FLOW("invoice", "invoice")
	  " UNION ALL " STATUS_FLOW("payment", "payment")
	  " UNION ALL " STATUS_FLOW("refund", "refund")
	  " UNION ALL " STATUS_FLOW("esign_flow", "esign_flow") },
	/* capacity (capacity.c, migration 0016) */
	{ "capacity-overlap", N_("no resource is reserved twice at one time by live visits"),
	  "SELECT 'resource ' || x.resource_id || ' is held by visit ' || x.appointment_id ||"
	  " ' and by visit ' || y.appointment_id || ' at the same time' FROM appointment_resource x"
	  " JOIN appointment a ON a.id = x.appointment_id"
	  " JOIN appointment_resource y ON y.resource_id = x.resource_id AND y.id <> x.id"
	  " AND y.start_at >= x.start_at AND y.start_at < x.end_at"
	  " JOIN appointment b ON b.id = y.appointment_id"
	  " WHERE /*since: (x.id IN temp.since_appointment_resource"
	  " OR y.id IN temp.since_appointment_resource) AND */"
	  " a.status NOT IN ('cancelled', 'no_show') AND b.status NOT IN ('cancelled', 'no_show')"
	  " AND (y.start_at > x.start_at OR y.id > x.id)" },
	{ "capacity-interval", N_("a reservation holds its visit's interval"),
	  "SELECT 'reservation ' || r.id || ' of resource ' || r.resource_id || ' holds '"
	  " || r.start_at || '..' || r.end_at || ' but visit ' || r.appointment_id || ' is '"
	  " || a.start_at || '..' || a.end_at FROM appointment_resource r"
	  " JOIN appointment a ON a.id = r.appointment_id"
	  " WHERE /*since: r.id IN temp.since_appointment_resource AND */ (r.start_at <> a.start_at"
	  " OR r.end_at <> a.end_at)" },
	{ "capacity-history", N_("every resource and reservation has its history"),
	  HIS_MISSING("resource")
	  " UNION ALL " HIS_MISSING("appointment_resource") },
	{ "channel-order-payment", N_("a paid card payment order has its one card payment, of its "
	                              "amount, customer and currency, with its intent as reference"),
	  "SELECT 'card payment order ' || o.order_no || ': ' || o.status || CASE"
	  " WHEN o.payment_id IS NULL THEN ' without a payment'"
	  " WHEN o.status NOT IN ('paid', 'refunding', 'refunded') THEN ' but it has payment '"
	  "   || o.payment_id"
	  " ELSE ' but payment ' || o.payment_id || ' is ' || p.method || ' ' || p.amount || ' '"
	  "   || p.currency || ' of customer ' || p.customer_id || ' for '"
	  "   || coalesce(p.reference, '-') END"
	  " FROM pay_order o LEFT JOIN payment p ON p.id = o.payment_id"
	  " WHERE (o.status IN ('paid', 'refunding', 'refunded')) IS NOT (o.payment_id IS NOT NULL)"
	  " OR (p.id IS NOT NULL AND (p.method <> 'card' OR p.amount <> o.amount"
	  "   OR p.currency <> o.currency OR p.customer_id <> o.customer_id"
	  "   OR p.reference IS NOT o.channel_order_id))" },
	{ "channel-payment-once", N_("a channel payment is posted once"),
	  "SELECT 'payment ' || o.payment_id || ' belongs to ' || count(*) || ' card payment"
	  " orders' FROM pay_order o WHERE o.payment_id IS NOT NULL GROUP BY o.payment_id"
	  " HAVING count(*) > 1"
	  " UNION ALL SELECT 'intent ' || p.reference || ' was posted as ' || count(*) ||"
	  " ' payments' FROM payment p WHERE p.method = 'card' AND p.reference IN"
	  " (SELECT channel_order_id FROM pay_order WHERE channel_order_id IS NOT NULL)"
	  " GROUP BY p.reference HAVING count(*) > 1"
	  " UNION ALL SELECT 'channel refund ' || r.reference || ' was posted ' || count(*) ||"
	  " ' times' FROM refund r JOIN pay_order o ON o.payment_id = r.payment_id"
	  " WHERE r.status <> 'failed' AND r.reference IS NOT NULL GROUP BY r.reference"
	  " HAVING count(*) > 1" },
	{ "channel-order-refunded", N_("a card payment order's refunded amount is no more than its "
	                               "payment's refunds"),
	  "SELECT 'card payment order ' || o.order_no || ': refunded ' || o.refunded_amount ||"
	  " ' but its payment has refunds of ' || p.refunded FROM pay_order o"
	  " JOIN payment p ON p.id = o.payment_id WHERE o.refunded_amount > p.refunded"
	  " OR (o.status = 'refunded') IS NOT (o.refunded_amount = o.amount)" },
	{ "channel-event-refused", N_("no inbound event lies dead because what the channel said "
	                              "was refused (a person retries or ignores it)"),
	  "SELECT 'inbound event ' || id || ' (' || coalesce(event_type, '?') || ' '"
	  " || coalesce(object_id, '?') || ') died refused: ' || coalesce(last_error, '')"
	  " FROM inbound_callback WHERE status = 'dead' AND dead_kind = 'refused'" },
	{ "channel-order-stuck", N_("no card payment order waits while the channel's events "
	                            "about it lie dead"),
	  "SELECT 'card payment order ' || o.order_no || ' is still ' || o.status || ', but '"
	  " || count(*) || ' event(s) about ' || o.channel_order_id || ' died: the channel"
	  " may have moved money that is not in our books' FROM pay_order o"
	  " JOIN inbound_callback e ON e.source_system = o.provider_code"
	  " AND e.object_id = o.channel_order_id AND e.status = 'dead'"
	  " WHERE o.status IN ('paying', 'refunding') GROUP BY o.id" },
	{ "channel-event-done", N_("a processed inbound event says when"),
	  "SELECT 'inbound event ' || id || ': ' || status || ' without a time'"
	  " FROM inbound_callback WHERE status = 'processed' AND processed_at IS NULL" },
	/* drawers and closed days (drawer.c, dayclose.c, migration 0024). The
	 * drawer tables are read whole (a few rows a day, each movement by
	 * primary keys); payments, refunds, credit notes and voids only through
	 * their time indexes, one closed day's window at a time (day_close
	 * outer: CROSS JOIN and INDEXED BY keep the plan so, whatever the
	 * statistics) */
	{ "drawer-expected", N_("a counted drawer's expected cash is its float plus its movements, "
	                        "and its difference is counted - expected"),
	  "SELECT 'drawer ' || d.id || ' (' || d.desk || ', ' || d.currency || '): expected ' ||"
	  " k.expected || ', but its float ' || d.float_amount || ' plus its movements ' || k.s ||"
	  " ' make ' || (d.float_amount + k.s) || '; counted ' || k.counted || ', difference ' ||"
	  " k.difference FROM (SELECT c.*, coalesce((SELECT sum(x.amount) FROM drawer_movement x"
	  "  WHERE x.drawer_id = c.drawer_id), 0) AS s FROM drawer_close c) k"
	  " JOIN drawer d ON d.id = k.drawer_id"
	  " WHERE k.expected IS NOT d.float_amount + k.s OR k.difference IS NOT k.counted - k.expected" },
	{ "drawer-open", N_("the drawers listed as open are the sessions not yet counted"),
	  "SELECT 'drawer ' || d.id || ' (' || d.desk || ') ' || CASE WHEN c.drawer_id IS NULL"
	  " AND o.drawer_id IS NULL THEN 'is not counted, but not listed as open'"
	  " WHEN c.drawer_id IS NOT NULL AND o.drawer_id IS NOT NULL"
	  " THEN 'is counted, but still listed as open'"
	  " ELSE 'is listed as open at desk ' || o.desk || ' by ' || o.opened_by END"
	  " FROM drawer d LEFT JOIN drawer_close c ON c.drawer_id = d.id"
	  " LEFT JOIN drawer_open o ON o.drawer_id = d.id"
	  " WHERE (c.drawer_id IS NULL) = (o.drawer_id IS NULL)"
	  " OR o.desk IS NOT d.desk AND o.drawer_id IS NOT NULL"
	  " OR o.opened_by IS NOT d.opened_by AND o.drawer_id IS NOT NULL" },
	{ "drawer-movement", N_("a drawer's cash payment, void and refund movements are their "
	                        "payment's and refund's amounts, in cash of the drawer's currency"),
	  "SELECT 'drawer movement ' || id || ' (' || kind || ' of ' || amount || ' ' || cur ||"
	  " ' in drawer ' || drawer_id || '): ' || why FROM (SELECT m.id AS id, m.kind AS kind,"
	  " m.amount AS amount, d.currency AS cur, m.drawer_id AS drawer_id, CASE"
	  " WHEN m.kind = 'payout' THEN NULL"
	  " WHEN m.kind IN ('payment', 'void') AND p.id IS NULL THEN 'payment ' || m.payment_id ||"
	  "  ' does not exist'"
	  " WHEN m.kind IN ('payment', 'void') AND (p.method <> 'cash' OR p.currency <> d.currency"
	  "  OR p.amount <> abs(m.amount)) THEN 'but payment ' || p.id || ' is ' || p.method ||"
	  "  ' ' || p.amount || ' ' || p.currency"
	  " WHEN m.kind = 'payment' AND p.status = 'void' AND NOT EXISTS (SELECT 1"
	  "  FROM drawer_movement v WHERE v.payment_id = m.payment_id AND v.kind = 'void'"
	  "  AND v.drawer_id = m.drawer_id)"
	  "  THEN 'payment ' || p.id || ' is void but its cash never left the drawer'"
	  " WHEN m.kind = 'void' AND p.status <> 'void' THEN 'but payment ' || p.id || ' is '"
	  "  || p.status || ', not void'"
	  " WHEN m.kind = 'void' AND NOT EXISTS (SELECT 1 FROM drawer_movement t"
	  "  WHERE t.payment_id = m.payment_id AND t.kind = 'payment'"
	  "  AND t.drawer_id = m.drawer_id) THEN 'payment ' || p.id || ' never entered this drawer'"
	  " WHEN m.kind = 'refund' AND r.id IS NULL THEN 'refund ' || m.refund_id ||"
	  "  ' does not exist'"
	  " WHEN m.kind = 'refund' AND (r.method <> 'cash' OR rp.currency IS NOT d.currency"
	  "  OR r.amount <> -m.amount) THEN 'but refund ' || r.id || ' is ' || r.method || ' ' ||"
	  "  r.amount || ' ' || coalesce(rp.currency, '?')"
	  " WHEN m.kind = 'refund' AND r.status = 'failed' THEN 'but refund ' || r.id ||"
	  "  ' failed: its cash never left'"
	  " END AS why FROM drawer_movement m JOIN drawer d ON d.id = m.drawer_id"
	  " LEFT JOIN payment p ON p.id = m.payment_id LEFT JOIN refund r ON r.id = m.refund_id"
	  " LEFT JOIN payment rp ON rp.id = r.payment_id)"
	  " WHERE why IS NOT NULL ORDER BY id" },
	/* Money posted into a closed day after its close with no reopen in
	 * between (what the triggers of 0024 refuse): the close c is the last
	 * row of its day made before the money was (a reopen at the same second
	 * counts as made before; a close at the same second does not). Card
	 * money is the channel's (not refused). */
	{ "day-closed-posted", N_("no money is posted into a closed day after its close without a "
	                          "reopen (no payment, refund, void or credit note; card money "
	                          "excepted)"),
	  "SELECT 'payment ' || p.id || ' (' || p.method || ' ' || p.amount || ' ' || p.currency ||"
	  " ') is dated into ' || c.day || ', closed (close ' || c.id || '), and was posted ' ||"
	  " (p.created_at - c.at) || ' s after the close' FROM day_close c"
	  " CROSS JOIN payment p INDEXED BY payment_by_received"
	  " WHERE c.kind = 'close' AND p.received_at >= c.starts_at AND p.received_at < c.ends_at"
	  " AND p.method <> 'card' AND p.created_at > c.at" DAY_NOT_REOPENED("p.created_at")
	  " UNION ALL"
	  " SELECT 'refund ' || r.id || ' (' || r.method || ' ' || r.amount || ' ' ||"
	  " coalesce((SELECT x.currency FROM payment x WHERE x.id = r.payment_id), '?') ||"
	  " ') is dated into ' || c.day || ', closed (close ' || c.id || '), and was posted ' ||"
	  " (r.created_at - c.at) ||"
	  " ' s after the close' FROM day_close c CROSS JOIN refund r INDEXED BY refund_by_refunded"
	  " WHERE c.kind = 'close' AND r.refunded_at >= c.starts_at AND r.refunded_at < c.ends_at"
	  " AND r.method <> 'card' AND r.created_at > c.at" DAY_NOT_REOPENED("r.created_at")
	  /* credit notes and voids by their own small indexes of 0024 */
	  " UNION ALL"
	  " SELECT 'credit note ' || i.id || coalesce(' (' || i.number || ')', '') ||"
	  " ' was issued into ' || c.day || ', closed (close ' || c.id || '), ' ||"
	  " (i.issued_at - c.at) || ' s after the close' FROM day_close c"
	  " CROSS JOIN invoice i INDEXED BY invoice_credit_note_issued"
	  " WHERE c.kind = 'close' AND i.kind = 'credit_note' AND i.issued_at >= c.starts_at"
	  " AND i.issued_at < c.ends_at AND i.issued_at > c.at AND i.status <> 'draft'"
	  DAY_NOT_REOPENED("i.issued_at")
	  " UNION ALL"
	  " SELECT f.entity || ' ' || f.entity_id || ' was voided in ' || c.day || ', closed (close '"
	  " || c.id || '), ' || (f.at - c.at) || ' s after the close' FROM day_close c"
	  " CROSS JOIN status_flow f INDEXED BY status_flow_void_at"
	  " WHERE c.kind = 'close' AND f.to_status = 'void' AND f.at >= c.starts_at"
	  " AND f.at < c.ends_at AND f.at > c.at AND f.entity IN ('payment', 'invoice')"
	  " AND (f.entity = 'invoice' OR (SELECT y.method FROM payment y WHERE y.id = f.entity_id)"
	  "  IS NOT 'card')" DAY_NOT_REOPENED("f.at")
	  /* a payment received in a closed day, voided after the close (on
	   * another day: a void in the day itself is the branch above) */
	  " UNION ALL"
	  " SELECT 'payment ' || p.id || ' (' || p.method || ' ' || p.amount || ' ' || p.currency ||"
	  " ') received in ' || c.day || ', closed (close ' || c.id || '), was voided ' ||"
	  " (f.at - c.at) || ' s after the close' FROM day_close c"
	  " CROSS JOIN payment p INDEXED BY payment_by_received"
	  " CROSS JOIN status_flow f INDEXED BY status_flow_by_entity"
	  " WHERE c.kind = 'close' AND p.received_at >= c.starts_at AND p.received_at < c.ends_at"
	  " AND p.method <> 'card' AND p.status = 'void' AND f.entity = 'payment'"
	  " AND f.entity_id = p.id AND f.to_status = 'void' AND f.at > c.at"
	  " AND (f.at < c.starts_at OR f.at >= c.ends_at)" DAY_NOT_REOPENED("f.at") },
	{ NULL, NULL, NULL },
};
/* clang-format on */

/* An outbox command c (its alias) the desk did not deliver: given up, or
 * not even tried for the whole give-up horizon (no worker ran) since it was
 * queued or a person revived it. ?1 now, ?2 the horizon. */
#define CMD_NOT_KEPT(c)                                                                            \
	" (" c ".status = 'dead' OR ((" c ".status = 'pending' OR " c ".status = 'sending'"        \
	" OR " c ".status = 'failed') AND (SELECT max(f.at) FROM status_flow f"                    \
	" WHERE f.entity = 'outbox_event' AND f.entity_id = " c ".id AND f.to_status = 'pending')" \
	" <= ?1 - ?2))"
/* The outbox's open commands, by its two partial indexes (dead; still to
 * send): the promises below read these and never the history of the
 * commands sent (c NOT INDEXED: reached by these ids alone). The screen's
 * status line runs them whenever the database changed; left to itself,
 * the planner walked every refund or envelope command ever sent, or
 * scanned the whole outbox (every availability push) for the booking
 * channel's. */
#define CMD_OPEN(c)                                                                                \
	" " c ".id IN (SELECT id FROM outbox_event INDEXED BY outbox_event_dead"                   \
	" WHERE status = 'dead' UNION ALL SELECT id FROM outbox_event"                             \
	" INDEXED BY outbox_event_to_send"                                                         \
	" WHERE status = 'pending' OR status = 'sending' OR status = 'failed') AND"
/* How check says it of c: dead, or still STATUS after the horizon. */
#define CMD_NOT_KEPT_SAID(c)                                                                       \
	" CASE WHEN " c ".status = 'dead' THEN 'dead' ELSE 'still ' || " c ".status ||"            \
	" ' after the give-up horizon' END"

/* clang-format off */
/* The promises the desk made through the channel and did not keep, each
 * a query with ?1 = now (clock_now, the clock of the times compared) and
 * ?2 = the give-up horizon (pipeline_give_up_seconds). */
static const struct check_def promises[] = {
	/* a refund command given up, or not even tried for the whole horizon
	 * (no worker ran), while its order still says paid or refunding: by
	 * the outbox's partial indexes (outbox_event_dead, _to_send). A card
	 * payment command given up leaves its order open: that one is
	 * channel-order-paying-long once the horizon has passed */
	{ "channel-command-dead", N_("no refund the desk asked for lies given up (or unsent past "
	                             "the give-up horizon) while its order still says paid"),
	  "SELECT 'outbox command ' || c.id || ' (' || c.event_type || ' for ' || o.order_no ||"
	  " ', ' || coalesce(json_extract(c.payload, '$.amount'), '?') || ' ' || o.currency ||"
	  " ' minor units) is ' ||" CMD_NOT_KEPT_SAID("c") " || ' while the order is ' || o.status ||"
	  " coalesce(': ' || c.last_error, '') || ' (frontdesk outbox retry ' || c.id ||"
	  " ' sends it again, with the same key)'"
	  " FROM outbox_event c NOT INDEXED"
	  " JOIN pay_order o ON o.order_no = json_extract(c.payload, '$.order_no')"
	  " WHERE" CMD_OPEN("c") " c.integration_type = 'payment' AND" CMD_NOT_KEPT("c")
	  " AND c.event_type = 'refund.create' AND o.status IN ('paid', 'refunding')"
	  " ORDER BY c.id" },
	/* an estimate never sent for signature while its flow waits for the
	 * customer's, or a withdrawal never sent while the customer can still
	 * sign what the shop cancelled */
	{ "esign-command-dead", N_("no estimate or condition report waits for a signature it was "
	                           "never sent for, and no cancelled one is still open at the "
	                           "provider"),
	  "SELECT 'outbox command ' || c.id || ' (' || c.event_type || ' of ' ||"
	  " CASE WHEN f.report_id IS NULL THEN 'estimate ' ELSE 'condition report ' END ||"
	  " c.business_key || ' at ' || c.provider_code || ') is ' ||" CMD_NOT_KEPT_SAID("c") " ||"
	  " CASE WHEN f.report_id IS NULL THEN ' while the estimate is '"
	  "  ELSE ' while its sign flow is ' END || f.status || coalesce(': ' || c.last_error, '') ||"
	  " ' (frontdesk outbox retry ' || c.id || ' sends it again, with the same key)'"
	  " FROM outbox_event c NOT INDEXED JOIN esign_flow f LEFT JOIN estimate e"
	  " ON e.id = f.estimate_id WHERE c.business_key = " ESIGN_FLOW_NUMBER " AND"
	  CMD_OPEN("c") " c.integration_type = 'esign' AND" CMD_NOT_KEPT("c")
	  " AND (c.event_type = 'envelope.create' AND f.status IN ('sent', 'viewed')"
	  "  OR c.event_type = 'envelope.cancel' AND f.status = 'cancelled')"
	  " ORDER BY c.id" },
	/* a medium handed to the media provider that never got there, or a
	 * hosted copy whose deletion was asked for and never done */
	{ "media-command-dead", N_("every medium handed to the media provider reached it, and "
	                           "every deletion of a hosted copy was done"),
	  "SELECT 'outbox command ' || c.id || ' (' || c.event_type || ' of ' || c.business_key ||"
	  " ' at ' || c.provider_code || ') is ' ||" CMD_NOT_KEPT_SAID("c") " ||"
	  " ' while its host ' || h.id || ' is ' || h.status || coalesce(': ' || c.last_error, '') ||"
	  " ' (frontdesk outbox retry ' || c.id || ' sends it again, with the same key)'"
	  " FROM outbox_event c NOT INDEXED JOIN media_host h ON h.id = json_extract(c.payload, '$.host')"
	  " WHERE" CMD_OPEN("c") " c.integration_type = 'media' AND" CMD_NOT_KEPT("c")
	  " AND (c.event_type = 'media.upload' AND h.status = 'uploading'"
	  "  OR c.event_type = 'media.delete' AND h.status = 'deleting')"
	  " ORDER BY c.id" },
	/* a panorama or 3D capture the provider has been processing for
	 * longer than the horizon (updated_at: when it became processing) */
	{ "media-processing-long", N_("no medium stays processing at its media provider past the "
	                              "give-up horizon"),
	  "SELECT 'medium ' || h.media_id || ' (host ' || h.id || ', ' || h.provider_code ||"
	  " coalesce(' ' || h.provider_ref, '') || ') has been processing since ' ||"
	  " strftime('%Y-%m-%d %H:%M UTC', h.updated_at, 'unixepoch') ||"
	  " ': the provider may have lost it (frontdesk condition media show ' || h.media_id || ')'"
	  " FROM media_host h INDEXED BY media_host_open"
	  " WHERE h.status IN ('uploading', 'processing', 'deleting') AND h.status = 'processing'"
	  " AND h.updated_at <= ?1 - ?2 ORDER BY h.id" },
	/* a booking channel never told what became of a request, or still
	 * showing free slots of a day no later push has replaced */
	{ "booking-command-dead", N_("every booking decision reached its channel, and every "
	                             "change of free slots (or a later one)"),
	  "SELECT 'outbox command ' || c.id || ' (' || c.event_type || ' ' || c.business_key ||"
	  " ' to ' || c.provider_code || ') is ' ||" CMD_NOT_KEPT_SAID("c") " ||"
	  " CASE WHEN c.event_type = 'booking.confirm' THEN ': the channel was never told of"
	  " request ' || coalesce(json_extract(c.payload, '$.request_id'), '?')"
	  " ELSE ': the channel may still show that day''s old free slots' END ||"
	  " coalesce(' (' || c.last_error || ')', '') || '; frontdesk outbox retry ' || c.id ||"
	  " ' sends it again'"
	  " FROM outbox_event c NOT INDEXED"
	  " WHERE" CMD_OPEN("c") " c.integration_type = 'booking' AND" CMD_NOT_KEPT("c")
	  " AND (c.event_type <> 'availability.push' OR NOT EXISTS (SELECT 1 FROM outbox_event n"
	  "  WHERE n.integration_type = 'booking' AND n.event_type = 'availability.push'"
	  "  AND n.provider_code = c.provider_code AND n.status = 'succeeded' AND n.id > c.id"
	  "  AND json_extract(n.payload, '$.resource') IS json_extract(c.payload, '$.resource')"
	  "  AND json_extract(n.payload, '$.day') IS json_extract(c.payload, '$.day')))"
	  " ORDER BY c.id" },
	/* a refund the channel accepted (its answer is kept as an event,
	 * "answer:<refund id>") that is neither posted nor reported failed,
	 * while an event about it lies dead or it has stayed unsettled past
	 * the horizon since the answer came (or a person last retried it).
	 * Only the answers still waiting or dead are read (by status: an
	 * answer processed or ignored is settled, or a person decided) */
	{ "channel-refund-stuck", N_("no refund the channel accepted stays unposted while an "
	                             "event about it lies dead, or past the give-up horizon"),
	  "SELECT 'card payment order ' || o.order_no || ' is ' || o.status || ', but refund ' ||"
	  " a.object_id || ' of ' || coalesce(json_extract(a.payload, '$.data.object.amount'), '?')"
	  " || ' ' || o.currency || ' minor units' || CASE WHEN EXISTS (SELECT 1 FROM inbound_callback d"
	  "  WHERE d.source_system = a.source_system AND d.object_id = a.object_id"
	  "  AND d.status = 'dead') THEN ' has an event that died: '"
	  "  || coalesce((SELECT d.last_error FROM inbound_callback d"
	  "  WHERE d.source_system = a.source_system AND d.object_id = a.object_id"
	  "  AND d.status = 'dead' ORDER BY d.id DESC LIMIT 1), '')"
	  "  ELSE ' is still not settled at the channel past the give-up horizon' END ||"
	  " ': the customer may still wait for the money; a person must look'"
	  " FROM inbound_callback a JOIN pay_order o ON o.provider_code = a.source_system"
	  " AND o.channel_order_id = json_extract(a.payload, '$.data.object.order_id')"
	  " WHERE (a.status = 'received' OR a.status = 'failed' OR a.status = 'dead')"
	  " AND a.external_id LIKE 'answer:%' AND a.object_id IS NOT NULL"
	  " AND o.status IN ('paid', 'refunding')"
	  " AND NOT EXISTS (SELECT 1 FROM refund r WHERE r.payment_id = o.payment_id"
	  "  AND r.reference = a.object_id AND r.status <> 'failed')"
	  " AND NOT EXISTS (SELECT 1 FROM pay_order_refund_failed f WHERE f.order_id = o.id"
	  "  AND f.channel_refund_id = a.object_id)"
	  " AND (EXISTS (SELECT 1 FROM inbound_callback d WHERE d.source_system = a.source_system"
	  "  AND d.object_id = a.object_id AND d.status = 'dead')"
	  "  OR ((a.status = 'received' OR a.status = 'failed')"
	  "  AND (SELECT max(f.at) FROM status_flow f WHERE f.entity = 'inbound_callback'"
	  "  AND f.entity_id = a.id AND f.to_status = 'received') <= ?1 - ?2))"
	  " ORDER BY a.id" },
	{ "channel-order-paying-long", N_("no card payment order is still open past the give-up "
	                                  "horizon"),
	  "SELECT 'card payment order ' || o.order_no || ' (' || o.amount || ' ' || o.currency ||"
	  " ' minor units) is still ' || o.status || ' ' || ((?1 - o.created_at) / 3600) ||"
	  " ' h after it was made: ask the channel (frontdesk channel query --once --all)"
	  " or the customer; a person must look'"
	  " FROM pay_order o INDEXED BY pay_order_to_query"
	  " WHERE (o.status = 'created' OR o.status = 'paying' OR o.status = 'refunding')"
	  " AND o.status IN ('created', 'paying') AND o.created_at <= ?1 - ?2"
	  " ORDER BY o.id" },
	{ NULL, NULL, NULL },
};
/* clang-format on */

const char *check_describe(const char *code)
{
	int i;

	if (!strcmp(code, "projection_stale"))
		return _("every calendar row equals a fresh recomputation from the records");
	if (!strcmp(code, "recon-batch-interrupted"))
		return _("no reconciliation batch is left running by a run that ended without "
		         "finishing");
	if (!strcmp(code, "channel-provider-failing"))
		return _("no enabled payment provider has been failing for longer than "
		         "channel_failing_report_seconds");
	if (!strcmp(code, "esign-document-missing") || !strcmp(code, "esign-document-changed"))
		return _("every signed estimate's final document is where it was stored, with the "
		         "SHA-256 recorded when it was downloaded");
	if (!strcmp(code, "condition-media-missing") || !strcmp(code, "condition-media-changed"))
		return _(
		    "every condition report's medium has its copy beside the database, with the "
		    "SHA-256 recorded when it was added");
	if (!strcmp(code, "condition-document-missing") ||
	    !strcmp(code, "condition-document-changed"))
		return _("every final condition report's printed document is beside the database, "
		         "with the SHA-256 recorded when the report was made final");
	for (i = 0; checks[i].code; i++)
		if (!strcmp(checks[i].code, code))
			return _(checks[i].what);
	for (i = 0; promises[i].code; i++)
		if (!strcmp(promises[i].code, code))
			return _(promises[i].what);
	return NULL;
}

/* ---------------------------------------------------------------- the file */

/* SQLite's own check of the whole file (integrity_check; quick_check for a
 * range) reads every page and, for integrity_check, looks every row up in
 * every index of its table: as long as all the product's invariants
 * together. It says nothing about the snapshot the invariants read (the
 * file, not the records), so `frontdesk check` runs it beside them, on a
 * second read-only connection in a thread of its own, and reports what it
 * found when the rest is done. Where there is no file to open again (an
 * in-memory database) or no thread, it runs on db, in turn. */
struct file_check {
	const struct check_def *def;
	const char *sql;
	sqlite3 *h;   /* its own connection; NULL: run on db, in turn */
	pthread_t th; /* while started */
	int started;
	char **rows; /* what it found: one detail each */
	size_t n, cap;
	char *stopped; /* why it could not run or finish (a detail) */
};

static void file_check_add(struct file_check *f, const char *row)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 8;
		f->rows = xrealloc(f->rows, f->cap * sizeof *f->rows);
	}
	f->rows[f->n++] = xstrdup(row);
}

/* Run f->sql on h, keeping every row and why it stopped. */
static void file_check_on(struct file_check *f, sqlite3 *h)
{
	sqlite3_stmt *st;
	char why[400];
	int step;

	if (sqlite3_prepare_v2(h, f->sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(why, sizeof why, "this check could not run: %s", sqlite3_errmsg(h));
		f->stopped = xstrdup(why);
		return;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *d = sqlite3_column_text(st, 0);

		file_check_add(f, d ? (const char *)d : "");
	}
	if (step != SQLITE_DONE) {
		snprintf(why, sizeof why, "this check could not finish: %s", sqlite3_errmsg(h));
		f->stopped = xstrdup(why);
	}
	sqlite3_finalize(st);
}

static void *file_check_main(void *arg)
{
	struct file_check *f = arg;

	file_check_on(f, f->h);
	return NULL;
}

/* Start check def (its query sql) on the file of db beside the caller's
 * work; file_check_end reports it. */
static void file_check_start(struct db *db, struct file_check *f, const struct check_def *def,
                             const char *sql)
{
	const char *path = sqlite3_db_filename(db_sqlite(db), "main");

	memset(f, 0, sizeof *f);
	f->def = def;
	f->sql = sql;
	/* opened as the database module opens a file to read it (sharing
	 * the -wal of the sessions there, or immutable when there is none);
	 * a file it cannot open so is checked on db, in turn */
	if (!path || !*path || db_open_raw_readonly(path, &f->h) != SQLITE_OK) {
		sqlite3_close(f->h);
		f->h = NULL;
		return;
	}
	sqlite3_busy_timeout(f->h, 5000);
	f->started = pthread_create(&f->th, NULL, file_check_main, f) == 0;
}

/* Wait for f (or run it now on db), report what it found and free it.
 * Returns the number reported. */
static int file_check_end(struct db *db, struct file_check *f,
                          void (*report)(const char *code, const char *detail, void *arg),
                          void *arg)
{
	int found = 0;
	size_t i;

	if (f->started)
		pthread_join(f->th, NULL);
	else if (db_exec(db, "BEGIN") == 0) {
		file_check_on(f, db_sqlite(db));
		db_rollback(db);
	} else {
		f->stopped = xstrdup(err_msg());
	}
	for (i = 0; i < f->n; i++) {
		report(f->def->code, f->rows[i], arg);
		free(f->rows[i]);
		found++;
	}
	if (f->stopped) {
		report(f->def->code, f->stopped, arg);
		free(f->stopped);
		found++;
	}
	free(f->rows);
	sqlite3_close(f->h);
	memset(f, 0, sizeof *f);
	return found;
}

/* The page cache of a check (db_cache_grow): a batch job's, not a desk's:
 * the invariants look rows up by index all over a file of gigabytes, and
 * with the desk's cache they read the same index pages again and again (on
 * 100,000 visits 540,000 reads of a 50,000-page file; 156,000 with this
 * one). */
#define CHECK_CACHE_KIB 65536

#define QUICK_CHECK_SQL "SELECT quick_check FROM pragma_quick_check WHERE quick_check <> 'ok'"

static int check_run_from(struct db *db, int64_t since, int skip_file,
                          void (*report)(const char *code, const char *detail, void *arg),
                          void *arg);

struct stale_ctx {
	void (*report)(const char *code, const char *detail, void *arg);
	void *arg;
	int found;
};

static int report_stale(const struct projection_diff *d, void *arg)
{
	struct stale_ctx *s = arg;
	char detail[256];

	if (d->queued)
		return 0;
	snprintf(detail, sizeof detail, "visit %lld: calendar row %s%s%s",
	         (long long)d->appointment_id, d->problem, d->fields && *d->fields ? ": " : "",
	         d->fields ? d->fields : "");
	s->found++;
	s->report("projection_stale", detail, s->arg);
	return 0;
}

/* The calendar's walk stopped before its end: what it found so far is
 * reported already; that it stopped is a finding too. */
static void report_stopped_walk(struct stale_ctx *s)
{
	char detail[300];

	snprintf(detail, sizeof detail, "the calendar check could not finish: %s", err_msg());
	s->report("projection_stale", detail, s->arg);
	s->found++;
}

/* ---------------------------------------------------------------- the running shop */

static void report_stopped(const struct check_def *c, const char *how, const char *sqlite_why,
                           void (*report)(const char *code, const char *detail, void *arg),
                           void *arg);

struct failing_ctx {
	void (*report)(const char *code, const char *detail, void *arg);
	void *arg;
};

static int report_failing(const char *code, int64_t since, void *arg)
{
	struct failing_ctx *f = arg;
	char when[40], detail[300];

	clock_format_local(since, "%Y-%m-%d %H:%M", when, sizeof when);
	snprintf(detail, sizeof detail,
	         "payment provider %s has been failing since %s (longer than "
	         "channel_failing_report_seconds = %lld): a person must look",
	         code, when, (long long)pipe_provider_failing_limit());
	f->report("channel-provider-failing", detail, f->arg);
	return 0;
}

/* channel-provider-failing: every enabled payment provider whose calls
 * have failed for longer than channel_failing_report_seconds (real time,
 * clock_real). Returns how many, or a negative FD_E* code. */
static int check_channel_failing(struct db *db,
                                 void (*report)(const char *code, const char *detail, void *arg),
                                 void *arg)
{
	struct failing_ctx f = {report, arg};

	return pipe_provider_failing_each(db, clock_real(), report_failing, &f);
}

int check_promises(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
                   void *arg)
{
	int64_t now = clock_now(), horizon = pipe_rule_give_up_seconds();
	int i, step, found = 0;
	sqlite3_stmt *st;

	for (i = 0; promises[i].code; i++) {
		if (sqlite3_prepare_v2(db_sqlite(db), promises[i].sql, -1, &st, NULL) !=
		    SQLITE_OK) {
			found++;
			report_stopped(&promises[i], "this check could not run",
			               sqlite3_errmsg(db_sqlite(db)), report, arg);
			continue;
		}
		sqlite3_bind_int64(st, 1, now);
		sqlite3_bind_int64(st, 2, horizon);
		while ((step = sqlite3_step(st)) == SQLITE_ROW) {
			const unsigned char *d = sqlite3_column_text(st, 0);

			found++;
			report(promises[i].code, d ? (const char *)d : "", arg);
		}
		if (step != SQLITE_DONE) {
			found++;
			report_stopped(&promises[i], "this check could not finish",
			               sqlite3_errmsg(db_sqlite(db)), report, arg);
		}
		sqlite3_finalize(st);
	}
	/* the visits a recurring job promises, made up to the horizon */
	if ((i = recurring_check(db, report, arg)) < 0)
		return i;
	found += i;
	/* the messages the desk made, gone out */
	if ((i = message_check(db, report, arg)) < 0)
		return i;
	found += i;
	/* the changes the head office is to have */
	if ((i = hq_check(db, report, arg)) < 0)
		return i;
	return found + i;
}

/* What check_desk adds to check_all (and check_desk_since to its range):
 * the promises not kept, the channel failing, the reconciliation; n is
 * what was found before (a negative FD_E* is passed on). */
static int check_desk_rest(struct db *db, int n,
                           void (*report)(const char *code, const char *detail, void *arg),
                           void *arg)
{
	int m;

	if (n < 0 || (m = check_promises(db, report, arg)) < 0 ||
	    (n += m, m = check_channel_failing(db, report, arg)) < 0 ||
	    (n += m, m = recon_check(db, report, arg)) < 0)
		return n < 0 ? n : m;
	return n + m;
}

int check_desk(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
               void *arg)
{
	return check_desk_rest(db, check_all(db, report, arg), report, arg);
}

/* Every record's table of legal status moves (states.h), each mirrored by
 * the schema's status_transition rows that its triggers enforce. */
static const struct states *const machines[] = {
    &job_states,        &visit_states,           &invoice_states,   &payment_states,
    &refund_states,     &pay_order_states,       &inbox_states,     &outbox_states,
    &esign_states,      &booking_request_states, &retention_states, &recon_batch_states,
    &recon_diff_states, &approval_states,
};

/* status-moves: each record's moves in the code against the schema's rows
 * (states_agree): a program and a database that disagree on what a status
 * may become. Returns how many disagree, or a negative FD_E* code. */
static int check_moves(struct db *db,
                       void (*report)(const char *code, const char *detail, void *arg), void *arg)
{
	size_t i;
	int rc, found = 0;

	for (i = 0; i < sizeof machines / sizeof *machines; i++) {
		rc = states_agree(db, machines[i]);
		if (rc == FD_ECONFLICT) {
			report("status-moves", err_msg(), arg);
			found++;
		} else if (rc) {
			return rc;
		}
	}
	return found;
}

/* check_all (since < 0) or the checks of a range (since_build has filled
 * the temporary tables): SQLite's file check beside (integrity_check, or
 * quick_check for a range), the invariants, the calendar's rows, the signed
 * documents, the customers' lifecycle rows and the status moves. */
static int check_walk(struct db *db, int64_t since,
                      void (*report)(const char *code, const char *detail, void *arg), void *arg)
{
	struct stale_ctx s = {report, arg, 0};
	struct file_check file;
	int64_t cache;
	int n, rc;

	file_check_start(db, &file, &checks[0], since < 0 ? checks[0].sql : QUICK_CHECK_SQL);
	db_cache_grow(db, CHECK_CACHE_KIB, &cache);
	n = check_run_from(db, since, 1, report, arg);
	if (n < 0)
		goto out;
	if (since < 0
	        ? projection_check(db, report_stale, &s, NULL)
	        : projection_check_ids(db, "SELECT id FROM temp.since_appointment ORDER BY id",
	                               report_stale, &s, NULL))
		report_stopped_walk(&s);
	n += s.found;
	/* the signed estimates' final documents against their hashes, the
	 * customer lifecycle projection against its records, each record's
	 * status moves (code against schema) */
	if ((rc = esign_check_documents(db, report, arg)) < 0 ||
	    (n += rc, rc = condition_check_media(db, report, arg)) < 0 ||
	    (n += rc,
	     rc = lifecycle_check_in(db, since < 0 ? NULL : "SELECT id FROM temp.since_customer",
	                             report, arg)) < 0 ||
	    (n += rc, rc = check_moves(db, report, arg)) < 0) {
		n = rc;
		goto out;
	}
	n += rc;
out:
	db_cache_restore(db, cache);
	rc = file_check_end(db, &file, report, arg);
	return n < 0 ? n : n + rc;
}

int check_all(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
              void *arg)
{
	return check_walk(db, -1, report, arg);
}

/* One check could not run to its end (a row it cannot handle, such as a
 * sum beyond 64 bits): that is a violation too (its detail says why, in
 * SQLite's words), and the other checks still run. */
static void report_stopped(const struct check_def *c, const char *how, const char *sqlite_why,
                           void (*report)(const char *code, const char *detail, void *arg),
                           void *arg)
{
	char detail[400];

	snprintf(detail, sizeof detail, "%s: %s", how, sqlite_why);
	report(c->code, detail, arg);
}

/* The SQL of a check for a range: every comment that opens with "since:"
 * opened (its text kept, its delimiters dropped). Returns a new string. */
static char *check_uncomment(const char *sql)
{
	static const char open_mark[] = "/*since:";
	size_t n = strlen(sql);
	char *out = xmalloc(n + 1), *o = out;
	const char *p = sql, *m, *e;

	while ((m = strstr(p, open_mark)) && (e = strstr(m, "*/"))) {
		memcpy(o, p, (size_t)(m - p));
		o += m - p;
		m += sizeof open_mark - 1;
		memcpy(o, m, (size_t)(e - m));
		o += e - m;
		p = e + 2;
	}
	strcpy(o, p);
	return out;
}

/* The checks of checks[] on db; since >= 0: a range (the temporary tables
 * of since_build are filled), where SQLite's integrity_check becomes its
 * quick_check and foreign_key_check is left to the whole check. */
static int check_run_from(struct db *db, int64_t since, int skip_file,
                          void (*report)(const char *code, const char *detail, void *arg),
                          void *arg)
{
	int i, rc, step, found = 0;
	sqlite3_stmt *st;

	_Static_assert(MONEY_MAX == INT64_C(100000000000000), "MONEY_MAX_SQL is MONEY_MAX");
	/* one read transaction: every query sees the same snapshot */
	if ((rc = db_exec(db, "BEGIN")) != 0)
		return rc;
	for (i = 0; checks[i].code; i++) {
		char *sql = NULL;
		const char *text = checks[i].sql;

		if (skip_file && !strcmp(checks[i].code, "integrity"))
			continue; /* the caller runs it beside (file_check_start) */
		if (since >= 0) {
			if (!strcmp(checks[i].code, "foreign-key"))
				continue;
			if (!strcmp(checks[i].code, "integrity"))
				text = QUICK_CHECK_SQL;
			else
				text = sql = check_uncomment(text);
		}
		rc = sqlite3_prepare_v2(db_sqlite(db), text, -1, &st, NULL);
		free(sql);
		if (rc != SQLITE_OK) {
			found++;
			report_stopped(&checks[i], "this check could not run",
			               sqlite3_errmsg(db_sqlite(db)), report, arg);
			continue;
		}
		while ((step = sqlite3_step(st)) == SQLITE_ROW) {
			const unsigned char *d = sqlite3_column_text(st, 0);

			found++;
			report(checks[i].code, d ? (const char *)d : "", arg);
		}
		if (step != SQLITE_DONE) {
			found++;
			report_stopped(&checks[i], "this check could not finish",
			               sqlite3_errmsg(db_sqlite(db)), report, arg);
		}
		sqlite3_finalize(st);
	}
	db_rollback(db);
	return found;
}

int check_run(struct db *db, void (*report)(const char *code, const char *detail, void *arg),
              void *arg)
{
	return check_run_from(db, -1, 0, report, arg);
}

/* ---------------------------------------------------------------- a range */

/* The records created or changed since ?1, table by table, and the records
 * whose checked figures they move: an allocation, a line or a credit note
 * moves its invoice's; an allocation or a refund its payment's; a billed
 * line its line item's; a line item or a link its job's; a job its visits'
 * calendar rows; all of these their customer's lifecycle. Each table is
 * read once (its time columns have no index: one pass, no sort). Order
 * matters: later sets read earlier ones. */
static const char *const since_sql[] = {
    "invoice",
    "SELECT id FROM invoice WHERE created_at >= ?1 OR updated_at >= ?1"
    " OR issued_at >= ?1"
    " UNION SELECT invoice_id FROM payment_allocation WHERE created_at >= ?1"
    " UNION SELECT invoice_id FROM invoice_line WHERE created_at >= ?1"
    " UNION SELECT credits_id FROM invoice WHERE credits_id IS NOT NULL"
    " AND (created_at >= ?1 OR updated_at >= ?1 OR issued_at >= ?1)",
    "payment",
    "SELECT id FROM payment WHERE created_at >= ?1 OR updated_at >= ?1"
    " OR received_at >= ?1"
    " UNION SELECT payment_id FROM payment_allocation WHERE created_at >= ?1"
    " UNION SELECT payment_id FROM refund WHERE created_at >= ?1 OR updated_at >= ?1"
    " OR refunded_at >= ?1",
    "payment_allocation",
    "SELECT id FROM payment_allocation WHERE created_at >= ?1",
    "refund",
    "SELECT id FROM refund WHERE created_at >= ?1 OR updated_at >= ?1"
    " OR refunded_at >= ?1",
    "invoice_line",
    "SELECT id FROM invoice_line WHERE created_at >= ?1"
    " UNION SELECT id FROM invoice_line WHERE invoice_id IN temp.since_invoice",
    "line_item",
    "SELECT id FROM line_item WHERE created_at >= ?1 OR updated_at >= ?1"
    " UNION SELECT line_item_id FROM invoice_line WHERE line_item_id IS NOT NULL"
    " AND id IN temp.since_invoice_line",
    "service_order",
    "SELECT id FROM service_order WHERE created_at >= ?1 OR updated_at >= ?1"
    " UNION SELECT service_order_id FROM line_item WHERE id IN temp.since_line_item"
    " UNION SELECT service_order_id FROM appointment_work"
    " WHERE created_at >= ?1 OR updated_at >= ?1",
    "appointment_work",
    "SELECT id FROM appointment_work WHERE created_at >= ?1"
    " OR updated_at >= ?1",
    "appointment",
    "SELECT id FROM appointment WHERE created_at >= ?1 OR updated_at >= ?1"
    " OR start_at >= ?1"
    " UNION SELECT w.appointment_id FROM temp.since_service_order j"
    " JOIN appointment_work w ON w.service_order_id = j.id",
    "customer",
    "SELECT id FROM customer WHERE created_at >= ?1 OR updated_at >= ?1"
    " UNION SELECT customer_id FROM invoice WHERE id IN temp.since_invoice"
    " UNION SELECT customer_id FROM payment WHERE id IN temp.since_payment"
    " UNION SELECT customer_id FROM service_order WHERE id IN temp.since_service_order",
    "resource",
    "SELECT id FROM resource WHERE created_at >= ?1 OR updated_at >= ?1",
    "appointment_resource",
    "SELECT id FROM appointment_resource WHERE created_at >= ?1"
    " OR updated_at >= ?1 OR appointment_id IN temp.since_appointment",
    "esign_flow",
    "SELECT id FROM esign_flow WHERE created_at >= ?1 OR updated_at >= ?1",
    NULL,
};

/* Drop the temporary tables of a range. */
static void since_drop(struct db *db)
{
	char sql[96];
	int i;

	for (i = 0; since_sql[i]; i += 2) {
		snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS temp.since_%s", since_sql[i]);
		db_exec(db, sql);
	}
}

/* Fill temp.since_TABLE (id INTEGER PRIMARY KEY) for every table of
 * since_sql, in one transaction (one snapshot). 0 or a negative FD_E*. */
static int since_build(struct db *db, int64_t since)
{
	char sql[1024];
	sqlite3_stmt *st;
	int i, rc;

	since_drop(db);
	if ((rc = db_exec(db, "BEGIN")))
		return rc;
	for (i = 0; since_sql[i]; i += 2) {
		snprintf(sql, sizeof sql, "CREATE TEMP TABLE since_%s (id INTEGER PRIMARY KEY)",
		         since_sql[i]);
		if ((rc = db_exec(db, sql)))
			goto fail;
		snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO temp.since_%s %s", since_sql[i],
		         since_sql[i + 1]);
		if ((rc = db_prepare(db, sql, &st)))
			goto fail;
		sqlite3_bind_int64(st, 1, since);
		rc = sqlite3_step(st) == SQLITE_DONE
		         ? 0
		         : db_fail(db, _("cannot list the records changed since the date"));
		sqlite3_finalize(st);
		if (rc)
			goto fail;
	}
	return db_commit(db);
fail:
	db_rollback(db);
	since_drop(db);
	return rc;
}

int check_desk_since(struct db *db, int64_t since,
                     void (*report)(const char *code, const char *detail, void *arg), void *arg)
{
	int n;

	if (since < 0)
		since = 0;
	if ((n = since_build(db, since)))
		return n;
	n = check_desk_rest(db, check_walk(db, since, report, arg), report, arg);
	since_drop(db);
	return n;
}
