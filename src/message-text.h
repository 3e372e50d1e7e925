/*
 * message-text.h - the words of the messages to customers (see
 * message-text.c): templates per kind, channel and language, and a visit's
 * time written for a language.
 *
 * Callers: message.c.
 */
#ifndef FD_MESSAGE_TEXT_H
#define FD_MESSAGE_TEXT_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

/* A value a template names in braces ({when}). */
struct message_var {
	const char *name;
	const char *value; /* NULL: "" */
};

/* message_text_language - 1 when the templates are written in lang. */
int message_text_language(const char *lang);

/* message_text_when - t as the shop's wall clock for readers of lang
 * ("Tuesday 15 December 2026 at 09:00", "2026年12月15日（星期二）09:00"). */
void message_text_when(const char *lang, int64_t t, char *out, size_t n);

/* message_text_amount - v minor units of currency code as readers of lang
 * write an amount: grouped digits after the currency's sign for that
 * language ("$1,234.50", "US$1,234.50"), or before its code when it has
 * none here ("1,234.50 CHF"). */
void message_text_amount(const char *lang, int64_t v, const char *code, char *out, size_t n);

/* message_text_paylink - the line that gives an invoice's payment page
 * url in lang for channel ("" when url is NULL or empty), for {paylink}. */
void message_text_paylink(const char *lang, const char *channel, const char *url, char *out,
                          size_t n);

/* message_text - the message of kind ("reminder", "on_the_way",
 * "confirmation", "invoice") for channel ("email": subject and body;
 * "sms": body alone) in lang (English when the templates have no such
 * language), vars filled in, appended to subject and body. A shop's own
 * words come from dir (NULL: none), a file KIND.LANG.CHANNEL per template
 * (message_text_check says what one holds); a file that cannot be used is
 * passed over for the built-in template. -1 for a kind with no template. */
int message_text(const char *dir, const char *lang, const char *kind, const char *channel,
                 const struct message_var *vars, size_t nv, struct strbuf *subject,
                 struct strbuf *body);

/* message_text_check - the shop's template files in dir, each reported
 * with why it cannot be used (NULL: it is used). Returns how many cannot. */
int message_text_check(const char *dir,
                       void (*report)(const char *path, const char *why, void *arg), void *arg);

/* message_text_export - the built-in templates written into dir as files
 * a shop can edit, one per kind, language and channel; a file already
 * there is left as it is. *written says how many were written. 0, or
 * FD_EIO. */
int message_text_export(const char *dir, int *written);

#endif
