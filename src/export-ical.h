/*
 * export-ical.h - the visits as an iCalendar file (RFC 5545), for calendar
 * programs (calcurse, Thunderbird, phones).
 *
 * One VEVENT per visit that overlaps the range, by start time:
 *   UID          visit-<id>@frontdesk-<db>, where <db> is the moment (UTC
 *                seconds) the database was made (migrate_created_at): the
 *                same on every export of the same database, a restored
 *                backup included, and different for another shop's
 *                database, so importing two shops' files into one calendar
 *                never merges their visits. Visit ids are never reused.
 *   DTSTART, DTEND  shop time with TZID=<the zone's IANA name> (such as
 *                America/New_York, which calcurse and calendar services
 *                look up), and that zone's VTIMEZONE from libical's zone
 *                data (the system's tzdata) under the same TZID, when
 *                clock_zone_name names a zone libical knows; UTC otherwise
 *                (no VTIMEZONE). The VTIMEZONE keeps only the rules from the
 *                range's start on (from 1970 without --from), and a rule
 *                that has an end is written as its dates (RDATE), which
 *                python's icalendar reads where it refuses RFC 5545's
 *                UTC UNTIL under a local DTSTART.
 *   SUMMARY      "<customers>: <services>" as the agenda shows them ("Lee +1:
 *                Wash, Wax"), only one of them when the other is empty,
 *                "Visit <id>" (translated) for a visit with no job.
 *   LOCATION     the visit's address, when it has one.
 *   DESCRIPTION  the visit's note, when it has one.
 *   STATUS       TENTATIVE (scheduled), CANCELLED (cancelled), CONFIRMED
 *                (confirmed, in progress, done, no show); the status itself
 *                is in X-FRONTDESK-STATUS.
 *   DTSTAMP, LAST-MODIFIED  when the visit was last changed; CREATED when
 *                it was booked (all UTC).
 * The same data gives the same file, byte for byte.
 *
 * The file is made by libical: the calendar with its VTIMEZONE is built and
 * printed once, and each visit's VEVENT is built, printed and freed in turn
 * between the calendar's head and its END line, so memory does not grow
 * with the number of visits. All of it is read in one read transaction.
 * The summaries come from the visit owner's own read (visit_list_range, the
 * authoritative records), not from the calendar projection, so a visit
 * booked a moment ago is exported as it is.
 *
 * Not thread-safe: libical keeps its zone data in a process-wide cache
 * (released at the end of each export).
 *
 * Callers: `frontdesk export ical` (cli-report.c), the tests.
 */
#ifndef FD_EXPORT_ICAL_H
#define FD_EXPORT_ICAL_H

#include <stdint.h>
#include <stdio.h>

struct db;
struct export_range;

/* export_ical - write the calendar of the visits that overlap r to out.
 * *n_out (may be NULL) gets the number of visits written. 0, FD_EIO when
 * libical cannot build the file or writing fails, or a database error. */
int export_ical(struct db *db, const struct export_range *r, FILE *out, int64_t *n_out);

#endif
