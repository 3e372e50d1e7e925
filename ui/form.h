/*
 * form.h - the form engine: labelled fields edited in place, validated with
 * the reason shown beside the field, posted once.
 *
 * A form is a view. Nothing is written while it is edited: the form's
 * spec->post runs only when Enter is pressed and spec->check found no
 * error (and, for a destructive form, after the person pressed `y` to the
 * question spec->confirm wrote). Each form instance carries ONE
 * idempotency key, made when the form opens, which every post of that
 * instance passes to the core: Enter pressed twice, a key repeated by the
 * terminal, or a retry after an error posts at most once. After a post the
 * form shows what was done (a receipt) until Enter or Esc closes it; a quiet
 * form (go to a date, search) closes at once.
 *
 * Editing: the field that was just entered shows a pre-filled text
 * selected, and the first printable key replaces it (any other key, an
 * arrow, keeps it). A field holds up to FORM_MAX_CHARS characters, more
 * than any record takes, so that the record's own limit, which its owner in
 * the core checks as it does for the command line, refuses a long text and
 * names that limit while the text stays in the field. A spec may offer
 * completions under a field (form_complete). F1 shows the form's help.
 *
 * Callers: the form-*.c files (each one spec), view-calendar.c (go to).
 */
#ifndef FD_FORM_H
#define FD_FORM_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "strbuf.h"
#include "view.h"

/* The most characters a field holds: more than any record's text takes, so
 * that the record's own limit (its owner in the core checks it, as for the
 * command line) refuses a long text and names that limit; a paste longer
 * than this is refused by the form (field->overflow). */
#define FORM_MAX_CHARS 16384
#define FORM_KEY_LEN   40

enum field_type {
	F_TEXT,   /* free text */
	F_CHOICE, /* one of a few values, changed with Left/Right/Space */
	F_INFO    /* a line of text, not editable (figures, headings) */
};

struct form_field {
	enum field_type type;
	int id;            /* the spec's own number for the field */
	char *label;       /* translated */
	char *short_label; /* drawn instead when label is cut (NULL: none) */
	wchar_t *text;     /* cap characters allocated (NULL while empty) */
	int len, pos, cap;
	char *utf8;                       /* text as UTF-8 (form_value keeps it in step) */
	int stale;                        /* utf8 is behind text[] */
	int fresh;                        /* just entered: the first typed key replaces the text */
	int overflow;                     /* more was typed or pasted than FORM_MAX_CHARS */
	char **cvals, **clabels;          /* completions offered under the field */
	int ncompl, csel;                 /* how many, the one Tab or Enter takes */
	const char *const *choices;       /* F_CHOICE: values (identifiers) */
	const char *const *choice_labels; /* their labels, N_() marked */
	int nchoices, choice;
	char *error; /* why the value is refused, NULL when fine */
	char *note;  /* shown beside the field when there is no error */
	int width;   /* columns of the input box (0: default) */
	int edited;  /* changed by the person since the form opened */
	int secret;  /* drawn as '*' (a PIN), never shown */
};

struct form;

struct form_spec {
	const char *name; /* identifier for the debug log */
	/* check every field, setting errors with form_error(); return the
	 * number of errors (0: the form may be posted) */
	int (*check)(struct form *f);
	/* write; 0 or a FD_E* code with err_msg(). On success describe what
	 * was done with form_receipt(). Uses form_key(f) for idempotency. */
	int (*post)(struct form *f);
	/* field i changed (may be NULL) */
	void (*changed)(struct form *f, int i);
	/* the question for a destructive form, or NULL for none */
	void (*confirm)(struct form *f, char *buf, size_t n);
	/* after a successful post of a quiet form: the view that replaces it
	 * (NULL: just close); of another form: the view that replaces it at
	 * once, the receipt's first line on the message line (NULL: the
	 * receipt is shown) */
	struct view *(*next)(struct form *f);
	/* on Enter, before check: a view to open on top of the form first (a
	 * new customer's form for a name that matches nobody), or NULL to go
	 * on checking and posting. May be NULL. */
	struct view *(*push)(struct form *f);
	/* the database changed while the form is being filled in (another
	 * desk, the worker): re-read what the form shows from the records,
	 * keeping what the person typed. May be NULL. */
	void (*reload)(struct form *f);
	void (*free)(struct form *f);
	int quiet;        /* close at once after posting; no receipt */
	int approves;     /* its post brings an approval for the form below (form-approve.c):
	                     kept for that form's next post */
	int has_propose;  /* the form handles form-propose */
	const char *help; /* N_() marked paragraph for the help screen */
};

struct form {
	const struct form_spec *spec;
	/* this form's view ops, editing and asking: form.c's, with the keys
	   this form has (form-propose only where the spec handles it), so the
	   help lists no key that does nothing here */
	struct view_ops ops_edit, ops_ask;
	void *arg; /* the spec's state */
	char *title;
	struct form_field *fields;
	int n, cur, top;
	int state; /* editing, confirming, done */
	char question[512];
	struct strbuf receipt;
	char *error; /* the core's refusal of the last post */
	char key[FORM_KEY_LEN + 1];
	int posts;         /* successful posts (1 at most, with replays) */
	int close_on_post; /* set by spec->next: close at once after the post,
	                      its receipt's first line on the message line (a
	                      form opened from another, which goes on) */
	int64_t posted_id;
	int64_t approval; /* an approval asked for this form's post (form-approve.c) */
	int cur_y, cur_x; /* where the focused field's box was drawn (its completions) */
};

/* form_new - a form titled title (copied) for spec with state arg. */
struct form *form_new(const struct form_spec *spec, void *arg, const char *title);

/* form_add - add a field; returns its index. text may be NULL. */
int form_add(struct form *f, enum field_type type, int id, const char *label, const char *text);

/* form_add_choice - add an F_CHOICE field of n values; value selects the
 * initial one (NULL or unknown: the first). */
int form_add_choice(struct form *f, int id, const char *label, const char *const *values,
                    const char *const *labels, int n, const char *value);

/* form_find - the index of the field with id, or -1. */
int form_find(const struct form *f, int id);

/* form_value - the field's text as UTF-8 (owned by the form), or for a
 * choice its value. */
const char *form_value(const struct form *f, int i);

/* form_set - replace the text of field i (the cursor goes to its end). */
void form_set(struct form *f, int i, const char *text);

/* form_error - set (fmt != NULL) or clear the error of field i. */
void form_error(struct form *f, int i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* form_label - replace the label of field i (a figure in it changed). */
void form_label(struct form *f, int i, const char *label);

/* form_label_short - the label drawn instead of field i's when that one
 * does not fit the label column (a narrow screen): a figure in a long
 * label must not be cut away. NULL: none. */
void form_label_short(struct form *f, int i, const char *label);

/* form_note - set or clear (NULL) the note beside field i. */
void form_note(struct form *f, int i, const char *text);

/* form_complete - offer n completions under field i while it has the
 * focus: labels[k] is the line shown, values[k] the field's whole text
 * once it is taken (Tab or Enter take the selected one, Down and Up move
 * the selection, Esc closes the list). Both are copied; n = 0 (or leaving
 * the field) clears the list. Taking one calls the spec's changed(). */
void form_complete(struct form *f, int i, const char *const *values, const char *const *labels,
                   int n);

/* form_receipt - append a line to what the form shows after posting. */
void form_receipt(struct form *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* form_key - the idempotency key of this form instance. */
const char *form_key(const struct form *f);

/* form_secret - field i is drawn as '*' (a PIN). */
void form_secret(struct form *f, int i);

/* approve_form - the form that brings a manager's approval to form of,
 * whose post was just refused for a missing permission: the manager's PIN
 * typed here, or a request filed for the manager's own screen (the
 * approval's number is kept in of->approval for its next post). Opened by
 * the form engine itself (form-approve.c). */
struct view *approve_form(struct form *of);

/* form_view - the view showing f (which it owns from now on). */
struct view *form_view(struct form *f);

/* form_new_key - write a new random idempotency key into key (size
 * FORM_KEY_LEN + 1). */
void form_new_key(char *key);

#endif
