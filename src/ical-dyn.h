/*
 * ical-dyn.h - libical loaded the first time a module needs it (dynlib.h),
 * like libcrypto (crypto-dyn.h): most commands and the screen never write
 * a calendar or expand a rule, and libical maps the ICU data at start.
 *
 * Include it AFTER <libical/ical.h>: each function the modules call is then
 * a pointer of the type the header declares, filled by ical_load(). Every
 * function that calls one of them calls ical_load() first and refuses
 * (FD_EIO, naming the library and `what`) when it cannot be loaded.
 *
 * Callers: export-ical.c (writing calendars), recurring.c (reading and
 * expanding recurrence rules).
 */
#ifndef FD_ICAL_DYN_H
#define FD_ICAL_DYN_H

#include <libical/ical.h>

#define FD_ICAL_FUNCS(X)                                                                           \
	X(icalcomponent_add_component)                                                             \
	X(icalcomponent_add_property)                                                              \
	X(icalcomponent_as_ical_string_r)                                                          \
	X(icalcomponent_free)                                                                      \
	X(icalcomponent_get_first_component)                                                       \
	X(icalcomponent_get_first_property)                                                        \
	X(icalcomponent_get_next_component)                                                        \
	X(icalcomponent_new)                                                                       \
	X(icalcomponent_new_clone)                                                                 \
	X(icalcomponent_remove_property)                                                           \
	X(icalerrno_return)                                                                        \
	X(icalerror_strerror)                                                                      \
	X(icalparameter_new_tzid)                                                                  \
	X(icalperiodtype_null_period)                                                              \
	X(icalproperty_add_parameter)                                                              \
	X(icalproperty_free)                                                                       \
	X(icalproperty_get_dtstart)                                                                \
	X(icalproperty_get_rrule)                                                                  \
	X(icalproperty_new_calscale)                                                               \
	X(icalproperty_new_created)                                                                \
	X(icalproperty_new_description)                                                            \
	X(icalproperty_new_dtend)                                                                  \
	X(icalproperty_new_dtstamp)                                                                \
	X(icalproperty_new_dtstart)                                                                \
	X(icalproperty_new_exdate)                                                                 \
	X(icalproperty_new_lastmodified)                                                           \
	X(icalproperty_new_location)                                                               \
	X(icalproperty_new_prodid)                                                                 \
	X(icalproperty_new_rdate)                                                                  \
	X(icalproperty_new_recurrenceid)                                                           \
	X(icalproperty_new_rrule)                                                                  \
	X(icalproperty_new_status)                                                                 \
	X(icalproperty_new_summary)                                                                \
	X(icalproperty_new_uid)                                                                    \
	X(icalproperty_new_version)                                                                \
	X(icalproperty_new_x)                                                                      \
	X(icalproperty_set_tzid)                                                                   \
	X(icalproperty_set_x_name)                                                                 \
	X(icalrecur_iterator_free)                                                                 \
	X(icalrecur_iterator_new)                                                                  \
	X(icalrecur_iterator_next)                                                                 \
	X(icalrecurrencetype_as_string_r)                                                          \
	X(icalrecurrencetype_clear)                                                                \
	X(icalrecurrencetype_from_string)                                                          \
	X(icaltime_compare)                                                                        \
	X(icaltime_from_timet_with_zone)                                                           \
	X(icaltime_is_null_time)                                                                   \
	X(icaltime_null_time)                                                                      \
	X(icaltimezone_free_builtin_timezones)                                                     \
	X(icaltimezone_get_builtin_timezone)                                                       \
	X(icaltimezone_get_component)                                                              \
	X(icaltimezone_get_utc_timezone)                                                           \
	X(icaltimezone_truncate_vtimezone)

#define FD_ICAL_SLOT(f) __typeof__(f) *p_##f;
struct fd_ical {
	FD_ICAL_FUNCS(FD_ICAL_SLOT)
};
#undef FD_ICAL_SLOT
extern struct fd_ical fd_ical;

/* ical_load - load libical once (thread-safe); 0, or FD_EIO with a message
 * naming the library and what needed it (`what`, translated). */
int ical_load(const char *what);

#ifndef FD_ICAL_IMPL
#define icalcomponent_add_component         (*fd_ical.p_icalcomponent_add_component)
#define icalcomponent_add_property          (*fd_ical.p_icalcomponent_add_property)
#define icalcomponent_as_ical_string_r      (*fd_ical.p_icalcomponent_as_ical_string_r)
#define icalcomponent_free                  (*fd_ical.p_icalcomponent_free)
#define icalcomponent_get_first_component   (*fd_ical.p_icalcomponent_get_first_component)
#define icalcomponent_get_first_property    (*fd_ical.p_icalcomponent_get_first_property)
#define icalcomponent_get_next_component    (*fd_ical.p_icalcomponent_get_next_component)
#define icalcomponent_new                   (*fd_ical.p_icalcomponent_new)
#define icalcomponent_new_clone             (*fd_ical.p_icalcomponent_new_clone)
#define icalcomponent_remove_property       (*fd_ical.p_icalcomponent_remove_property)
#define icalerrno_return                    (*fd_ical.p_icalerrno_return)
#define icalerror_strerror                  (*fd_ical.p_icalerror_strerror)
#define icalparameter_new_tzid              (*fd_ical.p_icalparameter_new_tzid)
#define icalperiodtype_null_period          (*fd_ical.p_icalperiodtype_null_period)
#define icalproperty_add_parameter          (*fd_ical.p_icalproperty_add_parameter)
#define icalproperty_free                   (*fd_ical.p_icalproperty_free)
#define icalproperty_get_dtstart            (*fd_ical.p_icalproperty_get_dtstart)
#define icalproperty_get_rrule              (*fd_ical.p_icalproperty_get_rrule)
#define icalproperty_new_calscale           (*fd_ical.p_icalproperty_new_calscale)
#define icalproperty_new_created            (*fd_ical.p_icalproperty_new_created)
#define icalproperty_new_description        (*fd_ical.p_icalproperty_new_description)
#define icalproperty_new_dtend              (*fd_ical.p_icalproperty_new_dtend)
#define icalproperty_new_dtstamp            (*fd_ical.p_icalproperty_new_dtstamp)
#define icalproperty_new_dtstart            (*fd_ical.p_icalproperty_new_dtstart)
#define icalproperty_new_exdate             (*fd_ical.p_icalproperty_new_exdate)
#define icalproperty_new_lastmodified       (*fd_ical.p_icalproperty_new_lastmodified)
#define icalproperty_new_location           (*fd_ical.p_icalproperty_new_location)
#define icalproperty_new_prodid             (*fd_ical.p_icalproperty_new_prodid)
#define icalproperty_new_rdate              (*fd_ical.p_icalproperty_new_rdate)
#define icalproperty_new_recurrenceid       (*fd_ical.p_icalproperty_new_recurrenceid)
#define icalproperty_new_rrule              (*fd_ical.p_icalproperty_new_rrule)
#define icalproperty_new_status             (*fd_ical.p_icalproperty_new_status)
#define icalproperty_new_summary            (*fd_ical.p_icalproperty_new_summary)
#define icalproperty_new_uid                (*fd_ical.p_icalproperty_new_uid)
#define icalproperty_new_version            (*fd_ical.p_icalproperty_new_version)
#define icalproperty_new_x                  (*fd_ical.p_icalproperty_new_x)
#define icalproperty_set_tzid               (*fd_ical.p_icalproperty_set_tzid)
#define icalproperty_set_x_name             (*fd_ical.p_icalproperty_set_x_name)
#define icalrecur_iterator_free             (*fd_ical.p_icalrecur_iterator_free)
#define icalrecur_iterator_new              (*fd_ical.p_icalrecur_iterator_new)
#define icalrecur_iterator_next             (*fd_ical.p_icalrecur_iterator_next)
#define icalrecurrencetype_as_string_r      (*fd_ical.p_icalrecurrencetype_as_string_r)
#define icalrecurrencetype_clear            (*fd_ical.p_icalrecurrencetype_clear)
#define icalrecurrencetype_from_string      (*fd_ical.p_icalrecurrencetype_from_string)
#define icaltime_compare                    (*fd_ical.p_icaltime_compare)
#define icaltime_from_timet_with_zone       (*fd_ical.p_icaltime_from_timet_with_zone)
#define icaltime_is_null_time               (*fd_ical.p_icaltime_is_null_time)
#define icaltime_null_time                  (*fd_ical.p_icaltime_null_time)
#define icaltimezone_free_builtin_timezones (*fd_ical.p_icaltimezone_free_builtin_timezones)
#define icaltimezone_get_builtin_timezone   (*fd_ical.p_icaltimezone_get_builtin_timezone)
#define icaltimezone_get_component          (*fd_ical.p_icaltimezone_get_component)
#define icaltimezone_get_utc_timezone       (*fd_ical.p_icaltimezone_get_utc_timezone)
#define icaltimezone_truncate_vtimezone     (*fd_ical.p_icaltimezone_truncate_vtimezone)
#endif

#endif
