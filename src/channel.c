/*
 * channel.c - what every channel adapter shares (see channel.h): reading
 * integers and strings out of channel JSON without trusting it, the
 * summary of an event, the core's state names and the shape of the states
 * frontdesk found by asking.
 *
 * Invariant: an amount is accepted only when the JSON number is integral and
 * within +/-2^53, so that the double cJSON keeps it in holds it exactly;
 * cJSON's valueint (clamped at INT_MAX) is never read.
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "channel.h"
#include "err.h"
#include "i18n.h"

/* 2^53: a double at or beyond it may already be a rounded value */
#define JSON_INT_MAX 9007199254740992.0

void chan_json_add_int(cJSON *obj, const char *key, int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", (long long)v);
	cJSON_AddRawToObject(obj, key, buf);
}

int chan_json_int(const cJSON *item, const char *what, int64_t *out)
{
	double d;

	if (!item || !cJSON_IsNumber(item))
		return err_set(FD_EINVAL, _("the channel's %s is missing or not a number"), what);
	d = item->valuedouble;
	if (!isfinite(d) || d != floor(d) || d >= JSON_INT_MAX || d <= -JSON_INT_MAX)
		return err_set(FD_EINVAL,
		               _("the channel's %s is not a whole number within +/-2^53"), what);
	*out = (int64_t)d;
	return 0;
}

int chan_json_str(const cJSON *item, const char *what, int optional, char *buf, size_t n)
{
	buf[0] = '\0';
	if (!item || cJSON_IsNull(item)) {
		if (optional)
			return 0;
		return err_set(FD_EINVAL, _("the channel's %s is missing"), what);
	}
	if (!cJSON_IsString(item) || !item->valuestring)
		return err_set(FD_EINVAL, _("the channel's %s is not a string"), what);
	if (strlen(item->valuestring) >= n)
		return err_set(FD_EINVAL, _("the channel's %s is too long"), what);
	strcpy(buf, item->valuestring);
	return 0;
}

void chan_page_free(struct chan_page *p)
{
	free(p->ev);
	free(p->body);
	memset(p, 0, sizeof *p);
}

const char *chan_code_name(int code)
{
	switch (code) {
	case CHAN_OK:
		return _("ok");
	case CHAN_RETRY:
		return _("retry");
	case CHAN_UNKNOWN:
		return _("unknown");
	case CHAN_NOTFOUND:
		return _("not found");
	case CHAN_REFUSED:
		return _("refused");
	case CHAN_BADDATA:
		return _("bad data");
	}
	return "?";
}

const char *chan_order_state_name(enum chan_order_state s)
{
	switch (s) {
	case CHAN_ORDER_PENDING:
		return "pending";
	case CHAN_ORDER_PROCESSING:
		return "processing";
	case CHAN_ORDER_DECLINED:
		return "declined";
	case CHAN_ORDER_SUCCEEDED:
		return "succeeded";
	case CHAN_ORDER_CANCELED:
		return "canceled";
	}
	return "pending";
}

const char *chan_refund_state_name(enum chan_refund_state s)
{
	switch (s) {
	case CHAN_REFUND_PENDING:
		return "pending";
	case CHAN_REFUND_SUCCEEDED:
		return "succeeded";
	case CHAN_REFUND_FAILED:
		return "failed";
	case CHAN_REFUND_CANCELED:
		return "canceled";
	}
	return "pending";
}

cJSON *chan_found_order(const struct chan_order *o)
{
	cJSON *obj = cJSON_CreateObject();

	cJSON_AddStringToObject(obj, "id", o->id);
	cJSON_AddStringToObject(obj, "object", "order");
	cJSON_AddStringToObject(obj, "state", chan_order_state_name(o->state));
	cJSON_AddStringToObject(obj, "channel_status", o->status);
	if (o->amount_unknown) {
		/* the channel did not say: never a made-up 0 */
		cJSON_AddNullToObject(obj, "amount");
		chan_json_add_int(obj, "amount_received", o->amount_received);
		cJSON_AddNullToObject(obj, "currency");
	} else {
		chan_json_add_int(obj, "amount", o->amount);
		chan_json_add_int(obj, "amount_received", o->amount_received);
		cJSON_AddStringToObject(obj, "currency", o->currency);
	}
	cJSON_AddStringToObject(obj, "order_no", o->order_no);
	return obj;
}

cJSON *chan_found_refund(const struct chan_refund *r)
{
	cJSON *obj = cJSON_CreateObject();

	cJSON_AddStringToObject(obj, "id", r->id);
	cJSON_AddStringToObject(obj, "object", "refund");
	cJSON_AddStringToObject(obj, "state", chan_refund_state_name(r->state));
	cJSON_AddStringToObject(obj, "channel_status", r->status);
	chan_json_add_int(obj, "amount", r->amount);
	cJSON_AddStringToObject(obj, "currency", r->currency);
	cJSON_AddStringToObject(obj, "order_id", r->order_id);
	return obj;
}

enum chan_event_kind chan_event_kind_of(const struct chan_ops *ops, const char *type, int *declined)
{
	*declined = 0;
	if (!strncmp(type, CHAN_FOUND_ORDER, strlen(CHAN_FOUND_ORDER)))
		return CHAN_EVENT_ORDER;
	if (!strncmp(type, CHAN_FOUND_REFUND, strlen(CHAN_FOUND_REFUND)))
		return CHAN_EVENT_REFUND;
	return ops && ops->event_kind ? ops->event_kind(type, declined) : CHAN_EVENT_OTHER;
}

int chan_random_hex(char out[17])
{
	unsigned char b[8];
	int i;

	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
		return err_set(FD_EIO, _("cannot read random bytes"));
	for (i = 0; i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}
