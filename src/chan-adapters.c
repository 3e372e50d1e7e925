/*
 * chan-adapters.c - the payment channel's adapters (Stripe-compatible,
 * WeChat Pay style) by name, and opening the one a provider row names with
 * its secrets (see chan-adapters.h). The registry of providers
 * (pipe-provider.c) knows no adapter: the payment type's entry
 * (chan-steps.c) hands these to it.
 */
#include <config.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-adapters.h"
#include "chan-stripe.h"
#include "chan-wechat.h"
#include "channel.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "pipe-log.h"
#include "pipe-provider.h"
#include "pipe-secret.h"
#include "settings.h"

int chan_adapter_change(struct db *db, const char *code, const struct pipe_provider_change *ch)
{
	return pipe_provider_change_type(db, CHAN_TYPE_PAYMENT, code, ch, chan_adapter_known);
}

/* The adapters frontdesk has, by name. */
static const struct chan_ops *const adapters[] = {&chan_stripe_ops, &chan_wechat_ops};

int chan_adapter_set(struct db *db, const char *code, const char *base_url, const char *role,
                     int enabled)
{
	struct pipe_provider_change ch = {base_url, role, NULL, enabled, -1,
	                                  NULL,     NULL, NULL, NULL};

	return chan_adapter_change(db, code, &ch);
}

const struct chan_ops *chan_adapter_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof adapters / sizeof *adapters; i++)
		if (!strcmp(adapters[i]->code, name))
			return adapters[i];
	return NULL;
}

int chan_adapter_known(const char *name)
{
	return chan_adapter_find(name) != NULL;
}

/* The string key of a provider's settings (JSON), "" when none. */
static void settings_str(const char *settings, const char *key, char *out, size_t n)
{
	cJSON *set = cJSON_Parse(settings ? settings : "{}");
	cJSON *a = cJSON_GetObjectItemCaseSensitive(set, key);

	snprintf(out, n, "%s", cJSON_IsString(a) ? a->valuestring : "");
	cJSON_Delete(set);
}

/* The adapter name in a provider's settings (JSON), "" when none. */
static void settings_adapter(const char *settings, char *out, size_t n)
{
	settings_str(settings, "adapter", out, n);
}

int chan_adapter_of(struct db *db, const char *code, const struct chan_ops **ops)
{
	struct pipe_provider p;
	char name[64];
	int rc;

	*ops = NULL;
	rc = pipe_provider_get(db, code, &p);
	if (rc && rc != FD_ENOTFOUND)
		return rc;
	if (rc == 0) {
		/* the adapter its row names, stripe when none (as chan_adapter_open) */
		settings_adapter(p.settings, name, sizeof name);
		if (!*name)
			snprintf(name, sizeof name, "stripe");
		pipe_provider_free(&p);
	} else {
		/* no row: the adapter of that name */
		snprintf(name, sizeof name, "%s", code);
	}
	*ops = chan_adapter_find(name);
	if (!*ops)
		return err_set(FD_ENOTFOUND,
		               _("no channel adapter for '%s' (set the provider's adapter)"), code);
	return 0;
}

int chan_adapter_open(const struct pipe_provider *p, const char *secrets_path, struct pipe_log *log,
                      volatile sig_atomic_t *stop, const struct chan_ops **ops,
                      struct chan_ctx **ctx)
{
	struct chan_stripe_cfg cfg = {0};
	struct pipe_secrets *sec = NULL;
	const struct chan_ops *a;
	char key[64], name[64];
	int rc;

	*ops = NULL;
	*ctx = NULL;
	if (!p->enabled) {
		rc = err_set(FD_EINVAL, _("the payment provider '%s' is disabled"), p->code);
		goto out;
	}
	settings_adapter(p->settings, name, sizeof name);
	a = chan_adapter_find(*name ? name : "stripe");
	if (!a) {
		rc = err_set(FD_EINVAL, _("the provider '%s' names an unknown adapter"), p->code);
		goto out;
	}
	if ((rc = pipe_secret_load(secrets_path, &sec)) != 0)
		goto out;
	snprintf(key, sizeof key, "%s_api_key", p->code);
	if ((rc = pipe_secret_need(sec, key, &cfg.api_key)) != 0)
		goto out;
	cfg.base_url = p->base_url;
	cfg.log = log;
	cfg.stop = stop;
	cfg.connect_timeout_ms = config_get_int("channel_connect_timeout_ms", 5000);
	cfg.total_timeout_ms = config_get_int("channel_timeout_ms", 30000);
	cfg.low_speed_secs = config_get_int("channel_low_speed_seconds", 10);
	if (a == &chan_wechat_ops) {
		/* the merchant key signs; appid and mch_id name the account */
		struct chan_wechat_cfg wc = {0};
		enum chan_wx_sign_type st;
		const char *nu = config_get("channel_notify_url", "https://localhost/notify");

		wc.base_url = cfg.base_url;
		wc.key = cfg.api_key;
		snprintf(key, sizeof key, "%s_appid", p->code);
		if ((rc = pipe_secret_need(sec, key, &wc.appid)) != 0)
			goto out;
		snprintf(key, sizeof key, "%s_mch_id", p->code);
		if ((rc = pipe_secret_need(sec, key, &wc.mch_id)) != 0)
			goto out;
		if ((rc = chan_wx_settings_sign_type(p->settings, &st)) != 0)
			goto out;
		wc.sign_type = (int)st;
		wc.notify_url = nu;
		wc.log = log;
		wc.stop = stop;
		wc.connect_timeout_ms = cfg.connect_timeout_ms;
		wc.total_timeout_ms = cfg.total_timeout_ms;
		wc.low_speed_secs = cfg.low_speed_secs;
		rc = chan_wechat_open(&wc, ctx);
	} else {
		snprintf(key, sizeof key, "%s_signing_secret", p->code);
		cfg.signing_secret = pipe_secret_get(sec, key);
		settings_str(p->settings, "card_page", name, sizeof name);
		cfg.checkout = !strcmp(name, "checkout");
		rc = chan_stripe_open(&cfg, ctx);
	}
	if (rc)
		goto out;
	*ops = a;
out:
	pipe_secret_free(sec);
	return rc;
}

int chan_adapter_connect(struct db *db, const char *provider, const char *secrets_path,
                         volatile sig_atomic_t *stop, struct pipe_conn *c)
{
	char *logpath;
	int rc;

	memset(c, 0, sizeof *c);
	if ((rc = pipe_provider_get(db, provider, &c->p)) != 0)
		return rc;
	logpath = pipe_log_default_path(db_path(db));
	rc = pipe_log_open(logpath, &c->log);
	free(logpath);
	if (!rc)
		rc = chan_adapter_open(&c->p, secrets_path, c->log, stop, &c->ops, &c->ctx);
	if (rc)
		pipe_conn_close(c);
	return rc;
}
