/*
 * chan-adapters.h - the payment channel's adapters: finding one by name,
 * the one a provider reads with, opening it with the provider's secrets,
 * and adding or changing a payment provider with them.
 *
 * Callers: chan-steps.c (the payment type's steps), the commands of the
 * channel and of reconciliation (cli-chan.c, cli-recon.c), the screen's
 * reconciliation form, inbox_ingest's callers.
 */
#ifndef FD_CHAN_ADAPTERS_H
#define FD_CHAN_ADAPTERS_H

#include <signal.h>

struct chan_ctx;
struct chan_ops;
struct db;
struct pipe_conn;
struct pipe_log;
struct pipe_provider;
struct pipe_provider_change;

/* chan_adapter_change - add or change payment provider code as ch says,
 * in one transaction. FD_EINVAL, with nothing written, for a bad code, URL
 * or role, a rollout outside 0..100 (the schema's CHECK refuses it too), an
 * adapter frontdesk does not have, a card page other than checkout or
 * intent, or a second enabled primary (the message
 * names how to switch). */
int chan_adapter_change(struct db *db, const char *code, const struct pipe_provider_change *ch);

/* chan_adapter_set - add or change provider code: base_url (NULL: keep;
 * required when adding), role (NULL: keep; "primary" when adding), enabled
 * (-1: keep; 1 when adding). FD_EINVAL for a bad code, URL or role, or a
 * second enabled primary (the message names how to switch). */
int chan_adapter_set(struct db *db, const char *code, const char *base_url, const char *role,
                     int enabled);

/* chan_adapter_find - the operations of the adapter called name
 * ("stripe"), NULL when frontdesk has none by that name. */
const struct chan_ops *chan_adapter_find(const char *name);
/* chan_adapter_known - 1 when chan_adapter_find(name) finds one. */
int chan_adapter_known(const char *name);

/* chan_adapter_of - *ops = the adapter that reads what provider code
 * sends: the one its row's settings name ("adapter"; stripe when none, as
 * chan_adapter_open), else (no row) the adapter called code. FD_ENOTFOUND with a reason when
 * there is none. Opens nothing: for reading relayed events (inbox_ingest). */
int chan_adapter_of(struct db *db, const char *code, const struct chan_ops **ops);

/* chan_adapter_open - the adapter for provider p: load the secrets file
 * (secrets_path NULL: the default; refused when group or others can read
 * it), check the URL, and open the adapter. *ops and *ctx (close with
 * (*ops)->close) are set on success. */
int chan_adapter_open(const struct pipe_provider *p, const char *secrets_path, struct pipe_log *log,
                      volatile sig_atomic_t *stop, const struct chan_ops **ops,
                      struct chan_ctx **ctx);

/* chan_adapter_connect - open the channel of provider (NULL: the enabled
 * primary) for db: pipe_provider_get, the request log
 * (pipe_log_default_path), chan_adapter_open with secrets_path and stop.
 * On an error nothing is left open. Close with pipe_conn_close. */
int chan_adapter_connect(struct db *db, const char *provider, const char *secrets_path,
                         volatile sig_atomic_t *stop, struct pipe_conn *c);

#endif
