/*
 * message-text.c - the words of the messages to customers: one template per
 * kind (reminder, on_the_way, confirmation, invoice), channel (an e-mail's
 * subject and text, a text message's one short text) and language (en,
 * zh_CN, zh_TW), and the visit's time written for that language in the
 * shop's zone. See message-text.h.
 *
 * The templates are the customer's language, not the desk's: they are
 * written here whole for each language (gettext translates the desk's own
 * words, in the desk's language). A template names what it needs in
 * braces: {shop} {customer} {when} {services} {place} {invoice} {amount}
 * {due}; an unknown name stays as written.
 *
 * Callers: message.c.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "message-text.h"
#include "strbuf.h"

struct template
{
	const char *lang, *kind;
	const char *subject; /* an e-mail's */
	const char *email;   /* an e-mail's text */
	const char *sms;     /* a text message */
};

static const struct template templates[] = {
    {"en", "reminder", "Reminder: your visit on {when}",
     "Hello {customer},\n\nThis is a reminder of your visit from {shop} on {when}.\n\n"
     "Services: {services}\nPlace: {place}\n\nIf you need to change it, please call us.\n\n"
     "{shop}\n",
     "{shop}: reminder of your visit on {when} ({services}). Call us to change it."},
    {"en", "on_the_way", "We are on our way",
     "Hello {customer},\n\nOur technician is on the way to {place} for your visit of {when}.\n\n"
     "{shop}\n",
     "{shop}: we are on our way to you for your visit of {when}."},
    {"en", "confirmation", "Your visit on {when} is booked",
     "Hello {customer},\n\nYour visit from {shop} is booked for {when}.\n\n"
     "Services: {services}\nPlace: {place}\n\n{shop}\n",
     "{shop}: your visit on {when} is booked ({services})."},
    {"en", "invoice", "Invoice {invoice} from {shop}",
     "Hello {customer},\n\nPlease find attached invoice {invoice} from {shop}, of {amount}, "
     "due on {due}.{paylink}\n\n{shop}\n",
     "{shop}: invoice {invoice} of {amount} is due on {due}.{paylink}"},
    {"zh_CN", "reminder", "提醒：您的预约在{when}",
     "{customer}您好：\n\n提醒您，{shop}的上门服务定于{when}。\n\n服务：{services}\n地点：{place}"
     "\n\n"
     "如需更改，请致电我们。\n\n{shop}\n",
     "{shop}：提醒您，上门服务定于{when}（{services}）。如需更改请来电。"},
    {"zh_CN", "on_the_way", "我们正在前往",
     "{customer}您好：\n\n我们的技师正在前往{place}，为您提供{when}的服务。\n\n{shop}\n",
     "{shop}：我们正在前往您处，为您提供{when}的服务。"},
    {"zh_CN", "confirmation", "您{when}的预约已确认",
     "{customer}您好：\n\n您在{shop}的预约已定于{when}。\n\n服务：{services}\n地点：{place}\n\n{"
     "shop}\n",
     "{shop}：您{when}的预约已确认（{services}）。"},
    {"zh_CN", "invoice", "{shop}的发票 {invoice}",
     "{customer}您好：\n\n附件是{shop}的发票 {invoice}，金额 {amount}，到期日 "
     "{due}。{paylink}\n\n{shop}\n",
     "{shop}：发票 {invoice}，金额 {amount}，到期日 {due}。{paylink}"},
    {"zh_TW", "reminder", "提醒：您的預約在{when}",
     "{customer}您好：\n\n提醒您，{shop}的到府服務定於{when}。\n\n服務：{services}\n地點：{place}"
     "\n\n"
     "如需變更，請來電。\n\n{shop}\n",
     "{shop}：提醒您，到府服務定於{when}（{services}）。如需變更請來電。"},
    {"zh_TW", "on_the_way", "我們正在前往",
     "{customer}您好：\n\n我們的技師正在前往{place}，為您提供{when}的服務。\n\n{shop}\n",
     "{shop}：我們正在前往您處，為您提供{when}的服務。"},
    {"zh_TW", "confirmation", "您{when}的預約已確認",
     "{customer}您好：\n\n您在{shop}的預約已定於{when}。\n\n服務：{services}\n地點：{place}\n\n{"
     "shop}\n",
     "{shop}：您{when}的預約已確認（{services}）。"},
    {"zh_TW", "invoice", "{shop}的發票 {invoice}",
     "{customer}您好：\n\n附件是{shop}的發票 {invoice}，金額 {amount}，到期日 "
     "{due}。{paylink}\n\n{shop}\n",
     "{shop}：發票 {invoice}，金額 {amount}，到期日 {due}。{paylink}"},
};

int message_text_language(const char *lang)
{
	size_t i;

	for (i = 0; lang && i < sizeof templates / sizeof *templates; i++)
		if (!strcmp(templates[i].lang, lang))
			return 1;
	return 0;
}

static const char *const en_days[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                       "Thursday", "Friday", "Saturday"};
static const char *const en_months[12] = {"January",   "February", "March",    "April",
                                          "May",       "June",     "July",     "August",
                                          "September", "October",  "November", "December"};
static const char *const cn_days[7] = {"星期日", "星期一", "星期二", "星期三",
                                       "星期四", "星期五", "星期六"};

void message_text_when(const char *lang, int64_t t, char *out, size_t n)
{
	char f[32];
	int y, mo, d, wd, h, mi;

	/* the shop's wall clock, read field by field: no locale decides */
	clock_format_local(t, "%Y %m %d %w %H %M", f, sizeof f);
	if (sscanf(f, "%d %d %d %d %d %d", &y, &mo, &d, &wd, &h, &mi) != 6 || mo < 1 || mo > 12 ||
	    wd < 0 || wd > 6) {
		snprintf(out, n, "%s", f);
		return;
	}
	if (!strcmp(lang, "zh_CN") || !strcmp(lang, "zh_TW"))
		snprintf(out, n, "%d年%d月%d日（%s）%02d:%02d", y, mo, d, cn_days[wd], h, mi);
	else
		snprintf(out, n, "%s %d %s %d at %02d:%02d", en_days[wd], d, en_months[mo - 1], y,
		         h, mi);
}

void message_text_paylink(const char *lang, const char *channel, const char *url, char *out,
                          size_t n)
{
	int zh = !strcmp(lang, "zh_CN") || !strcmp(lang, "zh_TW");
	int sms = !strcmp(channel, "sms");

	if (!url || !*url) {
		*out = '\0';
		return;
	}
	if (sms)
		snprintf(out, n, " %s%s", zh ? "付款：" : "Pay: ", url);
	else
		snprintf(out, n, "\n\n%s%s",
		         !zh                      ? "Pay online: "
		         : !strcmp(lang, "zh_TW") ? "線上付款："
		                                  : "在线付款：",
		         url);
}

/* out += tmpl with each {name} of vars replaced by its value. */
static void fill(struct strbuf *out, const char *tmpl, const struct message_var *vars, size_t nv)
{
	const char *p = tmpl, *open, *close;
	size_t i;

	while ((open = strchr(p, '{')) != NULL && (close = strchr(open, '}')) != NULL) {
		sb_add(out, p, (size_t)(open - p));
		for (i = 0; i < nv; i++)
			if (strlen(vars[i].name) == (size_t)(close - open - 1) &&
			    !strncmp(vars[i].name, open + 1, (size_t)(close - open - 1)))
				break;
		if (i < nv)
			sb_puts(out, vars[i].value ? vars[i].value : "");
		else
			sb_add(out, open, (size_t)(close - open + 1));
		p = close + 1;
	}
	sb_puts(out, p);
}

int message_text(const char *lang, const char *kind, const char *channel,
                 const struct message_var *vars, size_t nv, struct strbuf *subject,
                 struct strbuf *body)
{
	const struct template *t = NULL;
	size_t i;

	for (i = 0; i < sizeof templates / sizeof *templates; i++)
		if (!strcmp(templates[i].kind, kind) &&
		    (!strcmp(templates[i].lang, lang) || (!t && !strcmp(templates[i].lang, "en"))))
			t = &templates[i];
	for (i = 0; i < sizeof templates / sizeof *templates; i++)
		if (!strcmp(templates[i].kind, kind) && !strcmp(templates[i].lang, lang))
			t = &templates[i];
	if (!t)
		return -1;
	if (!strcmp(channel, "sms")) {
		fill(body, t->sms, vars, nv);
		return 0;
	}
	fill(subject, t->subject, vars, nv);
	fill(body, t->email, vars, nv);
	return 0;
}
