/*
 * clock.h - the one clock of the program and the shop's time zone.
 *
 * Times are stored as UTC Unix seconds. People type and read them in the
 * shop's time zone: the `timezone` config key, else TZ, else the system's.
 * FRONTDESK_NOW (e.g. "2026-12-01T09:00", shop time) freezes "now" so that
 * tests and demos are repeatable.
 */
#ifndef FD_CLOCK_H
#define FD_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* clock_set_zone - use this IANA zone (e.g. "America/New_York") as the shop's
 * time zone from now on. NULL or "" keeps TZ. Call before any thread starts. */
void clock_set_zone(const char *zone);

/* clock_zone_name - the IANA name of the shop's time zone ("Europe/Berlin")
 * in buf (n bytes), for files that name their zone (iCalendar's VTIMEZONE):
 * TZ (which clock_set_zone sets from the `timezone` key; a leading ':' and a
 * path up to ".../zoneinfo/" are dropped), else the target of the
 * /etc/localtime link, else the first line of /etc/timezone. NULL when none
 * of them names a zone: TZ is a POSIX rule such as "EST5EDT,M3.2.0,M11.1.0",
 * a name with characters a zone name never has, or longer than buf. */
const char *clock_zone_name(char *buf, size_t n);

/* clock_now - the current UTC time in seconds (FRONTDESK_NOW if set, except
 * in a setgid frontdesk: privs.h). */
int64_t clock_now(void);

/* clock_real - the real time in UTC seconds (time()), the clock of what
 * the program times itself: leases, retries, since when a channel fails.
 * FRONTDESK_REAL_NOW (UTC seconds) sets it for the readers of how long
 * something has lasted, so that a test need not sleep; FRONTDESK_NOW does
 * not move it (the desk's "now" and the real clock differ in tests). */
int64_t clock_real(void);

/* clock_mono - seconds (to the nanosecond) on the monotonic clock, which no
 * change of the date moves: the clock of intervals inside one run (how long
 * a wait or a call took, when the next round is due). Only differences
 * mean anything. */
double clock_mono(void);

/* clock_parse_local - read "YYYY-MM-DD", "YYYY-MM-DD HH:MM" or
 * "YYYY-MM-DDTHH:MM[:SS]" in shop time into UTC seconds. A date alone is its
 * midnight. FD_EINVAL with a reason on anything else. */
int clock_parse_local(const char *text, int64_t *out);

/* clock_utc_of - *out = the UTC seconds of y-mo-d h:mi:s (proleptic
 * Gregorian), 0; -1 when a field is out of its range (a day the month does
 * not have, an hour above 23, a second above 59). */
int clock_utc_of(int y, int mo, int d, int h, int mi, int s, int64_t *out);

/* clock_parse_rfc3339 - read an RFC 3339 date-time ("2026-12-01T14:00:00Z",
 * "2026-12-01t09:00:00.25-05:00": a "T" or "t" or a space, seconds, an
 * optional fraction that is dropped, "Z"/"z" or an offset) into UTC seconds.
 * FD_EINVAL with a reason on anything else, a field out of range included.
 * For times a provider sends as text. */
int clock_parse_rfc3339(const char *text, int64_t *out);

/* clock_format_local - write t in shop time; fmt is strftime's. */
void clock_format_local(int64_t t, const char *fmt, char *buf, size_t n);

/* clock_format_utc - write t as ISO 8601 UTC ("2026-12-01T14:00:00Z"). */
void clock_format_utc(int64_t t, char *buf, size_t n);

/* clock_day_start - midnight (shop time) of the day that contains t. */
int64_t clock_day_start(int64_t t);

/* clock_month_days - how many days month mon (1..12) of year y has
 * (Gregorian leap years); 0 for a month that is not one. */
int clock_month_days(int y, int mon);

/* clock_add_days - the same wall-clock time n days later (DST-safe). */
int64_t clock_add_days(int64_t t, int n);

#endif
