/*
 * fmt.c - amounts, dates and status words for the screen (see fmt.h).
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "fmt.h"
#include "i18n.h"
#include "money.h"
#include "words.h"

const char *fmt_money(int64_t v, const char *cur, char buf[FMT_MONEY])
{
	return money_text(v, cur, 1, buf);
}

const char *fmt_money_cur(int64_t v, const char *cur, char buf[FMT_MONEY])
{
	char m[FMT_MONEY];

	snprintf(buf, FMT_MONEY, "%s %s", fmt_money(v, cur, m), cur ? cur : "");
	return buf;
}

const char *fmt_date(int64_t t, char buf[32])
{
	if (t == 0)
		snprintf(buf, 32, "-");
	else
		clock_format_local(t, "%Y-%m-%d", buf, 32);
	return buf;
}

const char *fmt_datetime(int64_t t, char buf[32])
{
	if (t == 0)
		snprintf(buf, 32, "-");
	else
		clock_format_local(t, "%Y-%m-%d %H:%M", buf, 32);
	return buf;
}

const char *fmt_status(const char *id)
{
	return words_label(id);
}

const char *fmt_signature(const char *state)
{
	static const struct {
		const char *state, *word;
	} w[] = {{"authorised", N_("authorised (estimate signed)")},
	         {"sent", N_("estimate sent, not signed yet")},
	         {"viewed", N_("estimate viewed, not signed yet")},
	         {"declined", N_("estimate declined")},
	         {"expired", N_("estimate expired unsigned")},
	         {"cancelled", N_("estimate cancelled")}};
	size_t i;

	for (i = 0; i < sizeof w / sizeof *w; i++)
		if (!strcmp(w[i].state, state))
			return _(w[i].word);
	return state;
}
