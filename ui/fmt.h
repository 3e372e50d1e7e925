/*
 * fmt.h - how the screen writes amounts, dates and status words.
 *
 * Amounts are formatted by money.h (never through the locale's decimal
 * point) with their currency code beside them where the currency is not
 * obvious; dates in shop time. Status identifiers from the core become
 * translated words; an unknown one is shown as it is. Callers: views.
 */
#ifndef FD_FMT_H
#define FD_FMT_H

#include <stddef.h>
#include <stdint.h>

#define FMT_MONEY 48

/* fmt_money - v in currency cur ("1,234.50"); "?" for an unknown currency. */
const char *fmt_money(int64_t v, const char *cur, char buf[FMT_MONEY]);

/* fmt_money_cur - the same followed by the code ("1,234.50 USD"). */
const char *fmt_money_cur(int64_t v, const char *cur, char buf[FMT_MONEY]);

/* fmt_date / fmt_datetime - t in shop time ("2026-12-01", "2026-12-01 09:00");
 * "-" for 0. */
const char *fmt_date(int64_t t, char buf[32]);
const char *fmt_datetime(int64_t t, char buf[32]);

/* fmt_status - the translated word of a status identifier of any record
 * (visit, job, invoice, payment, refund) or payment method. */
const char *fmt_status(const char *id);

/* fmt_signature - what a job's signature state (esign_job_state:
 * authorised, sent, viewed, declined, expired, cancelled) says, translated. */
const char *fmt_signature(const char *state);

#endif
