/*
 * contact.h - the contact log: calls, messages and visits at the counter
 * with a customer (table contact_log): who, when, channel, direction and a
 * short summary, and the operator who wrote it down.
 *
 * Rows are only ever added; the schema's triggers refuse UPDATE and DELETE.
 * A correction is a new row whose corrects_id names an older row of the
 * same customer; the corrected row stays as it was, and a list shows which
 * row corrects it. The summary is personal data: data retention's purge
 * will need a path of its own past those triggers (see migration 0011).
 *
 * Conventions as in job.h: 0 or a negative FD_E* code with a translated
 * reason in err_msg(); input is checked before the write transaction, so a
 * refused request changes nothing.
 *
 * Callers: the command line (cli-contact.c), the screen (the customer
 * pane's contact log), customer.c (a customer with a log is not deleted).
 */
#ifndef FD_CONTACT_H
#define FD_CONTACT_H

#include <stdint.h>

struct db;

#define CONTACT_SUMMARY_MAX 2000 /* bytes */

struct contact {
	int64_t id;
	int64_t customer_id;
	int64_t at;        /* when it happened, UTC seconds */
	char channel[12];  /* phone, sms, email, counter, other */
	char direction[4]; /* in (the customer reached us), out (we reached them) */
	char *summary;
	char *operator_id;    /* who wrote the row */
	int64_t corrects_id;  /* the older row this one corrects, 0 if none */
	int64_t corrected_by; /* the newest row that corrects this one, 0 if none */
	int64_t created_at;
};

/* The channels and directions, in the order forms offer them. */
#define CONTACT_NCHANNELS 5
extern const char *const contact_channels[CONTACT_NCHANNELS];
#define CONTACT_NDIRECTIONS 2
extern const char *const contact_directions[CONTACT_NDIRECTIONS];
/* Their labels for people, in the same order, N_() marked: pass them
 * through _() to show them. */
extern const char *const contact_channel_labels[CONTACT_NCHANNELS];
extern const char *const contact_direction_labels[CONTACT_NDIRECTIONS];

/* contact_label - the translated label of a channel or a direction as
 * stored; word itself when it is neither. */
const char *contact_label(const char *word);

/* What to log. customer_id, channel (one of contact_channels, any case),
 * direction (in or out, any case) and summary (1..CONTACT_SUMMARY_MAX
 * bytes, text_check: no card numbers) are required. at 0 means now; a time
 * more than 5 minutes ahead of the clock is refused (the log says what
 * happened). corrects_id 0 for none, else an existing row of the same
 * customer. */
struct contact_input {
	int64_t customer_id;
	int64_t at;
	const char *channel;
	const char *direction;
	const char *summary;
	int64_t corrects_id;
};

/* contact_add - log a contact; *id_out gets the row's id. FD_ENOTFOUND
 * for an unknown customer or corrected row, FD_EINVAL for a corrected row
 * of another customer or bad input. */
int contact_add(struct db *db, const struct contact_input *in, int64_t *id_out);

/* contact_check - check in by contact_add's rules that need no database
 * (the channel, the direction, the summary, the time, the corrected id's
 * sign; the customer is not looked up): 0, or FD_EINVAL with the reason in
 * err_msg(). For a form that shows the reason before posting. */
int contact_check(const struct contact_input *in);

/* contact_get - fill *out (free with contact_free); FD_ENOTFOUND. */
int contact_get(struct db *db, int64_t id, struct contact *out);

/* contact_list - call cb for every logged contact of customer_id, newest
 * first (by at, then by id); FD_ENOTFOUND when there is no such customer.
 * Stops at and returns cb's first non-zero value; the struct passed to cb is
 * valid during the call only. */
int contact_list(struct db *db, int64_t customer_id, int (*cb)(const struct contact *ct, void *arg),
                 void *arg);

/* contact_count - *n gets the number of logged contacts of customer_id. */
int contact_count(struct db *db, int64_t customer_id, int64_t *n);

void contact_free(struct contact *ct);

#endif
