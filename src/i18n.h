/*
 * i18n.h - gettext shorthands used by every file with user-facing text.
 * _() translates now; N_() marks a string for translation later; C_()
 * translates a word in a context, for an English word that needs two
 * translations ("Received": an amount in one column, a time in another).
 */
#ifndef FD_I18N_H
#define FD_I18N_H

#include <libintl.h>

#define _(s)  gettext(s)
#define N_(s) (s)
/* the catalog's key is "ctx\004s" (gettext's msgctxt); untranslated: s */
#define C_(ctx, s) i18n_in_context(ctx "\004" s, s)

static inline const char *i18n_in_context(const char *key, const char *s)
{
	const char *t = gettext(key);

	return t == key ? s : t;
}

#endif
