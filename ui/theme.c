/*
 * theme.c - roles, colours and markers (see theme.h). Only the main thread
 * calls it, after initscr.
 */
#include <config.h>

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "settings.h"
#include "theme.h"
#include "visit.h"

static attr_t attrs[R_N];
static int color_on;
static int ascii_borders = 1;

static const struct pay_mark marks[] = {
    {"unpaid", "!", N_("unpaid"), R_UNPAID},
    {"partially_paid", "~", N_("part paid"), R_PARTIAL},
    {"paid", "=", N_("paid"), R_PAID},
    {"overpaid", "+", N_("overpaid"), R_OVERPAID},
    {"refunded", "<", N_("refunded"), R_REFUNDED},
    {"void", "x", N_("void"), R_VOID},
    {"nothing_to_charge", "-", N_("no charge"), R_NOCHARGE},
};

/* Visits that will not happen: not counted in a day's visits
 * (visit_is_off), and their payment status is not what they show (a
 * cancelled visit is not "no charge"). Plain ASCII, never colour alone. */
static const struct pay_mark off_marks[] = {
    {"cancelled", "/", N_("cancelled"), R_DIM},
    {"no_show", "#", N_("no-show"), R_DIM},
};

static const struct pay_mark unknown = {"", "?", N_("unknown"), R_ERROR};

void theme_init(void)
{
	const char *nc = getenv("NO_COLOR");
	const char *theme = config_get("theme", "auto");
	const char *borders = config_get("borders", "auto");
	int i;

	for (i = 0; i < R_N; i++)
		attrs[i] = A_NORMAL;
	/* monochrome first: everything must read without colour */
	attrs[R_TITLE] = A_REVERSE;
	attrs[R_BAR] = A_REVERSE;
	attrs[R_HEADER] = A_BOLD;
	attrs[R_SELECT] = A_REVERSE;
	attrs[R_DIM] = A_DIM;
	attrs[R_TODAY] = A_BOLD | A_UNDERLINE;
	attrs[R_ERROR] = A_BOLD;
	attrs[R_KEY] = A_BOLD | A_REVERSE;
	attrs[R_UNPAID] = A_BOLD;
	attrs[R_VOID] = A_DIM;
	color_on =
	    has_colors() && !(nc && *nc) && strcmp(theme, "mono") != 0 && start_color() == OK;
	if (color_on) {
		use_default_colors();
		init_pair(1, COLOR_RED, -1);
		init_pair(2, COLOR_YELLOW, -1);
		init_pair(3, COLOR_GREEN, -1);
		init_pair(4, COLOR_MAGENTA, -1);
		init_pair(5, COLOR_CYAN, -1);
		init_pair(6, COLOR_WHITE, COLOR_BLUE);
		init_pair(7, COLOR_BLUE, -1);
		init_pair(8, COLOR_BLACK, COLOR_WHITE);
		attrs[R_UNPAID] = COLOR_PAIR(1) | A_BOLD;
		attrs[R_PARTIAL] = COLOR_PAIR(2) | A_BOLD;
		attrs[R_PAID] = COLOR_PAIR(3);
		attrs[R_OVERPAID] = COLOR_PAIR(4) | A_BOLD;
		attrs[R_REFUNDED] = COLOR_PAIR(5);
		attrs[R_ERROR] = COLOR_PAIR(1) | A_BOLD;
		attrs[R_SUCCESS] = COLOR_PAIR(3);
		attrs[R_TITLE] = COLOR_PAIR(6) | A_BOLD;
		attrs[R_HEADER] = COLOR_PAIR(7) | A_BOLD;
		attrs[R_QR] = COLOR_PAIR(8);
	}
	if (!strcmp(borders, "lines"))
		ascii_borders = 0;
	else if (!strcmp(borders, "ascii"))
		ascii_borders = 1;
	else
		ascii_borders = 1; /* the default: never ambiguous, same on every terminal */
}

attr_t theme_attr(enum role r)
{
	return r >= 0 && r < R_N ? attrs[r] : A_NORMAL;
}

int theme_color(void)
{
	return color_on;
}

int theme_ascii_borders(void)
{
	return ascii_borders;
}

const struct pay_mark *theme_pay(const char *status)
{
	size_t i;

	for (i = 0; i < sizeof marks / sizeof marks[0]; i++)
		if (status && !strcmp(status, marks[i].status))
			return &marks[i];
	return &unknown;
}

const struct pay_mark *theme_pay_marks(int *n)
{
	*n = (int)(sizeof marks / sizeof marks[0]);
	return marks;
}

enum role theme_invoice_role(const char *s)
{
	if (!strcmp(s, "issued"))
		return R_UNPAID;
	if (!strcmp(s, "partially_paid"))
		return R_PARTIAL;
	if (!strcmp(s, "paid"))
		return R_PAID;
	if (!strcmp(s, "overpaid"))
		return R_OVERPAID;
	if (!strcmp(s, "void"))
		return R_VOID;
	return R_NORMAL;
}

const struct pay_mark *theme_off(const char *visit_status)
{
	switch (visit_state_of(visit_status)) {
	case VISIT_CANCELLED:
		return &off_marks[0];
	case VISIT_NO_SHOW:
		return &off_marks[1];
	default:
		return NULL;
	}
}

const struct pay_mark *theme_off_marks(int *n)
{
	*n = (int)(sizeof off_marks / sizeof off_marks[0]);
	return off_marks;
}
