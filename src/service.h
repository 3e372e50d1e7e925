/*
 * service.h - the catalogue of services and fees the shop offers (table
 * service): a name, a line item kind, a default price in a currency and a
 * default duration in minutes.
 *
 * A service is never deleted, only retired: a retired one stays on record
 * but is no longer offered (service_list without all, service_to_job).
 * Retired is final. The name is unique among active services, ignoring the
 * case of ASCII letters. A service's price is a default: service_to_job
 * copies the name and price into a new line item of a job, so a later
 * change of the catalogue never touches an existing line item, and invoice
 * lines keep their own snapshots of what was billed.
 *
 * Conventions as in job.h: every function returns 0 or a negative FD_E*
 * code with a translated reason in err_msg() (FD_EINVAL for unacceptable
 * input, FD_ENOTFOUND, FD_ECONFLICT when the service's state does not allow
 * the request); every write checks its input first and runs in one write
 * transaction, so a refused request changes nothing; history rows
 * (service_his) are written by the schema's triggers.
 *
 * Callers: the command line (cli-service.c), the screen (the catalogue
 * screen and the booking form).
 */
#ifndef FD_SERVICE_H
#define FD_SERVICE_H

#include <stdint.h>

struct db;

/* The longest a service takes by default (the limit of a visit link's
 * estimated minutes). */
#define SERVICE_MINUTES_MAX 100000

struct service {
	int64_t id;
	char *name;
	char kind[12]; /* SERVICE, FEE, DISCOUNT, TAX, CREDIT */
	int64_t price; /* minor units of currency, 0..MONEY_MAX */
	char currency[4];
	int64_t minutes; /* default duration, 0..SERVICE_MINUTES_MAX */
	int active;      /* 1: offered; 0: retired */
	int64_t created_at, updated_at;
};

/* The line item kinds a service may have, in the order forms offer them,
 * and their labels for people (N_() marked: pass them through _()). */
#define SERVICE_NKINDS 5
extern const char *const service_kinds[SERVICE_NKINDS];
extern const char *const service_kind_labels[SERVICE_NKINDS];

/* A price or minutes of struct service_input that is not given. */
#define SERVICE_KEEP INT64_MIN

/* What to set. For service_add name and price are required (kind NULL:
 * SERVICE; currency NULL: the config key `currency`, else USD; minutes
 * SERVICE_KEEP: 0). For service_edit NULL or SERVICE_KEEP means unchanged
 * (any other negative number is refused); the currency cannot be edited
 * (retire the service and add it again in the other currency). Limits:
 * name 1..200 bytes (text_check),
 * kind one of the line item kinds (any case), price 0..MONEY_MAX (DISCOUNT
 * and CREDIT take money off with a positive price, as line items do),
 * minutes 0..SERVICE_MINUTES_MAX. */
struct service_input {
	const char *name;
	const char *kind;
	const char *currency;
	int64_t price;
	int64_t minutes;
};

/* service_check - check the fields given in in (NULL or SERVICE_KEEP: not
 * given) by the rules service_add and service_edit apply that need no
 * database: the name, the kind, a known currency, a price not negative
 * and (with the currency) within the money limit, the minutes. For a form
 * that shows the reason beside one field: give that field alone (a price
 * with its currency). 0, or FD_EINVAL with the reason in err_msg(). */
int service_check(const struct service_input *in);

/* service_default_currency - the currency of a service added without one:
 * the config key `currency`, else USD. */
const char *service_default_currency(void);

/* service_read_price - read text as a price in the currency named code,
 * as money_parse reads amounts ("45.00", "1,234.50"); *out is untouched
 * when refused. FD_EINVAL with the reason: an unknown currency, text that
 * is not an amount in it. Whether the price is acceptable is
 * service_check's (and service_add's) to say. */
int service_read_price(const char *text, const char *code, int64_t *out);

/* service_read_minutes - read text as a whole number of minutes (digits
 * only: no sign, blank or decimals); FD_EINVAL with the reason. */
int service_read_minutes(const char *text, int64_t *out);

/* service_add - add an active service; *id_out gets its id. FD_ECONFLICT
 * when an active service has that name already. */
int service_add(struct db *db, const struct service_input *in, int64_t *id_out);

/* service_get - fill *out (free with service_free), retired or not;
 * FD_ENOTFOUND. */
int service_get(struct db *db, int64_t id, struct service *out);

/* service_edit - change the given fields of an active service;
 * FD_ECONFLICT for a retired one or a name another active service has,
 * FD_EINVAL when nothing is given. Line items made from it stay as they
 * are. */
int service_edit(struct db *db, int64_t id, const struct service_input *in);

/* service_retire - stop offering service id; FD_ECONFLICT when it is
 * retired already. */
int service_retire(struct db *db, int64_t id);

/* service_list - call cb for every active service (with all, the retired
 * ones too), by name; stops at and returns cb's first non-zero value. The
 * struct passed to cb is valid during the call only. */
int service_list(struct db *db, int all, int (*cb)(const struct service *s, void *arg), void *arg);

/* service_to_job - add active service id to job job_id as a new line item
 * of qty_milli thousandths (> 0) with the service's kind, its name as the
 * description and its price as the unit price (item_add in item.h, whose
 * rules apply). *item_id gets the line item's id. FD_ECONFLICT for a
 * retired service or a job in another currency than the service's price;
 * FD_ENOTFOUND when the service or the job does not exist. */
int service_to_job(struct db *db, int64_t id, int64_t job_id, int64_t qty_milli, int64_t *item_id);

/* service_find - the active service text names, in *id_out: its number,
 * its name (any case), else the one active service whose name starts with
 * text, else the one whose name contains it (the booking form's and
 * `frontdesk book`'s way of naming services). FD_ENOTFOUND when none does,
 * FD_ECONFLICT when several do (the reason names some), FD_EINVAL for
 * empty text. */
int service_find(struct db *db, const char *text, int64_t *id_out);

void service_free(struct service *s);

#endif
