/*
 * words.c - stored identifiers and their labels (see words.h). Callers:
 * payment.c (the valid methods), the command line (agenda, lists) and the
 * screen (ui/fmt.c, the payment and refund forms).
 */
#include <config.h>

#include <string.h>
#include <strings.h>

#include "i18n.h"
#include "words.h"

const char *const words_methods[WORDS_NMETHODS] = {"cash", "check", "card", "bank_transfer",
                                                   "other"};
const char *const words_method_labels[WORDS_NMETHODS] = {N_("cash"), N_("check"), N_("card"),
                                                         N_("bank transfer"), N_("other")};

static const struct {
	const char *id, *label;
} words[] = {
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
    /* a visit's payment state (the calendar projection) */
    {"unpaid", N_("unpaid")},
    {"nothing_to_charge", N_("nothing to charge")},
    /* payments and refunds */
    {"unallocated", N_("unallocated")},
    {"partially_allocated", N_("partially allocated")},
    {"allocated", N_("allocated")},
    {"refunded", N_("refunded")},
    {"pending", N_("pending")},
    {"succeeded", N_("succeeded")},
    {"failed", N_("failed")},
    /* customer deletions (retention.h); "cancelled" is the visits' */
    {"preparing", N_("preparing")},
    {"soft_deleted", N_("soft-deleted")},
    {"purging", N_("purging")},
    {"purged", N_("purged")},
    {"rejected", N_("rejected")},
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

#define NWORDS (sizeof words / sizeof words[0])

const char *words_label(const char *id)
{
	static const char *done[NWORDS];
	size_t i;

	if (!id)
		return "";
	for (i = 0; i < NWORDS; i++) {
		if (strcmp(words[i].id, id) != 0)
			continue;
		if (!done[i])
			done[i] = _(words[i].label);
		return done[i];
	}
	return id;
}

size_t words_index(const char *const *table, size_t n, const char *word)
{
	size_t i;

	for (i = 0; word && i < n; i++)
		if (table[i] && !strcmp(word, table[i]))
			return i;
	return n;
}

const char *words_find(const char *const *table, size_t n, const char *word)
{
	size_t i;

	for (i = 0; word && i < n; i++)
		if (table[i] && !strcasecmp(word, table[i]))
			return table[i];
	return NULL;
}
