/*
 * esign-int.h - what the files of the e-sign type share (private to
 * esign.c and esign-flow.c). Other modules use esign.h.
 */
#ifndef FD_ESIGN_INT_H
#define FD_ESIGN_INT_H

#include <stddef.h>
#include <stdint.h>

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

/* What a flow sends for signature, whatever it is for (an estimate, a
 * condition report). */
struct esign_subject {
	int64_t flow_id;
	char number[48];       /* ESIGN_FLOW_NUMBER */
	char state[16];        /* the flow's */
	char envelope_id[256]; /* "" until the provider answered */
	char provider[41];
	char *pdf_path;      /* the document's full path; NULL when a purge removed it */
	char pdf_sha256[65]; /* its hash when it was made */
	char *title;         /* shown to the signer */
	char *signer_name;   /* the customer */
	int64_t customer_id;
};

/* esign_subject_get - the flow number names (ESIGN_FLOW_NUMBER) into *out
 * (free with esign_subject_free). FD_ENOTFOUND. */
int esign_subject_get(struct db *db, const char *number, struct esign_subject *out);
void esign_subject_free(struct esign_subject *s);

/* esign_report_number - 1 when number is a condition report's flow's
 * (CR-<report>-F<flow>), with *report and *flow; else 0. */
int esign_report_number(const char *number, long long *report, long long *flow);
/* esign_report_number_make - out = CR-<report>-F<flow>, the number of
 * report's flow (ESIGN_FLOW_NUMBER's form, which esign_report_number reads). */
void esign_report_number_make(int64_t report, int64_t flow, char out[48]);

/* esign_subject_name - number in words for a message: "estimate
 * EST-2026-000001", "condition report 3". */
void esign_subject_name(const char *number, char *out, size_t n);

#endif
