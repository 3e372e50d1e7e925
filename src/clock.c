/*
 * clock.c - "now", and conversions between UTC seconds and shop time.
 *
 * Conversions go through mktime/localtime_r with TZ set to the shop's zone,
 * so daylight saving is the C library's business, not ours. A setgid
 * frontdesk (privs.h) never lets FRONTDESK_NOW or FRONTDESK_REAL_NOW move
 * its clocks: a payment dated by the user's variable would lie.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "i18n.h"
#include "privs.h"

void clock_set_zone(const char *zone)
{
	if (zone && *zone)
		setenv("TZ", zone, 1);
	tzset();
}

/* Put the zone name in text (len bytes) into buf: what follows
 * "zoneinfo/" when there is one, the whole text otherwise. NULL unless the
 * result looks like a zone name: letters, digits, '/', '_', '+', '-', '.'
 * (no "..", no leading '/', no ',' of a POSIX rule). */
static const char *zone_from(const char *text, size_t len, char *buf, size_t n)
{
	const char *z = NULL, *p;
	size_t i, m;

	for (p = text; p + 9 <= text + len; p++)
		if (!memcmp(p, "zoneinfo/", 9))
			z = p + 9;
	if (!z)
		z = text;
	m = len - (size_t)(z - text);
	if (m == 0 || m >= n || z[0] == '/' || z[0] == '.')
		return NULL;
	for (i = 0; i < m; i++) {
		char c = z[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '/' || c == '_' || c == '+' || c == '-' || c == '.'))
			return NULL;
		if (c == '.' && i + 1 < m && z[i + 1] == '.')
			return NULL;
	}
	memcpy(buf, z, m);
	buf[m] = '\0';
	return buf;
}

const char *clock_zone_name(char *buf, size_t n)
{
	const char *tz = getenv("TZ");
	char link[256];
	ssize_t len;
	FILE *f;

	if (tz && *tz) {
		if (*tz == ':')
			tz++;
		return zone_from(tz, strlen(tz), buf, n);
	}
	len = readlink("/etc/localtime", link, sizeof link - 1);
	if (len > 0 && (size_t)len < sizeof link - 1) {
		link[len] = '\0';
		return zone_from(link, (size_t)len, buf, n);
	}
	if ((f = fopen("/etc/timezone", "r")) != NULL) {
		const char *r = NULL;

		if (fgets(link, sizeof link, f)) {
			link[strcspn(link, "\r\n")] = '\0';
			r = zone_from(link, strlen(link), buf, n);
		}
		fclose(f);
		return r;
	}
	return NULL;
}

/* The system's clock in whole seconds, read precisely: time() may read a
 * coarse copy that lags the precise clock by a few milliseconds, so a row
 * SQLite stamped 'now' at the start of a second could look a second early
 * to a query bound with time() just after it. */
static int64_t wall_seconds(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return (int64_t)time(NULL);
	return (int64_t)ts.tv_sec;
}

int64_t clock_now(void)
{
	const char *fixed = privs_elevated() ? NULL : getenv("FRONTDESK_NOW");
	int64_t t;

	if (fixed && *fixed && clock_parse_local(fixed, &t) == 0)
		return t;
	return wall_seconds();
}

double clock_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int64_t clock_real(void)
{
	const char *fixed = privs_elevated() ? NULL : getenv("FRONTDESK_REAL_NOW");
	char *end;
	long long v;

	if (fixed && *fixed) {
		v = strtoll(fixed, &end, 10);
		if (*end == '\0' && v > 0)
			return (int64_t)v;
	}
	return wall_seconds();
}

static int all_digits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int num(const char *s, size_t n)
{
	int v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

int clock_month_days(int y, int mon)
{
	static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (mon < 1 || mon > 12)
		return 0;
	if (mon == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return mdays[mon - 1];
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* n digits at *p as a number (advancing *p); -1 when they are not. */
static int digits(const char **p, int n)
{
	int v = 0;

	while (n-- > 0) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (*(*p)++ - '0');
	}
	return v;
}

int clock_utc_of(int y, int mo, int d, int h, int mi, int s, int64_t *out)
{
	if (mo < 1 || mo > 12 || d < 1 || d > clock_month_days(y, mo) || h < 0 || h > 23 ||
	    mi < 0 || mi > 59 || s < 0 || s > 59)
		return -1;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
	return 0;
}

/* The "YYYY-MM-DD" + 'T', 't' or ' ' + "hh:mm:ss" of an RFC 3339 time at
 * *p (advancing it); -1 when it is not. */
static int rfc_date_time(const char **p, int v[6])
{
	v[0] = digits(p, 4);
	if (v[0] < 0 || *(*p)++ != '-' || (v[1] = digits(p, 2)) < 0 || *(*p)++ != '-' ||
	    (v[2] = digits(p, 2)) < 0 || (**p != 'T' && **p != 't' && **p != ' '))
		return -1;
	(*p)++;
	if ((v[3] = digits(p, 2)) < 0 || *(*p)++ != ':' || (v[4] = digits(p, 2)) < 0 ||
	    *(*p)++ != ':' || (v[5] = digits(p, 2)) < 0)
		return -1;
	return 0;
}

/* The fraction of a second at *p, if any (skipped); -1 when a '.' has no
 * digit after it. */
static int rfc_fraction(const char **p)
{
	if (**p == '.') {
		if ((*p)[1] < '0' || (*p)[1] > '9')
			return -1;
		for ((*p)++; **p >= '0' && **p <= '9'; (*p)++)
			;
	}
	return 0;
}

/* The offset at *p: 'Z' (none) or +hh:mm / -hh:mm into *secs (seconds
 * east of UTC); -1 when it is not one. */
static int rfc_offset(const char **p, int *secs)
{
	int sign, oh, om;

	if (**p == 'Z' || **p == 'z') {
		(*p)++;
		*secs = 0;
		return 0;
	}
	if (**p != '+' && **p != '-')
		return -1;
	sign = *(*p)++ == '-' ? -1 : 1;
	if ((oh = digits(p, 2)) < 0 || *(*p)++ != ':' || (om = digits(p, 2)) < 0 || oh > 23 ||
	    om > 59)
		return -1;
	*secs = sign * (oh * 3600 + om * 60);
	return 0;
}

int clock_parse_rfc3339(const char *text, int64_t *out)
{
	const char *p = text;
	int v[6], off;

	if (!p)
		return err_set(FD_EINVAL, _("no time given"));
	if (rfc_date_time(&p, v) || rfc_fraction(&p) || rfc_offset(&p, &off))
		goto bad;
	/* a leap second (60) is read as the second before the next minute */
	if (*p || clock_utc_of(v[0], v[1], v[2], v[3], v[4], v[5] == 60 ? 59 : v[5], out) != 0)
		goto bad;
	*out -= off;
	return 0;
bad:
	return err_set(FD_EINVAL, _("'%.40s' is not an RFC 3339 date and time"), text);
}

/* "YYYY-MM-DD" at the start of text (len bytes) into *y, *mo, *d; -1 when
 * it is not. */
static int local_date(const char *text, size_t len, int *y, int *mo, int *d)
{
	if (len < 10 || !all_digits(text, 4) || text[4] != '-' || !all_digits(text + 5, 2) ||
	    text[7] != '-' || !all_digits(text + 8, 2))
		return -1;
	*y = num(text, 4);
	*mo = num(text + 5, 2);
	*d = num(text + 8, 2);
	return 0;
}

/* What follows the date in text (len > 10 bytes): ' ' or 'T', "HH:MM" and
 * maybe ":SS", into *h, *mi, *s; -1 when it is not that. */
static int local_time(const char *text, size_t len, int *h, int *mi, int *s)
{
	if ((text[10] != ' ' && text[10] != 'T') || len < 16 || !all_digits(text + 11, 2) ||
	    text[13] != ':' || !all_digits(text + 14, 2))
		return -1;
	*h = num(text + 11, 2);
	*mi = num(text + 14, 2);
	if (len == 19 && text[16] == ':' && all_digits(text + 17, 2))
		*s = num(text + 17, 2);
	else if (len != 16)
		return -1;
	return 0;
}

int clock_parse_local(const char *text, int64_t *out)
{
	struct tm tm;
	size_t len = text ? strlen(text) : 0;
	int y, mo, d, h = 0, mi = 0, s = 0;
	time_t t;

	if (local_date(text, len, &y, &mo, &d) || (len > 10 && local_time(text, len, &h, &mi, &s)))
		goto bad;
	if (y < 1970 || y > 9999 || d < 1 || d > clock_month_days(y, mo) || h > 23 || mi > 59 ||
	    s > 59)
		return err_set(FD_EINVAL, _("'%.40s' is not a real date and time"), text);
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t == (time_t)-1)
		return err_set(FD_EINVAL, _("'%.40s' is not a real date and time"), text);
	*out = (int64_t)t;
	return 0;
bad:
	return err_set(FD_EINVAL, _("'%.40s' is not a date: write YYYY-MM-DD or YYYY-MM-DD HH:MM"),
	               text ? text : "");
}

/* fmt is the caller's strftime format; callers pass literals. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
void clock_format_local(int64_t t, const char *fmt, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || strftime(buf, n, fmt, &tm) == 0)
		snprintf(buf, n, "?");
}
#pragma GCC diagnostic pop

void clock_format_utc(int64_t t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, n, "?");
}

int64_t clock_day_start(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	localtime_r(&tt, &tm);
	tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}

int64_t clock_add_days(int64_t t, int n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	localtime_r(&tt, &tm);
	tm.tm_mday += n;
	tm.tm_isdst = -1;
	return (int64_t)mktime(&tm);
}
