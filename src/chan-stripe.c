/*
 * chan-stripe.c - the Stripe-compatible adapter (see chan-stripe.h).
 *
 * Invariants: nothing read from the channel is believed without checks
 * (ids bounded, amounts exact integers within +/-2^53, currencies three
 * letters); ids put into URL paths hold only [A-Za-z0-9_]; a page is
 * accepted only when it parses completely (a truncated page is CHAN_RETRY)
 * and each event's raw span parses to the same event.
 */
#include <config.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chan-stripe.h"
#include "err.h"
#include "i18n.h"
#include "pipe-http.h"
#include "pipe-sig.h"
#include "strbuf.h"
#include "xalloc.h"

struct chan_ctx {
	struct pipe_http http;
	char *base_url, *api_key, *signing_secret;
	int checkout; /* card orders are Checkout Sessions (cfg.checkout) */
};

int chan_stripe_open(const struct chan_stripe_cfg *cfg, struct chan_ctx **out)
{
	struct chan_ctx *c;
	int rc;

	*out = NULL;
	if ((rc = pipe_http_url_ok(cfg->base_url)) != 0)
		return rc;
	if (!cfg->api_key || !*cfg->api_key)
		return err_set(FD_EINVAL, _("the channel needs an API key in the secrets file"));
	c = xcalloc(1, sizeof *c);
	c->base_url = xstrdup(cfg->base_url);
	c->api_key = xstrdup(cfg->api_key);
	c->signing_secret = cfg->signing_secret ? xstrdup(cfg->signing_secret) : NULL;
	c->checkout = cfg->checkout;
	pipe_http_setup(&c->http, "stripe", c->base_url, cfg->connect_timeout_ms,
	                cfg->total_timeout_ms, cfg->low_speed_secs, cfg->log, cfg->stop);
	c->http.api_key = c->api_key;
	c->http.version_header = "Stripe-Version: " CHAN_STRIPE_VERSION;
	*out = c;
	return 0;
}

static void wipe_free(char *s)
{
	if (s) {
		memset(s, 0, strlen(s));
		free(s);
	}
}

static void stripe_close(struct chan_ctx *c)
{
	if (!c)
		return;
	pipe_http_release(&c->http);
	free(c->base_url);
	wipe_free(c->api_key);
	wipe_free(c->signing_secret);
	free(c);
}

/* ---------------------------------------------------------------- JSON spans */

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* The end (one past) of the JSON value starting at i, or 0 on error. A
 * value is never empty (a '}' or ',' where a value should start is an
 * error), so that every caller's loop moves forward. */
static size_t skip_value(const char *s, size_t len, size_t i)
{
	size_t start = i;
	int depth = 0;

	if (i >= len)
		return 0;
	if (s[i] != '{' && s[i] != '[' && s[i] != '"') {
		while (i < len && !strchr(",}] \t\r\n", s[i]))
			i++;
		return i > start ? i : 0;
	}
	for (; i < len; i++) {
		if (s[i] == '"') {
			for (i++; i < len && s[i] != '"'; i++)
				if (s[i] == '\\')
					i++;
			if (i >= len)
				return 0;
			if (depth == 0)
				return i + 1;
		} else if (s[i] == '{' || s[i] == '[') {
			depth++;
		} else if (s[i] == '}' || s[i] == ']') {
			if (--depth == 0)
				return i + 1;
		}
	}
	return 0;
}

int chan_json_spans(const char *body, size_t len, size_t **starts, size_t **lens, size_t *n)
{
	size_t i = skip_ws(body, len, 0), k, end, cap = 0;
	int is_data;

	*starts = NULL;
	*lens = NULL;
	*n = 0;
	if (i >= len || body[i] != '{')
		return -1;
	i = skip_ws(body, len, i + 1);
	while (i < len && body[i] == '"') {
		k = skip_value(body, len, i);
		if (!k)
			goto bad;
		is_data = (k - i == 6 && !memcmp(body + i, "\"data\"", 6));
		i = skip_ws(body, len, k);
		if (i >= len || body[i] != ':')
			goto bad;
		i = skip_ws(body, len, i + 1);
		if (is_data && i < len && body[i] == '[') {
			i = skip_ws(body, len, i + 1);
			while (i < len && body[i] != ']') {
				end = skip_value(body, len, i);
				if (!end)
					goto bad;
				if (*n == cap) {
					cap = cap ? cap * 2 : 16;
					*starts = xrealloc(*starts, cap * sizeof **starts);
					*lens = xrealloc(*lens, cap * sizeof **lens);
				}
				(*starts)[*n] = i;
				(*lens)[*n] = end - i;
				(*n)++;
				i = skip_ws(body, len, end);
				if (i < len && body[i] == ',')
					i = skip_ws(body, len, i + 1);
			}
			if (i >= len)
				goto bad;
			end = i + 1;
		} else {
			end = skip_value(body, len, i);
			if (!end)
				goto bad;
		}
		i = skip_ws(body, len, end);
		if (i < len && body[i] == ',')
			i = skip_ws(body, len, i + 1);
	}
	if (i < len && body[i] == '}')
		return 0;
bad:
	free(*starts);
	free(*lens);
	*starts = NULL;
	*lens = NULL;
	*n = 0;
	return -1;
}

/* ---------------------------------------------------------------- helpers */

static int id_ok(const char *id)
{
	size_t i, n = id ? strlen(id) : 0;

	if (n < 1 || n > 200)
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)id[i]) && id[i] != '_')
			return 0;
	return 1;
}

static int bad_data(struct chan_status *st, const char *why)
{
	snprintf(st->reason, sizeof st->reason, "%s", why);
	return CHAN_BADDATA;
}

/* A 2xx body that does not parse: cut short (retry a read) or not JSON. */
static int unreadable(struct chan_status *st, int post)
{
	snprintf(st->reason, sizeof st->reason, "%s",
	         _("the channel's answer is not complete JSON (cut short?)"));
	return post ? CHAN_UNKNOWN : CHAN_RETRY;
}

static int read_currency(const cJSON *o, char out[4])
{
	char buf[8];
	int i, rc;

	if ((rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "currency"), "currency", 0, buf,
	                        sizeof buf)) != 0)
		return rc;
	if (strlen(buf) != 3)
		return err_set(FD_EINVAL, _("the channel's currency is not three letters"));
	for (i = 0; i < 3; i++) {
		if (!isalpha((unsigned char)buf[i]))
			return err_set(FD_EINVAL, _("the channel's currency is not three letters"));
		out[i] = (char)toupper((unsigned char)buf[i]);
	}
	out[3] = '\0';
	return 0;
}

/* Stripe's payment intent statuses in the core's words. A failed attempt
 * returns an intent to requires_payment_method: pending, like a fresh one
 * (the event, payment_intent.payment_failed, says declined); the other
 * requires_* are steps of a payment under way. */
static enum chan_order_state intent_state(const char *s)
{
	if (!strcmp(s, "succeeded"))
		return CHAN_ORDER_SUCCEEDED;
	if (!strcmp(s, "canceled"))
		return CHAN_ORDER_CANCELED;
	if (!strcmp(s, "processing") || !strncmp(s, "requires_", 9))
		return strcmp(s, "requires_payment_method") ? CHAN_ORDER_PROCESSING
		                                            : CHAN_ORDER_PENDING;
	return CHAN_ORDER_PENDING;
}

/* Stripe's refund statuses (pending, requires_action, succeeded, failed,
 * canceled) in the core's words. */
static enum chan_refund_state refund_state(const char *s)
{
	if (!strcmp(s, "succeeded"))
		return CHAN_REFUND_SUCCEEDED;
	if (!strcmp(s, "failed"))
		return CHAN_REFUND_FAILED;
	if (!strcmp(s, "canceled"))
		return CHAN_REFUND_CANCELED;
	return CHAN_REFUND_PENDING;
}

/* Our order number and invoice id as we put them in an object's metadata
 * (md may be NULL or not an object: nothing to read). */
static int read_our_metadata(const cJSON *md, struct chan_order *out)
{
	char inv[24];
	int rc;

	if (!cJSON_IsObject(md))
		return 0;
	if ((rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(md, "order_no"), "order_no", 1,
	                        out->order_no, sizeof out->order_no)))
		return rc;
	if ((rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(md, "invoice_id"), "invoice_id", 1,
	                        inv, sizeof inv)))
		return rc;
	if (inv[0]) {
		char *end;
		long long x = strtoll(inv, &end, 10);

		if (*end || x <= 0)
			return err_set(FD_EINVAL, _("the channel's invoice_id is not an id"));
		out->invoice_id = x;
	}
	return 0;
}

static int read_order(const cJSON *o, struct chan_order *out)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
	const cJSON *v;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "id"), "id", 0, out->id,
	                        sizeof out->id)) ||
	    (rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "status"), "status", 0,
	                        out->status, sizeof out->status)) ||
	    (rc = chan_json_int(cJSON_GetObjectItemCaseSensitive(o, "amount"), "amount",
	                        &out->amount)) ||
	    (rc = read_currency(o, out->currency)))
		return rc;
	out->state = intent_state(out->status);
	v = cJSON_GetObjectItemCaseSensitive(o, "amount_received");
	if (v && !cJSON_IsNull(v) &&
	    (rc = chan_json_int(v, "amount_received", &out->amount_received)))
		return rc;
	v = cJSON_GetObjectItemCaseSensitive(o, "created");
	if (v && !cJSON_IsNull(v) && (rc = chan_json_int(v, "created", &out->created)))
		return rc;
	return read_our_metadata(md, out);
}

static int read_refund(const cJSON *o, struct chan_refund *out)
{
	const cJSON *v;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "id"), "id", 0, out->id,
	                        sizeof out->id)) ||
	    (rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "status"), "status", 0,
	                        out->status, sizeof out->status)) ||
	    (rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "payment_intent"),
	                        "payment_intent", 1, out->order_id, sizeof out->order_id)) ||
	    (rc = chan_json_int(cJSON_GetObjectItemCaseSensitive(o, "amount"), "amount",
	                        &out->amount)) ||
	    (rc = read_currency(o, out->currency)))
		return rc;
	out->state = refund_state(out->status);
	v = cJSON_GetObjectItemCaseSensitive(o, "created");
	if (v && !cJSON_IsNull(v) && (rc = chan_json_int(v, "created", &out->created)))
		return rc;
	return 0;
}

/* GET or POST and parse the answer as one object. */
static int call_json(struct chan_ctx *c, const char *kw, const char *method, const char *path,
                     const char *query, const char *form, const char *idem, cJSON **json,
                     struct chan_status *st)
{
	struct pipe_http_resp r;
	int code;

	*json = NULL;
	code = pipe_http_call(&c->http, kw, method, path, query, form, idem, &r, st);
	if (code == CHAN_OK) {
		*json = r.body ? cJSON_ParseWithLength(r.body, r.len) : NULL;
		if (!cJSON_IsObject(*json)) {
			cJSON_Delete(*json);
			*json = NULL;
			code = unreadable(st, !strcmp(method, "POST"));
		}
	}
	pipe_http_resp_free(&r);
	return code;
}

/* ---------------------------------------------------------------- events */

int chan_event_read(const cJSON *obj, struct chan_event *ev)
{
	const cJSON *data, *o;
	int rc;

	memset(ev, 0, sizeof *ev);
	if (!cJSON_IsObject(obj))
		return err_set(FD_EINVAL, _("the event is not a JSON object"));
	if ((rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(obj, "id"), "event id", 0, ev->id,
	                        sizeof ev->id)) != 0 ||
	    (rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(obj, "type"), "event type", 0,
	                        ev->type, sizeof ev->type)) != 0)
		return rc;
	if (!ev->id[0])
		return err_set(FD_EINVAL, _("the event id is empty"));
	o = cJSON_GetObjectItemCaseSensitive(obj, "created");
	if (o && !cJSON_IsNull(o) && (rc = chan_json_int(o, "event time", &ev->created)) != 0)
		return rc;
	data = cJSON_GetObjectItemCaseSensitive(obj, "data");
	o = cJSON_IsObject(data) ? cJSON_GetObjectItemCaseSensitive(data, "object") : NULL;
	if (cJSON_IsObject(o)) {
		if ((rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "id"), "object id", 1,
		                        ev->object_id, sizeof ev->object_id)) != 0 ||
		    (rc =
		         chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "object"), "object type",
		                       1, ev->object_type, sizeof ev->object_type)) != 0)
			return rc;
	}
	return 0;
}

/* ---------------------------------------------------------------- operations */

/* What an event type is about: payment_intent.* and checkout.session.*
 * an order (a Checkout Session is the order of a card order paid on its
 * page: completed, expired, async_payment_succeeded, async_payment_failed),
 * refund.* and charge.refund.* a refund, anything else nothing we act on. */
static enum chan_event_kind stripe_event_kind(const char *type, int *declined)
{
	*declined = !strcmp(type, "payment_intent.payment_failed") ||
	            !strcmp(type, "checkout.session.async_payment_failed");
	if (!strncmp(type, "payment_intent.", 15) || !strncmp(type, "checkout.session.", 17))
		return CHAN_EVENT_ORDER;
	if (!strncmp(type, "refund.", 7) || !strncmp(type, "charge.refund.", 14))
		return CHAN_EVENT_REFUND;
	return CHAN_EVENT_OTHER;
}

static int stripe_poll(struct chan_ctx *c, int64_t from, int64_t to, const char *after, int limit,
                       struct chan_page *out, struct chan_status *st)
{
	struct pipe_http_resp r;
	struct strbuf q = {0};
	char num[24];
	size_t *starts = NULL, *lens = NULL, n = 0, i;
	cJSON *json = NULL, *data, *more, *el;
	int code;

	memset(out, 0, sizeof *out);
	if (after && *after && !id_ok(after)) {
		memset(st, 0, sizeof *st);
		return bad_data(st, _("the event cursor is not an id"));
	}
	snprintf(num, sizeof num, "%lld", (long long)from);
	pipe_http_form(&q, "created[gte]", num);
	snprintf(num, sizeof num, "%lld", (long long)to);
	pipe_http_form(&q, "created[lte]", num);
	snprintf(num, sizeof num, "%d", limit < 1 ? 1 : limit > 100 ? 100 : limit);
	pipe_http_form(&q, "limit", num);
	if (after && *after)
		pipe_http_form(&q, "starting_after", after);
	code =
	    pipe_http_call(&c->http, "poll", "GET", "/v1/events", sb_cstr(&q), NULL, NULL, &r, st);
	sb_free(&q);
	if (code != CHAN_OK)
		goto out;
	json = r.body ? cJSON_ParseWithLength(r.body, r.len) : NULL;
	data = cJSON_GetObjectItemCaseSensitive(json, "data");
	more = cJSON_GetObjectItemCaseSensitive(json, "has_more");
	if (!cJSON_IsObject(json) || !cJSON_IsArray(data) || !cJSON_IsBool(more) ||
	    chan_json_spans(r.body, r.len, &starts, &lens, &n) != 0 ||
	    n != (size_t)cJSON_GetArraySize(data)) {
		code = unreadable(st, 0);
		goto out;
	}
	out->ev = xcalloc(n ? n : 1, sizeof *out->ev);
	i = 0;
	cJSON_ArrayForEach(el, data)
	{
		struct chan_event *ev = &out->ev[i], span;
		cJSON *one = cJSON_ParseWithLength(r.body + starts[i], lens[i]);
		int rc = chan_event_read(el, ev);

		/* the raw span must be the very same event */
		if (!rc && (!one || chan_event_read(one, &span) != 0 || strcmp(ev->id, span.id) ||
		            strcmp(ev->type, span.type) || ev->created != span.created))
			rc = err_set(FD_EINVAL,
			             _("an event's bytes could not be found in the page"));
		cJSON_Delete(one);
		if (!rc && !ev->created)
			rc = err_set(FD_EINVAL, _("an event has no created time"));
		if (rc) {
			code = bad_data(st, err_msg());
			chan_page_free(out);
			goto out;
		}
		ev->kind = stripe_event_kind(ev->type, &ev->declined);
		ev->raw = r.body + starts[i];
		ev->raw_len = lens[i];
		i++;
	}
	out->n = n;
	out->has_more = cJSON_IsTrue(more);
	out->body = r.body; /* the events' raw bytes point into it */
	r.body = NULL;
out:
	free(starts);
	free(lens);
	cJSON_Delete(json);
	pipe_http_resp_free(&r);
	return code;
}

/* ---------------------------------------------------------------- Checkout Sessions
 *
 * With the provider's card page "checkout" a card order is a Checkout
 * Session, the page the customer pays on (its url, shown at the desk as a
 * QR code). Since API version 2022-08-01 a session's payment_intent is null
 * until the customer pays, so the order's channel id is the session's
 * (cs_...). Its state is the session's: open (pending), complete and paid
 * (succeeded), complete and unpaid (an asynchronous payment under way:
 * processing), expired (canceled: it will never be paid). The payment
 * intent the session makes carries metadata page=checkout, so that a
 * payment_intent.* event or a refund about it is read as its session's:
 * every answer about one order names it by the one id the core knows. */

/* A session's state in the core's words; *word (40) the channel's words. */
static enum chan_order_state session_state(const char *status, const char *paid, char *word,
                                           size_t n)
{
	snprintf(word, n, "%s%s%s", status, *paid ? "/" : "", paid);
	if (!strcmp(status, "expired"))
		return CHAN_ORDER_CANCELED;
	if (!strcmp(status, "complete"))
		return !strcmp(paid, "paid") || !strcmp(paid, "no_payment_required")
		           ? CHAN_ORDER_SUCCEEDED
		           : CHAN_ORDER_PROCESSING;
	return CHAN_ORDER_PENDING;
}

static int read_session(const cJSON *o, struct chan_order *out)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
	char status[16], paid[20];
	const cJSON *v;
	int rc;

	memset(out, 0, sizeof *out);
	if ((rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "id"), "id", 0, out->id,
	                        sizeof out->id)) ||
	    (rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "status"), "status", 0, status,
	                        sizeof status)) ||
	    (rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "payment_status"),
	                        "payment_status", 1, paid, sizeof paid)) ||
	    (rc = chan_json_int(cJSON_GetObjectItemCaseSensitive(o, "amount_total"), "amount_total",
	                        &out->amount)) ||
	    (rc = read_currency(o, out->currency)) ||
	    (rc = chan_json_str(cJSON_GetObjectItemCaseSensitive(o, "url"), "url", 1, out->page_url,
	                        sizeof out->page_url)))
		return rc;
	out->state = session_state(status, paid, out->status, sizeof out->status);
	/* complete, unpaid, and its (expanded) intent back to needing a payment
	 * method or canceled: the asynchronous payment failed, and a completed
	 * session is never paid again */
	v = cJSON_GetObjectItemCaseSensitive(o, "payment_intent");
	if (out->state == CHAN_ORDER_PROCESSING && cJSON_IsObject(v)) {
		const cJSON *ps = cJSON_GetObjectItemCaseSensitive(v, "status");

		if (cJSON_IsString(ps) && (!strcmp(ps->valuestring, "requires_payment_method") ||
		                           !strcmp(ps->valuestring, "canceled"))) {
			out->state = CHAN_ORDER_CANCELED;
			snprintf(out->status, sizeof out->status, "complete/unpaid/failed");
		}
	}
	if (out->state == CHAN_ORDER_SUCCEEDED)
		out->amount_received = out->amount;
	v = cJSON_GetObjectItemCaseSensitive(o, "created");
	if (v && !cJSON_IsNull(v) && (rc = chan_json_int(v, "created", &out->created)))
		return rc;
	return read_our_metadata(md, out);
}

static int is_session_id(const char *id)
{
	return !strncmp(id, "cs_", 3);
}

/* The session that made payment intent pi (a GET of the sessions list by
 * payment_intent): CHAN_OK and *out, or CHAN_NOTFOUND when none did. */
static int session_of_intent(struct chan_ctx *c, const char *pi, struct chan_order *out,
                             struct chan_status *st)
{
	struct strbuf q = {0};
	cJSON *json, *data;
	int code;

	pipe_http_form(&q, "payment_intent", pi);
	pipe_http_form(&q, "limit", "1");
	pipe_http_form(&q, "expand[]", "data.payment_intent");
	code = call_json(c, "query_order", "GET", "/v1/checkout/sessions", sb_cstr(&q), NULL, NULL,
	                 &json, st);
	sb_free(&q);
	if (code != CHAN_OK)
		return code;
	data = cJSON_GetObjectItemCaseSensitive(json, "data");
	if (!cJSON_IsArray(data))
		code = unreadable(st, 0);
	else if (cJSON_GetArraySize(data) < 1)
		code = CHAN_NOTFOUND;
	else if (read_session(cJSON_GetArrayItem(data, 0), out) != 0)
		code = bad_data(st, err_msg());
	cJSON_Delete(json);
	return code;
}

/* 1 when the intent object o was made by a Checkout Session of ours. */
static int intent_of_session(const cJSON *o)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
	const cJSON *pg = cJSON_IsObject(md) ? cJSON_GetObjectItemCaseSensitive(md, "page") : NULL;

	return cJSON_IsString(pg) && !strcmp(pg->valuestring, "checkout");
}

static int stripe_query_order(struct chan_ctx *c, const char *id, struct chan_order *out,
                              struct chan_status *st)
{
	char path[300];
	cJSON *json;
	int code;

	memset(out, 0, sizeof *out);
	if (!id_ok(id)) {
		memset(st, 0, sizeof *st);
		return bad_data(st, _("the order id is not an id"));
	}
	if (is_session_id(id)) {
		/* with its intent, to tell a failed asynchronous payment */
		snprintf(path, sizeof path, "/v1/checkout/sessions/%s", id);
		code = call_json(c, "query_order", "GET", path, "expand%5B%5D=payment_intent", NULL,
		                 NULL, &json, st);
		if (code == CHAN_OK && read_session(json, out) != 0)
			code = bad_data(st, err_msg());
		cJSON_Delete(json);
		return code;
	}
	snprintf(path, sizeof path, "/v1/payment_intents/%s", id);
	code = call_json(c, "query_order", "GET", path, NULL, NULL, NULL, &json, st);
	if (code == CHAN_OK && intent_of_session(json)) {
		/* paid on a Checkout page: the order is the session */
		code = session_of_intent(c, id, out, st);
		if (code == CHAN_NOTFOUND && read_order(json, out) == 0)
			code = CHAN_OK; /* no session says so: the intent, as it is */
		else if (code == CHAN_NOTFOUND)
			code = bad_data(st, err_msg());
	} else if (code == CHAN_OK && read_order(json, out) != 0) {
		code = bad_data(st, err_msg());
	}
	cJSON_Delete(json);
	return code;
}

/* A Checkout Session for in: one line of the amount, our order number and
 * invoice in its metadata and in its payment intent's (with page=checkout),
 * the order number as client_reference_id. No expires_at: it would have to
 * be the same in every resend of the command (the channel refuses a key
 * replayed with other parameters), and nothing we send again has a clock
 * of its own; the session expires after Stripe's default, 24 hours, and
 * the order is closed then (checkout.session.expired). */
static int session_create(struct chan_ctx *c, const struct chan_create *in, const char *cur,
                          struct chan_order *out, struct chan_status *st)
{
	struct strbuf f = {0};
	char num[24];
	cJSON *json;
	int code;

	snprintf(num, sizeof num, "%lld", (long long)in->amount);
	pipe_http_form(&f, "mode", "payment");
	pipe_http_form(&f, "line_items[0][price_data][currency]", cur);
	pipe_http_form(&f, "line_items[0][price_data][unit_amount]", num);
	pipe_http_form(&f, "line_items[0][price_data][product_data][name]",
	               in->description ? in->description : in->order_no);
	pipe_http_form(&f, "line_items[0][quantity]", "1");
	pipe_http_form(&f, "client_reference_id", in->order_no);
	pipe_http_form(&f, "metadata[order_no]", in->order_no);
	pipe_http_form(&f, "payment_intent_data[metadata][order_no]", in->order_no);
	pipe_http_form(&f, "payment_intent_data[metadata][page]", "checkout");
	if (in->invoice_id) {
		snprintf(num, sizeof num, "%lld", (long long)in->invoice_id);
		pipe_http_form(&f, "metadata[invoice_id]", num);
		pipe_http_form(&f, "payment_intent_data[metadata][invoice_id]", num);
	}
	code = call_json(c, "create_payment", "POST", "/v1/checkout/sessions", NULL, sb_cstr(&f),
	                 in->idem_key, &json, st);
	sb_free(&f);
	if (code == CHAN_OK && read_session(json, out) != 0)
		code = bad_data(st, err_msg());
	else if (code == CHAN_OK && !*out->page_url)
		code = bad_data(st, _("the channel's Checkout Session names no url"));
	cJSON_Delete(json);
	return code;
}

static int stripe_create(struct chan_ctx *c, const struct chan_create *in, struct chan_order *out,
                         struct chan_status *st)
{
	struct strbuf f = {0};
	char num[24], cur[4];
	cJSON *json;
	int code, i;

	memset(out, 0, sizeof *out);
	memset(st, 0, sizeof *st);
	if (!in->idem_key || !*in->idem_key || strlen(in->idem_key) > 255)
		return bad_data(st, _("a payment is created only with an idempotency key"));
	if (in->amount <= 0 || !in->currency || strlen(in->currency) != 3)
		return bad_data(st, _("a payment needs an amount and a currency"));
	for (i = 0; i < 3; i++)
		cur[i] = (char)tolower((unsigned char)in->currency[i]);
	cur[3] = '\0';
	if (c->checkout)
		return session_create(c, in, cur, out, st);
	snprintf(num, sizeof num, "%lld", (long long)in->amount);
	pipe_http_form(&f, "amount", num);
	pipe_http_form(&f, "currency", cur);
	if (in->description)
		pipe_http_form(&f, "description", in->description);
	pipe_http_form(&f, "metadata[order_no]", in->order_no);
	if (in->invoice_id) {
		snprintf(num, sizeof num, "%lld", (long long)in->invoice_id);
		pipe_http_form(&f, "metadata[invoice_id]", num);
	}
	code = call_json(c, "create_payment", "POST", "/v1/payment_intents", NULL, sb_cstr(&f),
	                 in->idem_key, &json, st);
	sb_free(&f);
	if (code == CHAN_OK && read_order(json, out) != 0)
		code = bad_data(st, err_msg());
	cJSON_Delete(json);
	return code;
}

/* The payment intent of session id (a GET of the session): CHAN_OK and
 * pi[256], CHAN_REFUSED when the session has no payment yet. */
static int intent_of(struct chan_ctx *c, const char *id, char pi[256], struct chan_status *st)
{
	char path[300];
	cJSON *json;
	int code;

	snprintf(path, sizeof path, "/v1/checkout/sessions/%s", id);
	code = call_json(c, "refund", "GET", path, NULL, NULL, NULL, &json, st);
	if (code == CHAN_OK &&
	    chan_json_str(cJSON_GetObjectItemCaseSensitive(json, "payment_intent"),
	                  "payment_intent", 1, pi, 256) != 0)
		code = bad_data(st, err_msg());
	else if (code == CHAN_OK && (!*pi || !id_ok(pi))) {
		snprintf(st->reason, sizeof st->reason, "%s",
		         _("the Checkout Session has no payment to refund"));
		code = CHAN_REFUSED;
	}
	cJSON_Delete(json);
	return code;
}

/* A refund of an order paid on a Checkout page names the session (the
 * order's channel id) as its order: one we asked for says so in its
 * metadata; another (made on the channel's dashboard) is traced through
 * its intent. */
static int refund_order(struct chan_ctx *c, const cJSON *o, struct chan_refund *r,
                        struct chan_status *st)
{
	const cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
	const cJSON *cs =
	    cJSON_IsObject(md) ? cJSON_GetObjectItemCaseSensitive(md, "checkout_session") : NULL;
	struct chan_order so;
	char path[300];
	cJSON *pi;
	int code;

	if (cJSON_IsString(cs) && is_session_id(cs->valuestring) && id_ok(cs->valuestring)) {
		snprintf(r->order_id, sizeof r->order_id, "%s", cs->valuestring);
		return CHAN_OK;
	}
	if (!c->checkout || !*r->order_id || !id_ok(r->order_id))
		return CHAN_OK;
	snprintf(path, sizeof path, "/v1/payment_intents/%s", r->order_id);
	code = call_json(c, "query_refund", "GET", path, NULL, NULL, NULL, &pi, st);
	if (code == CHAN_OK && intent_of_session(pi)) {
		code = session_of_intent(c, r->order_id, &so, st);
		if (code == CHAN_OK)
			snprintf(r->order_id, sizeof r->order_id, "%s", so.id);
		else if (code == CHAN_NOTFOUND)
			code = CHAN_OK;
	}
	cJSON_Delete(pi);
	return code;
}

static int stripe_refund(struct chan_ctx *c, const char *payment_id, int64_t amount,
                         const char *idem_key, struct chan_refund *out, struct chan_status *st)
{
	struct strbuf f = {0};
	char num[24], pi[256];
	cJSON *json;
	int code;

	memset(out, 0, sizeof *out);
	memset(st, 0, sizeof *st);
	if (!idem_key || !*idem_key || strlen(idem_key) > 255)
		return bad_data(st, _("a refund is asked for only with an idempotency key"));
	if (!id_ok(payment_id) || amount <= 0)
		return bad_data(st, _("a refund needs a payment id and an amount"));
	snprintf(pi, sizeof pi, "%s", payment_id);
	/* a Checkout Session is refunded through the intent it made */
	if (is_session_id(payment_id) && (code = intent_of(c, payment_id, pi, st)) != CHAN_OK)
		return code;
	pipe_http_form(&f, "payment_intent", pi);
	snprintf(num, sizeof num, "%lld", (long long)amount);
	pipe_http_form(&f, "amount", num);
	if (is_session_id(payment_id))
		pipe_http_form(&f, "metadata[checkout_session]", payment_id);
	code =
	    call_json(c, "refund", "POST", "/v1/refunds", NULL, sb_cstr(&f), idem_key, &json, st);
	sb_free(&f);
	if (code == CHAN_OK && read_refund(json, out) != 0)
		code = bad_data(st, err_msg());
	else if (code == CHAN_OK && is_session_id(payment_id))
		snprintf(out->order_id, sizeof out->order_id, "%s", payment_id);
	cJSON_Delete(json);
	return code;
}

static int stripe_query_refund(struct chan_ctx *c, const char *id, struct chan_refund *out,
                               struct chan_status *st)
{
	char path[300];
	cJSON *json;
	int code;

	memset(out, 0, sizeof *out);
	if (!id_ok(id)) {
		memset(st, 0, sizeof *st);
		return bad_data(st, _("the refund id is not an id"));
	}
	snprintf(path, sizeof path, "/v1/refunds/%s", id);
	code = call_json(c, "query_refund", "GET", path, NULL, NULL, NULL, &json, st);
	if (code == CHAN_OK && read_refund(json, out) != 0)
		code = bad_data(st, err_msg());
	else if (code == CHAN_OK)
		code = refund_order(c, json, out, st);
	cJSON_Delete(json);
	return code;
}

/* What a balance transaction's type means (Stripe's types; "payment" and
 * "payment_refund" are the same for other payment methods). */
static enum chan_settle_kind settle_kind(const char *type)
{
	if (!strcmp(type, "charge") || !strcmp(type, "payment"))
		return CHAN_SETTLE_CHARGE;
	if (!strcmp(type, "refund") || !strcmp(type, "payment_refund"))
		return CHAN_SETTLE_REFUND;
	if (!strcmp(type, "payout"))
		return CHAN_SETTLE_PAYOUT;
	if (!strcmp(type, "stripe_fee") || !strcmp(type, "application_fee") || !strcmp(type, "tax"))
		return CHAN_SETTLE_FEE;
	if (!strcmp(type, "adjustment") || !strncmp(type, "dispute", 7) ||
	    !strcmp(type, "payment_failure_refund"))
		return CHAN_SETTLE_ADJUSTMENT;
	return CHAN_SETTLE_OTHER;
}

/* Copy the string item key of obj into buf (n bytes) when it is a string
 * that fits; else leave buf "". */
static void opt_str(const cJSON *obj, const char *key, char *buf, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (cJSON_IsString(v) && strlen(v->valuestring) < n)
		snprintf(buf, n, "%s", v->valuestring);
}

/* The line's source (expanded: an object; else its id): which payment
 * intent, our order number, refund or payout it is about. */
static void settle_source(const cJSON *el, struct chan_settle_line *l)
{
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(el, "source");

	if (cJSON_IsString(src)) {
		opt_str(el, "source", l->source, sizeof l->source);
	} else if (cJSON_IsObject(src)) {
		opt_str(src, "id", l->source, sizeof l->source);
		opt_str(src, "payment_intent", l->order_id, sizeof l->order_id);
		opt_str(cJSON_GetObjectItemCaseSensitive(src, "metadata"), "order_no", l->order_no,
		        sizeof l->order_no);
	}
	if (l->kind == CHAN_SETTLE_REFUND) {
		snprintf(l->refund_id, sizeof l->refund_id, "%s", l->source);
	} else if (l->kind == CHAN_SETTLE_PAYOUT) {
		snprintf(l->payout_id, sizeof l->payout_id, "%s", l->source);
		/* when the money reaches the bank */
		if (cJSON_IsObject(src) && cJSON_GetObjectItemCaseSensitive(src, "arrival_date"))
			chan_json_int(cJSON_GetObjectItemCaseSensitive(src, "arrival_date"),
			              "arrival_date", &l->available_on);
	}
	if (l->kind != CHAN_SETTLE_PAYOUT)
		opt_str(el, "payout", l->payout_id, sizeof l->payout_id);
}

/* Balance transactions created in [from, to), or (payout not NULL) those
 * a payout carries, every page, with their sources expanded. */
static int balance_list(struct chan_ctx *c, int64_t from, int64_t to, const char *payout,
                        struct chan_settle_line **out, size_t *n, struct chan_status *st)
{
	char after[256] = "", num[24];
	size_t cap = 0;
	int code = CHAN_OK, pages = 0;

	*out = NULL;
	*n = 0;
	for (;;) {
		struct strbuf q = {0};
		cJSON *json, *data, *el;
		int more;

		if (payout) {
			pipe_http_form(&q, "payout", payout);
		} else {
			snprintf(num, sizeof num, "%lld", (long long)from);
			pipe_http_form(&q, "created[gte]", num);
			snprintf(num, sizeof num, "%lld", (long long)to);
			pipe_http_form(&q, "created[lt]", num);
		}
		pipe_http_form(&q, "limit", "100");
		pipe_http_form(&q, "expand[]", "data.source");
		if (after[0])
			pipe_http_form(&q, "starting_after", after);
		code = call_json(c, "settlement", "GET", "/v1/balance_transactions", sb_cstr(&q),
		                 NULL, NULL, &json, st);
		sb_free(&q);
		if (code != CHAN_OK)
			break;
		data = cJSON_GetObjectItemCaseSensitive(json, "data");
		more = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json, "has_more"));
		cJSON_ArrayForEach(el, data)
		{
			struct chan_settle_line *l;
			const cJSON *v;

			if (*n == cap) {
				cap = cap ? cap * 2 : 64;
				*out = xrealloc(*out, cap * sizeof **out);
			}
			l = &(*out)[*n];
			memset(l, 0, sizeof *l);
			if (chan_json_str(cJSON_GetObjectItemCaseSensitive(el, "id"), "id", 0,
			                  l->id, sizeof l->id) ||
			    chan_json_str(cJSON_GetObjectItemCaseSensitive(el, "type"), "type", 0,
			                  l->type, sizeof l->type) ||
			    chan_json_int(cJSON_GetObjectItemCaseSensitive(el, "amount"), "amount",
			                  &l->amount) ||
			    chan_json_int(cJSON_GetObjectItemCaseSensitive(el, "fee"), "fee",
			                  &l->fee) ||
			    chan_json_int(cJSON_GetObjectItemCaseSensitive(el, "net"), "net",
			                  &l->net) ||
			    chan_json_int(cJSON_GetObjectItemCaseSensitive(el, "created"),
			                  "created", &l->created) ||
			    read_currency(el, l->currency)) {
				code = bad_data(st, err_msg());
				break;
			}
			if (l->net != l->amount - l->fee) {
				code = bad_data(st, _("a balance transaction whose net is not its "
				                      "amount less its fee"));
				break;
			}
			l->kind = settle_kind(l->type);
			opt_str(el, "status", l->status, sizeof l->status);
			settle_source(el, l);
			v = cJSON_GetObjectItemCaseSensitive(el, "available_on");
			if (v)
				chan_json_int(v, "available_on", &l->available_on);
			snprintf(after, sizeof after, "%s", l->id);
			(*n)++;
		}
		cJSON_Delete(json);
		if (code != CHAN_OK || !more || !after[0] || ++pages > 1000)
			break;
	}
	if (code != CHAN_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return code;
}

static int stripe_settlement(struct chan_ctx *c, int64_t from, int64_t to,
                             struct chan_settle_line **out, size_t *n, struct chan_status *st)
{
	return balance_list(c, from, to, NULL, out, n, st);
}

static int stripe_payout_lines(struct chan_ctx *c, const char *payout_id,
                               struct chan_settle_line **out, size_t *n, struct chan_status *st)
{
	return balance_list(c, 0, 0, payout_id, out, n, st);
}

/* A relayed event: one JSON event object (chan_event_read). */
static int stripe_read_event(const char *secret, const void *raw, size_t len, struct chan_event *ev)
{
	cJSON *json = cJSON_ParseWithLength(raw, len);
	int rc;

	(void)secret; /* nothing is encrypted inside */
	memset(ev, 0, sizeof *ev);
	if (!json)
		return err_set(FD_EINVAL, _("the payload is not JSON"));
	rc = chan_event_read(json, ev);
	cJSON_Delete(json);
	if (rc)
		return rc;
	ev->kind = stripe_event_kind(ev->type, &ev->declined);
	ev->raw = raw;
	ev->raw_len = len;
	return 0;
}

/* The Stripe-Signature header over the raw bytes (pipe-sig.h). */
static int stripe_verify(const char *secret, const char *header, const void *raw, size_t len,
                         int64_t now)
{
	return pipe_sig_verify(header, raw, len, secret, now, PIPE_SIG_TOLERANCE, NULL);
}

const struct chan_ops chan_stripe_ops = {
    .code = "stripe",
    .poll_events = stripe_poll,
    .query_order = stripe_query_order,
    .create_payment = stripe_create,
    .refund = stripe_refund,
    .query_refund = stripe_query_refund,
    .settlement = stripe_settlement,
    .payout_lines = stripe_payout_lines,
    .event_kind = stripe_event_kind,
    .read_event = stripe_read_event,
    .verify = stripe_verify,
    .secret_name = "signing_secret",
    .needs_header = 1,
    .answer = "",
    .close = stripe_close,
};
