/*
 * esign-int.h - what the files of the e-sign type share (private to
 * esign.c and esign-flow.c). Other modules use esign.h.
 */
#ifndef FD_ESIGN_INT_H
#define FD_ESIGN_INT_H

#include <stddef.h>

#include "esign.h"

struct db;
struct pipe_provider;

#define ESIGN_QUERY_EVERY 300 /* default seconds between queries of one open flow */
#define FOUND_PREFIX      "frontdesk.envelope."

/* esign_may_move - 1 when a flow may go from state a to state b (esign_states:
 * the schema's rows of status_transition). */
int esign_may_move(enum esign_state a, enum esign_state b);
/* esign_adapter_of - the adapter provider p names in its settings. */
const struct esign_ops *esign_adapter_of(const struct pipe_provider *p);
/* esign_enqueue - INSIDE a transaction: an outbox command of type for
 * estimate number at provider code, with the flow's envelope_id (NULL
 * before it has one) and a fresh idempotency key. */
int esign_enqueue(struct db *db, const char *type, const char *number, const char *code,
                  const char *envelope_id);

#endif
