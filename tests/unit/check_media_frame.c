/*
 * check_media_frame.c - unit tests of media-frame.c: a hotspot's place
 * carried from one media provider's viewer frame into another's (the
 * contract's frames), and the frames a provider may describe.
 */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "media-frame.h"

static struct media_frame frame(const char *json)
{
	struct media_frame f;

	ck_assert_int_eq(media_frame_read(json, &f), 0);
	return f;
}

/* A panorama's yaw follows the image's column: with the origin at the
 * middle, yaw 90 looks at column 0.75; with the origin at a quarter, that
 * column is yaw 180. */
START_TEST(test_panorama)
{
	struct media_frame a = frame("{\"system\":\"equirect\",\"yaw_origin\":0.5}"),
	                   b = frame("{\"system\":\"equirect\",\"yaw_origin\":0.25}");
	double c[3] = {90, -12.5, 0};

	ck_assert_int_eq(media_frame_translate(&a, &b, c), 0);
	ck_assert_double_eq_tol(c[0], 180, 1e-9);
	ck_assert_double_eq_tol(c[1], -12.5, 1e-9);
	/* and back: the same place */
	ck_assert_int_eq(media_frame_translate(&b, &a, c), 0);
	ck_assert_double_eq_tol(c[0], 90, 1e-9);
	/* a yaw that wraps: -170 at origin 0.5 is column 0.0278, at 0.25 yaw -80 */
	c[0] = -170;
	ck_assert_int_eq(media_frame_translate(&a, &b, c), 0);
	ck_assert_double_eq_tol(c[0], -80, 1e-9);
	/* the result stays in (-180, 180] */
	c[0] = 180;
	ck_assert_int_eq(media_frame_translate(&a, &a, c), 0);
	ck_assert_double_eq_tol(c[0], 180, 1e-9);
}
END_TEST

/* A model: the scale (metres to millimetres) and the up axis. */
START_TEST(test_model)
{
	struct media_frame m_y = frame("{\"system\":\"model\",\"unit_m\":1,\"up\":\"y\"}"),
	                   mm_z = frame("{\"system\":\"model\",\"unit_m\":0.001,\"up\":\"z\"}");
	double up[3] = {0, 1, 0}, near[3] = {0, 0, 2}, p[3] = {1.5, -2, 0.25};

	/* up in a y-up frame is up in a z-up one, in millimetres */
	ck_assert_int_eq(media_frame_translate(&m_y, &mm_z, up), 0);
	ck_assert_double_eq_tol(up[0], 0, 1e-9);
	ck_assert_double_eq_tol(up[1], 0, 1e-9);
	ck_assert_double_eq_tol(up[2], 1000, 1e-9);
	/* toward the viewer (+z with y up) is -y with z up */
	ck_assert_int_eq(media_frame_translate(&m_y, &mm_z, near), 0);
	ck_assert_double_eq_tol(near[1], -2000, 1e-9);
	ck_assert_double_eq_tol(near[2], 0, 1e-9);
	/* there and back is the same point */
	ck_assert_int_eq(media_frame_translate(&m_y, &mm_z, p), 0);
	ck_assert_int_eq(media_frame_translate(&mm_z, &m_y, p), 0);
	ck_assert_double_eq_tol(p[0], 1.5, 1e-9);
	ck_assert_double_eq_tol(p[1], -2, 1e-9);
	ck_assert_double_eq_tol(p[2], 0.25, 1e-9);
	/* a point beyond the limit in the new frame is refused */
	p[0] = 2000;
	ck_assert_int_eq(media_frame_translate(&m_y, &mm_z, p) < 0, 1);
}
END_TEST

/* A photo's place is the same everywhere; frames of two systems do not mix;
 * frames the contract does not describe are refused. */
START_TEST(test_photo_and_refusals)
{
	struct media_frame img = frame("{\"system\":\"image\"}"),
	                   pan = frame("{\"system\":\"equirect\",\"yaw_origin\":0}"), f;
	double c[3] = {0.25, 0.75, 0};

	ck_assert_int_eq(media_frame_translate(&img, &img, c), 0);
	ck_assert_double_eq(c[0], 0.25);
	ck_assert_double_eq(c[1], 0.75);
	ck_assert_int_eq(media_frame_translate(&img, &pan, c) < 0, 1);
	ck_assert_int_eq(media_frame_read("{\"system\":\"equirect\",\"yaw_origin\":1}", &f) < 0, 1);
	ck_assert_int_eq(
	    media_frame_read("{\"system\":\"model\",\"unit_m\":0,\"up\":\"y\"}", &f) < 0, 1);
	ck_assert_int_eq(
	    media_frame_read("{\"system\":\"model\",\"unit_m\":1,\"up\":\"x\"}", &f) < 0, 1);
	ck_assert_int_eq(media_frame_read("{\"system\":\"sphere\"}", &f) < 0, 1);
	ck_assert_int_eq(media_frame_read("[1]", &f) < 0, 1);
	ck_assert_int_eq(media_frame_read("not json", &f) < 0, 1);
	ck_assert_int_eq(media_frame_read(NULL, &f) < 0, 1);
}
END_TEST

/* A medium no provider hosts yet: the desk's own frames; which frames need
 * no translation. */
START_TEST(test_own_and_same)
{
	struct media_frame own, f = frame("{\"system\":\"equirect\",\"yaw_origin\":0.5}");

	media_frame_own("panorama", &own);
	ck_assert_int_eq(media_frame_same(&own, &f), 1);
	f.yaw_origin = 0.25;
	ck_assert_int_eq(media_frame_same(&own, &f), 0);
	media_frame_own("model", &own);
	f = frame("{\"system\":\"model\",\"unit_m\":1,\"up\":\"y\"}");
	ck_assert_int_eq(media_frame_same(&own, &f), 1);
	f.up = 'z';
	ck_assert_int_eq(media_frame_same(&own, &f), 0);
	f.up = 'y';
	f.unit_m = 0.01;
	ck_assert_int_eq(media_frame_same(&own, &f), 0);
	media_frame_own("photo", &own);
	ck_assert_int_eq(media_frame_same(&own, &f), 0); /* another system */
	f = frame("{\"system\":\"image\"}");
	ck_assert_int_eq(media_frame_same(&own, &f), 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("media_frame");
	TCase *tc = tcase_create("media_frame");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_panorama);
	tcase_add_test(tc, test_model);
	tcase_add_test(tc, test_photo_and_refusals);
	tcase_add_test(tc, test_own_and_same);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
