/*
 * theme.h - how each kind of thing looks: attributes per role, the
 * payment-status markers, and the border characters.
 *
 * State is never shown by colour alone: every payment status has its own
 * ASCII symbol (and a word in the day view and panes), the selection is in
 * reverse video, errors start with "!". Colour is added on top when the
 * terminal has it, unless NO_COLOR is set (any non-empty value) or the
 * config key `theme = mono` asks for monochrome. Borders are ASCII (| - +)
 * by default: box-drawing characters have an ambiguous width in CJK
 * terminals; `borders = lines` in the config asks for the terminal's line
 * drawing. Callers: every view, through draw.h.
 */
#ifndef FD_THEME_H
#define FD_THEME_H

#include <curses.h>

enum role {
	R_NORMAL,
	R_TITLE,   /* the breadcrumb line */
	R_BAR,     /* status and key-hint lines */
	R_HEADER,  /* headings inside the body */
	R_SELECT,  /* the cursor */
	R_DIM,     /* days outside the month, cancelled visits */
	R_TODAY,   /* today's date */
	R_ERROR,   /* messages that refuse, field errors */
	R_SUCCESS, /* messages that confirm */
	R_KEY,     /* key names in the hint bar */
	R_UNPAID,
	R_PARTIAL,
	R_PAID,
	R_OVERPAID,
	R_REFUNDED,
	R_VOID,
	R_NOCHARGE,
	R_QR, /* a QR code: black on white with colour, the terminal's own without */
	R_N
};

/* theme_init - after initscr: decide colour or monochrome and the borders. */
void theme_init(void);

/* theme_attr - the attributes of role. */
attr_t theme_attr(enum role r);

/* theme_color - 1 when colour is in use (for the tests' status line). */
int theme_color(void);

/* theme_ascii_borders - 1 when borders are drawn with | - + */
int theme_ascii_borders(void);

/* One payment status as shown: symbol (one ASCII column), short word and
 * role. status is a projection/invoice payment status; unknown ones are
 * shown as "?" with their raw name. */
struct pay_mark {
	const char *status; /* "unpaid" ... */
	const char *sym;    /* "!" */
	const char *word;   /* N_() marked */
	enum role role;
};

/* theme_pay - the marker of status (never NULL). */
const struct pay_mark *theme_pay(const char *status);

/* theme_pay_marks - all markers, for the legend; *n gets their number. */
const struct pay_mark *theme_pay_marks(int *n);

/* theme_off - the mark of a visit that will not happen (cancelled, no-show:
 * the core's visit_state_of says which), shown instead of its payment
 * status; NULL for any other visit status. theme_off_marks - all of them,
 * for the legend and the help. */
const struct pay_mark *theme_off(const char *visit_status);
const struct pay_mark *theme_off_marks(int *n);

/* theme_invoice_role - the role of an invoice status (issued, partially_paid,
 * paid, overpaid, void). */
enum role theme_invoice_role(const char *status);

#endif
