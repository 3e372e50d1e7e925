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

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "err.h"
#include "i18n.h"
#include "message-text.h"
#include "money.h"
#include "strbuf.h"
#include "text.h"

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

/* The sign a reader of a language knows a currency by, as the Unicode
 * CLDR's locale data writes it before the amount ("$" for US dollars in
 * English, "US$" in Chinese, "¥" for yuan in Simplified Chinese and for
 * yen in Traditional). A currency missing here is written after the
 * amount by its ISO code. */
struct money_sign {
	const char *code, *en, *zh_cn, *zh_tw;
};

static const struct money_sign money_signs[] = {
    {"USD", "$", "US$", "US$"},   {"EUR", "€", "€", "€"},       {"GBP", "£", "£", "£"},
    {"JPY", "¥", "JP¥", "¥"},     {"CNY", "CN¥", "¥", "CN¥"},   {"TWD", "NT$", "NT$", "$"},
    {"HKD", "HK$", "HK$", "HK$"}, {"CAD", "CA$", "CA$", "CA$"}, {"AUD", "A$", "AU$", "AU$"},
};

void message_text_amount(const char *lang, int64_t v, const char *code, char *out, size_t n)
{
	const char *sign = NULL;
	char num[MONEY_BUFSZ];
	size_t i;

	money_text(v, code, 1, num);
	for (i = 0; code && i < sizeof money_signs / sizeof *money_signs; i++)
		if (!strcmp(money_signs[i].code, code))
			sign = !strcmp(lang, "zh_CN")   ? money_signs[i].zh_cn
			       : !strcmp(lang, "zh_TW") ? money_signs[i].zh_tw
			                                : money_signs[i].en;
	if (!sign)
		snprintf(out, n, "%s %s", num, code ? code : "");
	else if (num[0] == '-')
		snprintf(out, n, "-%s%s", sign, num + 1);
	else
		snprintf(out, n, "%s%s", sign, num);
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

/* ------------------------------------------------ a shop's own words */

/* The names a template may use in braces. */
static const char *const var_names[] = {"shop",    "customer", "when", "services", "place",
                                        "invoice", "amount",   "due",  "paylink"};

static const char *const kinds[] = {"reminder", "on_the_way", "confirmation", "invoice"};
static const char *const channels[] = {"email", "sms"};

#define TEMPLATE_MAX 8192

/* A shop's template read from its file: buf holds it; subject (e-mail) and
 * text point into buf. */
struct override {
	char *buf;
	const char *subject, *text;
};

/* Every {name} in s names a value a template knows. */
static int names_known(const char *s, const char *path)
{
	const char *open, *close;
	size_t i, k;

	for (; (open = strchr(s, '{')) != NULL && (close = strchr(open, '}')) != NULL;
	     s = close + 1) {
		k = (size_t)(close - open - 1);
		for (i = 0; i < sizeof var_names / sizeof *var_names; i++)
			if (strlen(var_names[i]) == k && !strncmp(var_names[i], open + 1, k))
				break;
		if (i == sizeof var_names / sizeof *var_names)
			return err_set(FD_EINVAL,
			               _("%1$s: {%2$.*3$s} is not a name a template knows (shop, "
			                 "customer, when, services, place, invoice, amount, due, "
			                 "paylink)"),
			               path, open + 1, (int)k);
	}
	return 0;
}

/* The file dir/KIND.LANG.CHANNEL read into o: 1; 0 when there is no such
 * file; FD_EIO or FD_EINVAL, the file named, when it cannot be used. An
 * e-mail's file is a line "Subject: ...", an empty line and the text; a
 * text message's file its text. Each line is checked as typed text is
 * (UTF-8, no control character); CR LF line ends are read as LF. */
static int override_read(const char *dir, const char *kind, const char *lang, const char *channel,
                         struct override *o, char *path, size_t pn)
{
	int email = !strcmp(channel, "email");
	char *line, *nl, *w;
	size_t len;
	FILE *f;
	int rc = 0;

	memset(o, 0, sizeof *o);
	snprintf(path, pn, "%s/%s.%s.%s", dir, kind, lang, channel);
	if (!(f = fopen(path, "rb")))
		return errno == ENOENT ? 0
		                       : err_set(FD_EIO, _("%1$s: cannot be read: %2$s"), path,
		                                 strerror(errno));
	if (!(o->buf = malloc(TEMPLATE_MAX + 2))) {
		fclose(f);
		return err_set(FD_EIO, "%s", _("out of memory"));
	}
	len = fread(o->buf, 1, TEMPLATE_MAX + 1, f);
	if (ferror(f))
		rc = err_set(FD_EIO, _("%1$s: cannot be read: %2$s"), path, strerror(errno));
	fclose(f);
	if (!rc && len > TEMPLATE_MAX)
		rc = err_set(FD_EINVAL, _("%1$s: longer than %2$d bytes"), path, TEMPLATE_MAX);
	if (!rc && memchr(o->buf, '\0', len))
		rc = err_set(FD_EINVAL, _("%s: not text"), path);
	if (rc)
		goto bad;
	o->buf[len] = '\0';
	for (line = w = o->buf; *line; line = nl + 1) { /* CR LF as LF; each line checked */
		size_t k;

		nl = strchr(line, '\n');
		k = nl ? (size_t)(nl - line) : strlen(line);
		if (k && line[k - 1] == '\r')
			k--;
		memmove(w, line, k);
		w[k] = '\0';
		if ((rc = text_check(w, path, TEMPLATE_MAX, 1)) != 0)
			goto bad;
		w += k;
		if (!nl)
			break;
		*w++ = '\n';
	}
	*w = '\0';
	while (w > o->buf && w[-1] == '\n') /* the file's last line ends */
		*--w = '\0';
	o->text = o->buf;
	if (email) {
		if (strncmp(o->buf, "Subject:", 8) || !(nl = strchr(o->buf, '\n')) ||
		    nl[1] != '\n') {
			rc = err_set(
			    FD_EINVAL,
			    _("%s: an e-mail's template starts with a line \"Subject: ...\" "
			      "and an empty line, then the text"),
			    path);
			goto bad;
		}
		*nl = '\0';
		o->subject = o->buf + 8 + strspn(o->buf + 8, " ");
		o->text = nl + 2;
		if (!*o->subject) {
			rc = err_set(FD_EINVAL, _("%s: the subject is empty"), path);
			goto bad;
		}
	}
	if (!*o->text) {
		rc = err_set(FD_EINVAL, _("%s: the text is empty"), path);
		goto bad;
	}
	if ((o->subject && (rc = names_known(o->subject, path))) ||
	    (rc = names_known(o->text, path)))
		goto bad;
	return 1;
bad:
	free(o->buf);
	o->buf = NULL;
	return rc;
}

int message_text_check(const char *dir,
                       void (*report)(const char *path, const char *why, void *arg), void *arg)
{
	char path[4096];
	struct override o;
	size_t k, c, l;
	int rc, n = 0;

	if (!dir || !*dir)
		return 0;
	for (k = 0; k < sizeof kinds / sizeof *kinds; k++)
		for (c = 0; c < sizeof channels / sizeof *channels; c++)
			for (l = 0; l < sizeof templates / sizeof *templates; l++) {
				if (strcmp(templates[l].kind, kinds[k]))
					continue;
				rc = override_read(dir, kinds[k], templates[l].lang, channels[c],
				                   &o, path, sizeof path);
				if (rc < 0) {
					report(path, err_msg(), arg);
					err_clear();
					n++;
				} else if (rc > 0) {
					report(path, NULL, arg);
					free(o.buf);
				}
			}
	return n;
}

int message_text_export(const char *dir, int *written)
{
	char path[4096];
	size_t l, c;
	FILE *f;

	*written = 0;
	for (l = 0; l < sizeof templates / sizeof *templates; l++)
		for (c = 0; c < sizeof channels / sizeof *channels; c++) {
			const struct template *t = &templates[l];
			int email = !strcmp(channels[c], "email");

			snprintf(path, sizeof path, "%s/%s.%s.%s", dir, t->kind, t->lang,
			         channels[c]);
			if (!(f = fopen(path, "wx"))) { /* a file there already is the shop's */
				if (errno == EEXIST)
					continue;
				return err_set(FD_EIO, _("%1$s: cannot be written: %2$s"), path,
				               strerror(errno));
			}
			if (email)
				fprintf(f, "Subject: %s\n\n%s", t->subject, t->email);
			else
				fprintf(f, "%s\n", t->sms);
			if (fclose(f) != 0)
				return err_set(FD_EIO, _("%1$s: cannot be written: %2$s"), path,
				               strerror(errno));
			(*written)++;
		}
	return 0;
}

int message_text(const char *dir, const char *lang, const char *kind, const char *channel,
                 const struct message_var *vars, size_t nv, struct strbuf *subject,
                 struct strbuf *body)
{
	const struct template *t = NULL;
	const char *tl[2] = {lang, "en"};
	char path[4096];
	struct override o;
	size_t i, j;

	/* the customer's language, else English; for each, the shop's file
	 * (when it can be used: `check` reports one that cannot) before ours */
	for (j = 0; j < 2; j++) {
		if (dir && *dir && message_text_language(tl[j]) &&
		    override_read(dir, kind, tl[j], channel, &o, path, sizeof path) > 0) {
			if (o.subject)
				fill(subject, o.subject, vars, nv);
			fill(body, o.text, vars, nv);
			free(o.buf);
			return 0;
		}
		err_clear();
		for (i = 0; i < sizeof templates / sizeof *templates; i++)
			if (!strcmp(templates[i].kind, kind) && !strcmp(templates[i].lang, tl[j]))
				t = &templates[i];
		if (t)
			break;
	}
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
