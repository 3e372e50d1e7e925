/*
 * pipe-rule.h - the integration pipeline's shared rules, below every
 * module of the pipeline (inbox, outbox, poller, providers): how long to
 * wait after a failure, when to give up, and what a provider code may be.
 * They depend on the database and the settings only.
 */
#ifndef FD_PIPE_RULE_H
#define FD_PIPE_RULE_H

#include <stdint.h>

struct db;

#define PIPE_BACKOFF_MIN 1
#define PIPE_BACKOFF_MAX 300

/* pipe_rule_backoff - seconds to wait after `failures` consecutive failures
 * (>= 1) given the channel's retry_after (-1: none) and code. */
int64_t pipe_rule_backoff(int64_t failures, int retry_after, int code);

/* The give-up horizon's default and bounds, in seconds
 * (pipeline_give_up_seconds). */
#define PIPE_GIVE_UP_DEFAULT 86400
#define PIPE_GIVE_UP_MIN     60
#define PIPE_GIVE_UP_MAX     (30 * 86400)

/* pipeline_give_up_seconds - the give-up horizon of the integration
 * pipeline: the setting pipeline_give_up_seconds (default 24 h, kept within
 * PIPE_GIVE_UP_MIN..MAX). An outbound command, or an inbound event that
 * waits for the channel (a failing call, a refund still pending there), is
 * tried on the backoff for at least this long before it is dead, and
 * `frontdesk check` reports an order still paying, or a refund still
 * unsettled, this long. */
int64_t pipe_rule_give_up_seconds(void);

/* pipe_rule_retry_plan - the one rule of the pipeline for a command or event
 * whose attempt failed in a way that may pass. failures: the failed
 * attempts so far, this one included (>= 1); retry_after and code as for
 * pipe_rule_backoff; since: when the row was queued or last revived by a person
 * (pipe_rule_since), now: the same clock (clock_now); a since of 0 (no such
 * time known) never gives up. Returns 1 when the row is to be given up
 * (now - since >= the horizon), else 0 with *wait = the
 * seconds to its next try (pipe_rule_backoff, at most PIPE_BACKOFF_MAX unless
 * the channel asked for longer). */
int pipe_rule_retry_plan(int64_t since, int64_t now, int64_t failures, int retry_after, int code,
                         int64_t *wait);

/* pipe_rule_since - *since = when row id of entity ("outbox_event",
 * "inbound_callback") last entered status entered ("pending", "received"),
 * that is when it was queued or a person revived it, from its status flow
 * (desk clock, clock_now); 0 when the flow has no such row. */
int pipe_rule_since(struct db *db, const char *entity, int64_t id, const char *entered,
                    int64_t *since);

/* inbox_source_valid - 0 if s is a provider code (1..40 of [a-z0-9_-]),
 * else FD_EINVAL with a reason. */
int inbox_source_valid(const char *s);

#endif
