/*
 * desk.h - the small read queries the desk screen needs that no other
 * module offers: whether a connection is read-only, what the status line
 * shows of the payment channel (its worker's state, pending inbound events
 * and dead letters) and the outbox commands of the dead-letter view. The
 * card payment orders are read through their owner, chan-order.h.
 *
 * Reads only; every function follows the core's conventions (0 or a
 * negative FD_E* code with a reason in err_msg(); a list stops at the
 * first non-zero value of its callback and returns it). The screen never
 * writes SQL itself: what it needs is here, or in the module that owns the
 * record (the invoices of a job and the invoice search are invoice.h's). Callers: ui/ (the screen).
 */
#ifndef FD_DESK_H
#define FD_DESK_H

#include <stdint.h>

struct db;

/* desk_readonly - 1 when db was opened read-only, else 0. */
int desk_readonly(struct db *db);

/* What the status line shows of the payment channel. Times are the real
 * clock (UTC seconds), like the channel worker's; 0 means never / none. */
struct desk_channel {
	int configured;          /* an enabled primary payment provider exists */
	char provider[41];       /* its code ("" when not configured) */
	char state[10];          /* channel_state.state: off, idle, polling, offline */
	int worker;              /* a live process holds the channel lease */
	int64_t offline_until;   /* while offline: the next try */
	int64_t last_success_at; /* the last poll that read its window to the end */
	int64_t inbox_pending;   /* inbound events received, failed or parked */
	int64_t inbox_dead;      /* inbound events given up (a person must look) */
};

/* desk_channel_read - fill *out: the enabled primary provider, its row of
 * channel_state (a provider never polled reads as "off"), whether a live
 * process holds the channel lease (a holder past its expiry, or a process
 * of this host that is gone, does not count), and the inbound counts. Every
 * read is one indexed lookup or an index range over the rows counted, so it
 * is cheap enough for every tick of the screen. With no provider, *out says
 * configured = 0 and state "off" (the inbound counts are still read). */
int desk_channel_read(struct db *db, struct desk_channel *out);

/* desk_outbox_dead - *n = the outbox commands given up (status 'dead').
 * There is no index on the outbox's status for this, so it reads the
 * outbox table: call it when the database changed (db_data_version), not
 * on every tick. */
int desk_outbox_dead(struct db *db, int64_t *n);

/* One outbound command (a row of outbox_event), as the dead-letter view
 * shows it. Strings are owned by the struct (desk_outbox_free). */
struct desk_outbox {
	int64_t id;
	char *event_type;    /* "payment.create", "refund.create" */
	char *business_key;  /* our order number or refund key */
	char *provider_code; /* the channel it is for */
	char *status;        /* pending, sending, succeeded, failed, dead */
	char *last_error;    /* NULL when none */
	char *payload;       /* the JSON text we send */
	int64_t retry_count;
	int64_t created_at, updated_at; /* our clock */
	int64_t sent_at;                /* 0 when never sent */
};

/* desk_outbox_list - call cb with each outbox command in status (e.g.
 * "dead"), newest first, at most limit (<= 0: 100). The struct passed to cb
 * is valid during the call only. Like desk_outbox_dead it reads the outbox
 * table (no index on status): call it when a person asks, not per tick. */
int desk_outbox_list(struct db *db, const char *status, int limit,
                     int (*cb)(const struct desk_outbox *o, void *arg), void *arg);

/* desk_outbox_get - fill *out with command id (free with desk_outbox_free);
 * FD_ENOTFOUND when there is no such command. */
int desk_outbox_get(struct db *db, int64_t id, struct desk_outbox *out);

/* desk_outbox_free - free the strings of o (which may be zeroed). */
void desk_outbox_free(struct desk_outbox *o);

#endif
