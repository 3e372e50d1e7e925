/*
 * words.h - the one table of the identifiers the database stores for
 * statuses, payment methods and line item kinds, with the label a person
 * reads for each. The screen and the command line both show these labels;
 * config keys and stored values stay the untranslated identifiers.
 */
#ifndef FD_WORDS_H
#define FD_WORDS_H

#include <stddef.h>

/* words_label - the translated label of stored identifier id (a status,
 * method or kind); id itself when it is not in the table; "" for NULL.
 * Each label is translated once per run (an agenda prints thousands). */
const char *words_label(const char *id);

/* words_index - the index in table[0..n) of word (NULL entries are
 * skipped), or n when it is none of them or NULL: how each record's
 * enum of states is read from its stored word (inbox_state_of,
 * outbox_state_of, pay_order_state_of). */
size_t words_index(const char *const *table, size_t n, const char *word);

/* words_find - the entry of table[0..n) that word spells in any case (the
 * canonical spelling to store), or NULL when it is none of them or NULL:
 * how typed words are read (a contact's channel, a report's stage). */
const char *words_find(const char *const *table, size_t n, const char *word);

/* The payment methods, in the order forms offer them: WORDS_NMETHODS
 * identifiers, and their untranslated labels (pass them through _()). */
#define WORDS_NMETHODS 5
extern const char *const words_methods[WORDS_NMETHODS];
extern const char *const words_method_labels[WORDS_NMETHODS];

#endif
