/*
 * customer.h - the people and businesses the shop works for.
 *
 * Every function validates all of its input before it writes anything and
 * writes inside one BEGIN IMMEDIATE transaction; history rows are written by
 * the schema's triggers.
 */
#ifndef FD_CUSTOMER_H
#define FD_CUSTOMER_H

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

/* customer_list - call cb for every customer whose name or phone contains
 * search (NULL: all), by name; stops early and returns cb's value if it is
 * non-zero. The struct passed to cb is valid during the call only. */
int customer_list(struct db *db, const char *search, int (*cb)(const struct customer *c, void *arg),
                  void *arg);

void customer_free(struct customer *c);

#endif
