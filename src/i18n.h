/*
 * i18n.h - gettext shorthands used by every file with user-facing text.
 * _() translates now; N_() marks a string for translation later.
 */
#ifndef FD_I18N_H
#define FD_I18N_H

#include <libintl.h>

#define _(s)  gettext(s)
#define N_(s) (s)

#endif
