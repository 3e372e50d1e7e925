/*
 * check_media_preview.c - unit tests of media-preview.c: a photo's
 * preview in cells from a PNG and a JPEG made here (cairo, libjpeg's
 * compressor), its colours, its aspect, a hotspot's cell, a panorama's
 * hotspot, and the refusals: a truncated or corrupt JPEG, a copy changed
 * or missing, a 3D capture, a size out of range.
 */
#include <config.h>

#include <cairo.h>
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "booking.h"
#include "condition.h"
#include "customer.h"
#include "err.h"
#include "fixture.h"
#include "media-preview.h"

static struct fx F;
static struct db *db;
static int64_t report;

/* A visit of a customer's (a report records a customer's property) with
 * a report before the work. */
static void setup(void)
{
	struct customer_input c = {.name = "Ann Lee"};
	struct booking_input in = {0};
	struct booking_result res;
	int64_t ann = 0;

	fx_open(&F, "preview");
	db = F.db;
	ck_assert_int_eq(customer_add(db, &c, &ann), 0);
	in.start_at = fx_local("2026-12-01 10:00");
	in.end_at = fx_local("2026-12-01 11:00");
	in.customers = &ann;
	in.ncustomers = 1;
	ck_assert_int_eq(booking_add(db, &in, &res), 0);
	ck_assert_msg(condition_add(db, res.appt_id, "before", NULL, &report) == 0, "%s",
	              err_msg());
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	ck_assert_int_eq(fclose(f), 0);
}

/* A PNG of w x h pixels: the left half red, the right half blue. */
static void png_halves(const char *path, int w, int h)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(s);

	cairo_set_source_rgb(cr, 1, 0, 0);
	cairo_rectangle(cr, 0, 0, w / 2, h);
	cairo_fill(cr);
	cairo_set_source_rgb(cr, 0, 0, 1);
	cairo_rectangle(cr, w / 2, 0, w - w / 2, h);
	cairo_fill(cr);
	cairo_destroy(cr);
	ck_assert_int_eq(cairo_surface_write_to_png(s, path), CAIRO_STATUS_SUCCESS);
	cairo_surface_destroy(s);
}

/* A JPEG of w x h pixels of one colour (r < 0: a busy pattern, whose data
 * outweighs the headers), in memory (*len bytes; free it). */
static unsigned char *jpeg_of(int w, int h, int r, int g, int b, size_t *len)
{
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr e;
	unsigned char *out = NULL, *row = malloc((size_t)w * 3);
	unsigned long n = 0;
	int x;

	for (x = 0; x < w; x++) {
		row[3 * x] = (unsigned char)(r < 0 ? x * 37 % 256 : r);
		row[3 * x + 1] = (unsigned char)(r < 0 ? x * 91 % 256 : g);
		row[3 * x + 2] = (unsigned char)(r < 0 ? x * 53 % 256 : b);
	}
	c.err = jpeg_std_error(&e);
	jpeg_create_compress(&c);
	jpeg_mem_dest(&c, &out, &n);
	c.image_width = (JDIMENSION)w;
	c.image_height = (JDIMENSION)h;
	c.input_components = 3;
	c.in_color_space = JCS_RGB;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, 90, TRUE);
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < c.image_height)
		jpeg_write_scanlines(&c, &row, 1);
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	free(row);
	*len = n;
	return out;
}

static int64_t medium(const char *path, const char *kind)
{
	int64_t id = 0;

	ck_assert_msg(condition_media_add(db, report, path, kind, NULL, &id) == 0, "%s", err_msg());
	return id;
}

static int hotspot(int64_t media_id, const char *at)
{
	struct condition_hotspot_input in = {media_id, "damage", "a mark", at, 0, 0, 0};
	int64_t id;
	int number = 0;

	ck_assert_int_eq(condition_hotspot_add(db, &in, &id, &number), 0);
	return number;
}

/* The path of medium id's kept copy (free it). */
static char *copy_of(int64_t id)
{
	struct condition_media m;
	char *dir = condition_media_folder(db), *p;
	size_t n;

	ck_assert_int_eq(condition_media_get(db, id, &m), 0);
	ck_assert_ptr_nonnull(m.local_path);
	n = strlen(dir) + strlen(m.local_path) + 2;
	p = malloc(n);
	snprintf(p, n, "%s/%s", dir, m.local_path);
	free(dir);
	condition_media_free(&m);
	return p;
}

static const struct media_cell *cell(const struct media_preview *p, int c, int r)
{
	return &p->cell[r * p->cols + c];
}

/* Left half red, right half blue: every cell of the left half is red, both
 * pixels, and every cell of the right half blue; a hotspot at 0.75, 0.25
 * lies in the cell of pixel column 0.75 * width, pixel row 0.25 * height. */
START_TEST(test_png_halves_and_hotspot)
{
	char path[200];
	struct media_preview p;
	int64_t id;
	int c, r, n, cols = 16, rows = 4;

	snprintf(path, sizeof path, "%s/halves.png", F.dir);
	png_halves(path, 64, 32); /* 2:1, as the box of 16 x (2 * 4) pixels */
	id = medium(path, "photo");
	n = hotspot(id, "0.75,0.25");
	ck_assert_int_eq(media_preview(db, id, cols, rows, &p), 0);
	ck_assert_int_eq(p.width, 64);
	ck_assert_int_eq(p.height, 32);
	ck_assert_int_eq(p.cols, cols);
	ck_assert_int_eq(p.rows, rows);
	for (r = 0; r < p.rows; r++)
		for (c = 0; c < p.cols; c++) {
			const struct media_cell *m = cell(&p, c, r);
			int want = c < p.cols / 2 ? MEDIA_RED : MEDIA_BLUE;

			ck_assert_int_eq(m->up_color, want);
			ck_assert_int_eq(m->low_color, want);
			ck_assert_int_eq(m->has_low, 1);
			ck_assert_int_eq(m->up[want == MEDIA_RED ? 0 : 2], 255);
			ck_assert_int_eq(m->up[1], 0);
		}
	ck_assert_int_eq(p.nspots, 1);
	ck_assert_int_eq(p.spot[0].number, n);
	ck_assert_int_eq(p.spot[0].col, (int)(0.75 * p.cols));
	ck_assert_int_eq(p.spot[0].row, (int)(0.25 * 2 * p.rows) / 2);
	media_preview_free(&p);
	ck_assert_ptr_null(p.cell);

	/* a box of another shape: the picture keeps its aspect (2:1 pixels,
	 * so as many cells across as twice the height in pixels / 2) */
	ck_assert_int_eq(media_preview(db, id, 40, 4, &p), 0);
	ck_assert_int_eq(p.cols, 16);
	ck_assert_int_eq(p.rows, 4);
	media_preview_free(&p);
	ck_assert_int_eq(media_preview(db, id, 10, 30, &p), 0);
	ck_assert_int_eq(p.cols, 10);
	ck_assert_int_eq(p.rows, 3); /* 10 x 5 pixels: the last row's lower half is none */
	ck_assert_int_eq(cell(&p, 0, 2)->has_low, 0);
	ck_assert_int_eq(cell(&p, 0, 1)->has_low, 1);
	media_preview_free(&p);
}
END_TEST

/* A JPEG decodes with its aspect kept, large ones too (decoded at 1/8). */
START_TEST(test_jpeg_aspect)
{
	char path[200];
	struct media_preview p;
	unsigned char *j;
	size_t len;
	int64_t id;
	int w = 120, h = 40, cols = 30, rows = 10;

	snprintf(path, sizeof path, "%s/green.jpg", F.dir);
	j = jpeg_of(w, h, 0, 200, 0, &len);
	write_file(path, j, len);
	free(j);
	id = medium(path, "photo");
	ck_assert_int_eq(media_preview(db, id, cols, rows, &p), 0);
	ck_assert_int_eq(p.width, w);
	ck_assert_int_eq(p.height, h);
	/* 3:1: the whole width, a third of it in pixels high, two a cell */
	ck_assert_int_eq(p.cols, cols);
	ck_assert_int_eq(p.rows, cols / 3 / 2);
	ck_assert_int_eq(cell(&p, 0, 0)->up_color, MEDIA_GREEN);
	ck_assert_int_eq(cell(&p, p.cols - 1, p.rows - 1)->low_color, MEDIA_GREEN);
	ck_assert_int_eq(p.nspots, 0);
	media_preview_free(&p);

	w = 1600;
	h = 1200;
	snprintf(path, sizeof path, "%s/large.jpg", F.dir);
	j = jpeg_of(w, h, 0, 0, 220, &len);
	write_file(path, j, len);
	free(j);
	id = medium(path, "photo");
	ck_assert_int_eq(media_preview(db, id, 40, 12, &p), 0);
	ck_assert_int_eq(p.width, w);
	ck_assert_int_eq(p.height, h);
	/* 4:3 in 40 x 24 pixels: 32 x 24 */
	ck_assert_int_eq(p.cols, 24 * 4 / 3);
	ck_assert_int_eq(p.rows, 12);
	ck_assert_int_eq(cell(&p, 5, 5)->up_color, MEDIA_BLUE);
	media_preview_free(&p);
}
END_TEST

/* A panorama's hotspot at yaw 90, pitch 0 in its own frame (yaw 0 at the
 * middle column) lies three quarters across, half way down. */
START_TEST(test_panorama_hotspot)
{
	char path[200];
	struct media_preview p;
	int64_t id;

	snprintf(path, sizeof path, "%s/pano.png", F.dir);
	png_halves(path, 80, 40);
	id = medium(path, "panorama");
	hotspot(id, "90,0");
	ck_assert_int_eq(media_preview(db, id, 20, 5, &p), 0);
	ck_assert_int_eq(p.nspots, 1);
	ck_assert_int_eq(p.spot[0].col, (int)(0.75 * p.cols));
	ck_assert_int_eq(p.spot[0].row, (int)(0.5 * 2 * p.rows) / 2);
	media_preview_free(&p);
}
END_TEST

/* Refused, with a reason and nothing to free: a truncated JPEG, a corrupt
 * one, a copy changed or removed, a 3D capture, a box out of range. */
START_TEST(test_refusals)
{
	char path[200], *copy;
	struct media_preview p;
	unsigned char *j, bad[64];
	size_t len;
	int64_t id;
	FILE *f;

	/* cut in its data, after its headers: libjpeg alone would fill the
	 * rest with grey and only warn */
	snprintf(path, sizeof path, "%s/cut.jpg", F.dir);
	j = jpeg_of(256, 192, -1, 0, 0, &len);
	ck_assert_uint_gt(len, 4000);
	write_file(path, j, len * 2 / 3);
	id = medium(path, "photo");
	ck_assert_int_eq(media_preview(db, id, 20, 5, &p), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "JPEG"));
	ck_assert_ptr_null(p.cell);
	ck_assert_ptr_null(p.spot);

	/* the JPEG's start and a marker's first byte, then noise */
	memset(bad, 0x5a, sizeof bad);
	bad[0] = 0xFF;
	bad[1] = 0xD8;
	bad[2] = 0xFF;
	snprintf(path, sizeof path, "%s/noise.jpg", F.dir);
	write_file(path, bad, sizeof bad);
	id = medium(path, "photo");
	ck_assert_int_eq(media_preview(db, id, 20, 5, &p), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "JPEG"));
	ck_assert_ptr_null(p.cell);

	/* a whole JPEG whose copy is then changed, then removed */
	snprintf(path, sizeof path, "%s/whole.jpg", F.dir);
	write_file(path, j, len);
	free(j);
	id = medium(path, "photo");
	ck_assert_int_eq(media_preview(db, id, 20, 5, &p), 0);
	media_preview_free(&p);
	copy = copy_of(id);
	f = fopen(copy, "r+b");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, -3, SEEK_END), 0);
	ck_assert_int_eq(fputc('x', f), 'x');
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(media_preview(db, id, 20, 5, &p), FD_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(), "changed"));
	ck_assert_ptr_null(p.cell);
	ck_assert_int_eq(remove(copy), 0);
	ck_assert_int_eq(media_preview(db, id, 20, 5, &p), FD_ECONFLICT);
	ck_assert_ptr_nonnull(strstr(err_msg(), "missing"));
	free(copy);

	snprintf(path, sizeof path, "%s/scan.bin", F.dir);
	write_file(path, "a 3D capture", 12);
	id = medium(path, "model");
	ck_assert_int_eq(media_preview(db, id, 20, 5, &p), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "3D"));

	ck_assert_int_eq(media_preview(db, id, 0, 5, &p), FD_EINVAL);
	ck_assert_int_eq(media_preview(db, id, 20, MEDIA_PREVIEW_MAX_CELLS + 1, &p), FD_EINVAL);
	ck_assert_int_eq(media_preview(db, 999, 20, 5, &p), FD_ENOTFOUND);
}
END_TEST

/* The nearest of the eight colours. */
START_TEST(test_nearest)
{
	ck_assert_int_eq(media_preview_nearest(0, 0, 0), MEDIA_BLACK);
	ck_assert_int_eq(media_preview_nearest(255, 255, 255), MEDIA_WHITE);
	ck_assert_int_eq(media_preview_nearest(250, 10, 20), MEDIA_RED);
	ck_assert_int_eq(media_preview_nearest(30, 30, 200), MEDIA_BLUE);
	ck_assert_int_eq(media_preview_nearest(220, 210, 30), MEDIA_YELLOW);
	ck_assert_int_eq(media_preview_nearest(20, 190, 200), MEDIA_CYAN);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("media_preview");
	TCase *tc = tcase_create("media_preview");
	SRunner *sr;
	int failed;

	fx_env();
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_png_halves_and_hotspot);
	tcase_add_test(tc, test_jpeg_aspect);
	tcase_add_test(tc, test_panorama_hotspot);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_nearest);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
