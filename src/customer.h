/*
 * customer.h - the people and businesses the shop works for.
 *
 * Every function validates all of its input before it writes anything and
 * writes inside one BEGIN IMMEDIATE transaction; history rows are written by
 * the schema's triggers.
 */
#ifndef FD_CUSTOMER_H
#define FD_CUSTOMER_H

#include <stddef.h>
#include <stdint.h>

struct db;

struct customer {
	int64_t id;
	char *name;
	char *phone;   /* NULL when unknown */
	char *email;   /* NULL when unknown */
	char *address; /* NULL when unknown */
	char *note;    /* NULL when none */
	int64_t created_at, updated_at;
};

/* What to set. For customer_add, NULL optional fields stay unknown. For
 * customer_edit, NULL means "unchanged" and "" clears an optional field. */
struct customer_input {
	const char *name, *phone, *email, *address, *note;
};

/* customer_add - create a customer; *id_out gets its id. FD_EINVAL with a
 * reason when a field is unacceptable (nothing is written then). */
int customer_add(struct db *db, const struct customer_input *in, int64_t *id_out);

/* customer_get - fill *out (free with customer_free); FD_ENOTFOUND. */
int customer_get(struct db *db, int64_t id, struct customer *out);

/* customer_edit - change the given fields of customer id. */
int customer_edit(struct db *db, int64_t id, const struct customer_input *in);

/* customer_delete - remove a customer who has no jobs and no rows in the
 * contact log (FD_ECONFLICT otherwise). The row stays in customer_his as
 * deleted. */
int customer_delete(struct db *db, int64_t id);

/* customer_check - 0 when the fields in would be accepted by
 * customer_add (adding != 0: the name is required) or customer_edit (only
 * the given fields are checked), else FD_EINVAL with the reason; nothing is
 * read or written. The screen's form checks each field with it to show
 * the reason beside that field. */
int customer_check(const struct customer_input *in, int adding);

/* customer_search - call cb for the customers that match query, by name
 * (then id), at most limit of them (0: no limit); NULL or "" (after
 * trimming blanks) matches everyone. A customer matches when the query is
 * found, ignoring ASCII case, in the name, the address or the phone number
 * as typed, or when the query is a phone number (only digits, blanks and
 * + - ( ) .) with at least 3 digits and those digits appear, in order and
 * together, among the digits of the phone number: 5550142, "555 0142",
 * 555-0142 and "(555) 0142" all find 555-0142. Stops early and returns
 * cb's value if it is non-zero. The struct passed to cb is valid during
 * the call only. Cost: one pass over the customer table in name order
 * (index customer_by_name), stopping after limit matches; see
 * customer.c. */
int customer_search(struct db *db, const char *query, int limit,
                    int (*cb)(const struct customer *c, void *arg), void *arg);

/* customer_list - customer_search without a limit. */
int customer_list(struct db *db, const char *search, int (*cb)(const struct customer *c, void *arg),
                  void *arg);

/* customer_find - the customer text names, in *id_out (and its name in
 * name, size n, when name is not NULL): its number (up to 6 digits; 7
 * or more digits are searched as a phone number); else the one customer
 * whose name is text (any ASCII case); else the one customer_search finds.
 * FD_ENOTFOUND when nobody matches, FD_ECONFLICT when several do (the
 * reason says how many), FD_EINVAL for empty text. */
int customer_find(struct db *db, const char *text, int64_t *id_out, char *name, size_t n);

/* customer_find_contact - the customer lists show (neither soft-deleted
 * nor purged) whose phone has the digits of phone, else whose e-mail is
 * email (any ASCII case; either may be NULL or ""), the lowest id when
 * several: 0 with *id_out, FD_ENOTFOUND. An exact match, never a search: for
 * a booking channel's request, whose phone must never be read as a
 * customer number or a part of someone else's. */
int customer_find_contact(struct db *db, const char *phone, const char *email, int64_t *id_out);

/* customer_find_soft_deleted - the soft-deleted customer (retention.h:
 * hidden from customer_search, not purged) whose phone has the digits of
 * phone or whose e-mail is email (either may be NULL or ""): 0 with *id_out,
 * FD_ENOTFOUND. For a booking channel's request from a former customer: it
 * books for them, and that activity restores them. */
int customer_find_soft_deleted(struct db *db, const char *phone, const char *email,
                               int64_t *id_out);

void customer_free(struct customer *c);

#endif
