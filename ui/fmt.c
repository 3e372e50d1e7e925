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

const char *fmt_money(int64_t v, const char *cur, char buf[FMT_MONEY])
{
	const struct currency *c = currency_find(cur ? cur : "");

	if (!c || money_format(v, c, 1, buf, FMT_MONEY) != 0)
		snprintf(buf, FMT_MONEY, "?");
	return buf;
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
	static const struct {
		const char *id, *word;
	} w[] = {
	    /* visits */
	    {"scheduled", N_("scheduled")},
	    {"confirmed", N_("confirmed")},
	    {"in_progress", N_("in progress")},
	    {"done", N_("done")},
	    {"cancelled", N_("cancelled")},
	    {"no_show", N_("no-show")},
	    /* jobs */
	    {"open", N_("open")},
	    /* invoices */
	    {"draft", N_("draft")},
	    {"issued", N_("issued, unpaid")},
	    {"partially_paid", N_("partially paid")},
	    {"paid", N_("paid")},
	    {"overpaid", N_("overpaid")},
	    {"void", N_("void")},
	    /* payments and refunds */
	    {"unallocated", N_("unallocated")},
	    {"partially_allocated", N_("partially allocated")},
	    {"allocated", N_("allocated")},
	    {"refunded", N_("refunded")},
	    {"pending", N_("pending")},
	    {"succeeded", N_("succeeded")},
	    {"failed", N_("failed")},
	    /* methods */
	    {"cash", N_("cash")},
	    {"check", N_("check")},
	    {"card", N_("card")},
	    {"bank_transfer", N_("bank transfer")},
	    {"other", N_("other")},
	    /* line item kinds */
	    {"SERVICE", N_("service")},
	    {"FEE", N_("fee")},
	    {"DISCOUNT", N_("discount")},
	    {"TAX", N_("tax")},
	    {"CREDIT", N_("credit")},
	};
	size_t i;

	for (i = 0; i < sizeof w / sizeof w[0]; i++)
		if (id && !strcmp(id, w[i].id))
			return _(w[i].word);
	return id ? id : "";
}
