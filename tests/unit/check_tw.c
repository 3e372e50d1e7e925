/*
 * check_tw.c - unit tests of the text-width module (ui/tw.c): widths of
 * ASCII, accented, combining and CJK text, and fitting that never splits a
 * character and marks cuts with an ellipsis.
 */
#include <config.h>

#include <check.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tw.h"

static void fits(const char *s, int cols, int pad, const char *want, int want_used)
{
	char buf[256];
	int used = tw_fit(s, cols, pad, buf, sizeof buf);

	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(used, want_used);
	ck_assert_int_le(tw_width(buf), cols);
}

START_TEST(test_width)
{
	ck_assert_int_eq(tw_width(""), 0);
	ck_assert_int_eq(tw_width("Ada Lee"), 7);
	ck_assert_int_eq(tw_width("Zoë"), 3);
	ck_assert_int_eq(tw_width("e\xcc\x81"), 1); /* e + combining acute */
	ck_assert_int_eq(tw_width("王小明"), 6);
	ck_assert_int_eq(tw_width("佐藤 花子"), 9);
	ck_assert_int_eq(tw_width("bad\xff"), 4);
	ck_assert_int_eq(tw_width("\x1b"), 1);
}
END_TEST

/* Help and messages were cut, not wrapped (issue): tw_wrap breaks at
 * blanks, else at a character boundary, never wider than the line. */
static void wraps(const char *s, int cols, int want_n, const char *const *want)
{
	size_t st[32], ln[32];
	int n = tw_wrap(s, cols, st, ln, 32), i;

	ck_assert_int_eq(n, want_n);
	for (i = 0; i < n && i < 32; i++) {
		char buf[256];

		snprintf(buf, sizeof buf, "%.*s", (int)ln[i], s + st[i]);
		ck_assert_str_eq(buf, want[i]);
		ck_assert_int_le(tw_width(buf), cols);
	}
}

START_TEST(test_wrap)
{
	static const char *const a[] = {"Enter on an", "invoice opens", "it."};
	static const char *const b[] = {"王小明王", "小明王小", "明"};
	static const char *const c[] = {"abcde", "fgh", "ij"};
	static const char *const d[] = {"one", "", "two"};
	static const char *const e[] = {"Zoë", "Müller"};
	size_t st[1], ln[1];

	wraps("Enter on an invoice opens it.", 13, 3, a);
	wraps("王小明王小明王小明", 9, 3, b); /* never half of a wide character */
	wraps("abcdefgh ij", 5, 3, c);        /* a word longer than the line is cut */
	ck_assert_int_eq(tw_wrap("abcdefgh ij", 6, st, ln, 1), 2); /* the count past max */
	wraps("one\n\ntwo", 10, 3, d);
	wraps("Zoë Müller", 6, 2, e);
	ck_assert_int_eq(tw_wrap("", 10, st, ln, 1), 0);
	wraps("short", 80, 1, (const char *const[]){"short"});
}
END_TEST

/* Emoji joined with a zero-width joiner were measured as 4 columns while
 * tmux draws them in 2 (issue): a joined cluster counts and is drawn as its
 * first code point, so what curses is given measures as the terminal draws. */
START_TEST(test_joined_clusters)
{
	char buf[64];

	ck_assert_int_eq(tw_width("\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x94\xa7"),
	                 2); /* woman ZWJ wrench */
	fits("\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x94\xa7 Ana", 10, 0, "\xf0\x9f\x91\xa9 Ana", 6);
	/* a family of four: three joiners */
	ck_assert_int_eq(tw_width("\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d"
	                          "\xf0\x9f\x91\xa7\xe2\x80\x8d\xf0\x9f\x91\xa6"),
	                 2);
	/* heart with the emoji selector: the selector is not drawn */
	fits("\xe2\x9d\xa4\xef\xb8\x8f!", 5, 0, "\xe2\x9d\xa4!", 2);
	/* thumbs up with a skin tone: the modifier is not drawn */
	fits("\xf0\x9f\x91\x8d\xf0\x9f\x8f\xbb", 4, 0, "\xf0\x9f\x91\x8d", 2);
	/* a joiner with nothing before it, and one at the end */
	fits("\xe2\x80\x8d"
	     "A"
	     "\xe2\x80\x8d",
	     4, 0, "A", 1);
	/* combining marks are kept: the terminal draws them in the base's cell */
	fits("e\xcc\x81", 2, 0, "e\xcc\x81", 1);
	/* cut before a joined cluster that does not fit, never inside it */
	tw_fit("ab\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x94\xa7"
	       "cdef",
	       6, 0, buf, sizeof buf);
	ck_assert_str_eq(buf, "ab...");
	ck_assert_int_le(tw_width(buf), 6);
}
END_TEST

START_TEST(test_fit)
{
	fits("Ada Lee", 10, 1, "Ada Lee   ", 10);
	fits("Ada Lee", 10, 0, "Ada Lee", 7);
	fits("Ada Lee", 7, 1, "Ada Lee", 7);
	fits("Ada Lee Smith", 8, 1, "Ada L...", 8);
	/* 8 columns into 7: two characters (4 columns) and the ellipsis */
	fits("王小明是", 7, 1, "王小...", 7);
	fits("王小明", 6, 1, "王小明", 6);
	/* 7 columns into 6: "小" would end at column 4 > 3, so it goes
	 * whole; the column left over is padded, never half a character */
	fits("王小明x", 6, 1, "王... ", 6);
	fits("abc", 2, 1, "ab", 2);
	fits("abcdef", 0, 1, "", 0);
	/* control bytes and invalid UTF-8 are shown as '?' */
	fits("a\x1b[2Jb", 10, 0, "a?[2Jb", 6);
	fits("x\xffy", 10, 0, "x?y", 3);
}
END_TEST

static void abbrevs(const char *s, int cols, const char *want, int want_used)
{
	char buf[256];
	int used = tw_abbrev(s, cols, buf, sizeof buf);

	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(used, want_used);
	ck_assert_int_le(tw_width(buf), cols);
}

/* a week chip's name: whole, or its first letters and one "." (a cut
 * always ends with the mark, even in one or two columns) */
START_TEST(test_abbrev)
{
	abbrevs("Ada Lee", 7, "Ada Lee", 7);
	abbrevs("Ada Lee", 6, "Ada L.", 6);
	abbrevs("Ada Lee", 5, "Ada.", 4); /* never "Ada ." */
	abbrevs("Ada Lee", 2, "A.", 2);
	abbrevs("Ada Lee", 1, ".", 1);
	abbrevs("Ada Lee", 0, "", 0);
	/* never half a character: "王" (2) and "." in 4 columns */
	abbrevs("王小明", 4, "王.", 3);
	abbrevs("王小明", 6, "王小明", 6);
}
END_TEST

START_TEST(test_small_buffer)
{
	char buf[4];

	tw_fit("王小明", 6, 1, buf, sizeof buf);
	ck_assert_str_eq(buf, "王"); /* never half a character */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tw");
	TCase *tc = tcase_create("tw");
	SRunner *sr;
	int failed;

	if (!setlocale(LC_ALL, "C.UTF-8"))
		return 77;
	tcase_add_test(tc, test_width);
	tcase_add_test(tc, test_fit);
	tcase_add_test(tc, test_joined_clusters);
	tcase_add_test(tc, test_wrap);
	tcase_add_test(tc, test_small_buffer);
	tcase_add_test(tc, test_abbrev);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
