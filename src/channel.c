/*
 * channel.c - what every channel adapter shares (see channel.h): reading
 * integers and strings out of channel JSON without trusting it, and the
 * summary of an event.
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
