/*
 * media-preview.c - a photo's or a panorama's rough preview in cells (see
 * media-preview.h).
 *
 * The steps: the medium and its copy (condition.h's reads; the bytes read
 * once and hashed, so what is decoded is what was checked), the decoding
 * into a buffer of RGB pixels (cairo for PNG, libjpeg for JPEG, each
 * loaded by dynlib on first use), the box-filter scaling into the cells,
 * and the hotspots' places. libjpeg reports an error by calling
 * error_exit, which must not return: ours keeps the message and longjmps
 * back to decode_jpeg, which frees what it holds; its warnings are kept
 * quiet (the screen owns the terminal).
 */
#include <config.h>

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>
#include <jpeglib.h>
/* after jpeglib.h: the codes of its messages */
#include <jerror.h>

#include "condition.h"
#include "crypto-dyn.h"
#include "dynlib.h"
#include "err.h"
#include "fsmode.h"
#include "i18n.h"
#include "media-frame.h"
#include "media-preview.h"
#include "media.h"
#include "strbuf.h"
#include "xalloc.h"

/* The most pixels a decoded picture may hold (a PNG is decoded whole: 40
 * million pixels are 160 MB to cairo; a large JPEG is decoded at 1/8). */
#define MAX_PIXELS 40000000LL

/* ------------------------------------------------------------ the libraries */

#define CAIRO_FUNCS(X)                                                                             \
	X(cairo_image_surface_create_from_png_stream)                                              \
	X(cairo_image_surface_get_data)                                                            \
	X(cairo_image_surface_get_format)                                                          \
	X(cairo_image_surface_get_height)                                                          \
	X(cairo_image_surface_get_stride)                                                          \
	X(cairo_image_surface_get_width)                                                           \
	X(cairo_surface_destroy)                                                                   \
	X(cairo_surface_flush)                                                                     \
	X(cairo_surface_status)
#define JPEG_FUNCS(X)                                                                              \
	X(jpeg_CreateDecompress)                                                                   \
	X(jpeg_destroy_decompress)                                                                 \
	X(jpeg_mem_src)                                                                            \
	X(jpeg_read_header)                                                                        \
	X(jpeg_read_scanlines)                                                                     \
	X(jpeg_start_decompress)                                                                   \
	X(jpeg_std_error)
#define LIB_SLOT(f) __typeof__(f) *p_##f;
#define LIB_NAME(f) #f,

static struct {
	CAIRO_FUNCS(LIB_SLOT)
} cl;
static const char *const cl_names[] = {CAIRO_FUNCS(LIB_NAME) NULL};
static void *cl_ptrs[sizeof cl_names / sizeof *cl_names];
static struct dynlib cl_lib = {"libcairo.so.2", cl_names, cl_ptrs, 0, ""};

static struct {
	JPEG_FUNCS(LIB_SLOT)
} jl;
static const char *const jl_names[] = {JPEG_FUNCS(LIB_NAME) NULL};
static void *jl_ptrs[sizeof jl_names / sizeof *jl_names];
static struct dynlib jl_lib = {"libjpeg.so.62", jl_names, jl_ptrs, 0, ""};

/* The pointers are copied once, on the one thread that draws (the screen)
 * or runs the command; dynlib_load itself is thread-safe. */
static int cl_load(void)
{
	static int copied;
	size_t i = 0;
	int rc;

	if ((rc = dynlib_load(&cl_lib, _("a PNG picture's preview"))) != 0)
		return rc;
	if (!copied) {
#define LIB_SET(f) memcpy(&cl.p_##f, &cl_ptrs[i++], sizeof cl.p_##f);
		CAIRO_FUNCS(LIB_SET)
#undef LIB_SET
		copied = 1;
	}
	return 0;
}

static int jl_load(void)
{
	static int copied;
	size_t i = 0;
	int rc;

	if ((rc = dynlib_load(&jl_lib, _("a JPEG picture's preview"))) != 0)
		return rc;
	if (!copied) {
#define LIB_SET(f) memcpy(&jl.p_##f, &jl_ptrs[i++], sizeof jl.p_##f);
		JPEG_FUNCS(LIB_SET)
#undef LIB_SET
		copied = 1;
	}
	return 0;
}

/* ------------------------------------------------------------ decoding */

/* A decoded picture: w x h pixels of 3 bytes (RGB), row by row, of a
 * picture of ow x oh pixels (a JPEG decoded at a fraction of its size). */
struct rgb {
	int w, h, ow, oh;
	unsigned char *px;
};

/* The pixel box a picture of w x h fits into cols x rows cells with. */
static void fit(int w, int h, int cols, int rows, int *pw, int *ph)
{
	double kw = (double)cols / w, kh = 2.0 * rows / h, k = kw < kh ? kw : kh;
	long x = lround(w * k), y = lround(h * k);

	*pw = (int)(x < 1 ? 1 : x > cols ? cols : x);
	*ph = (int)(y < 1 ? 1 : y > 2 * rows ? 2 * rows : y);
}

static int too_large(long long w, long long h)
{
	return err_set(FD_EINVAL,
	               _("the picture is too large for a preview (%1$lld x %2$lld pixels)"), w, h);
}

struct png_in {
	const unsigned char *p;
	size_t len, at;
};

static cairo_status_t png_in_read(void *closure, unsigned char *data, unsigned int n)
{
	struct png_in *r = closure;

	if (r->len - r->at < n)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->p + r->at, n);
	r->at += n;
	return CAIRO_STATUS_SUCCESS;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A PNG's pixels; its size is read from its header (IHDR) and checked
 * before cairo allocates anything. */
static int decode_png(const unsigned char *b, size_t len, struct rgb *out)
{
	struct png_in in = {b, len, 0};
	cairo_surface_t *s;
	cairo_format_t fmt;
	const unsigned char *data;
	uint32_t w, h;
	int x, y, stride, rc;

	if (len < 24 || memcmp(b + 12, "IHDR", 4))
		return err_set(FD_EINVAL, "%s", _("the PNG picture has no readable size"));
	w = be32(b + 16);
	h = be32(b + 20);
	if (!w || !h)
		return err_set(FD_EINVAL, "%s", _("the PNG picture has no readable size"));
	if (w > MEDIA_PREVIEW_MAX_SIDE || h > MEDIA_PREVIEW_MAX_SIDE ||
	    (long long)w * h > MAX_PIXELS)
		return too_large(w, h);
	if ((rc = cl_load()) != 0)
		return rc;
	s = cl.p_cairo_image_surface_create_from_png_stream(png_in_read, &in);
	if (cl.p_cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		cl.p_cairo_surface_destroy(s);
		return err_set(FD_EINVAL, "%s", _("the PNG picture cannot be decoded"));
	}
	cl.p_cairo_surface_flush(s);
	fmt = cl.p_cairo_image_surface_get_format(s);
	if ((fmt != CAIRO_FORMAT_ARGB32 && fmt != CAIRO_FORMAT_RGB24) ||
	    cl.p_cairo_image_surface_get_width(s) != (int)w ||
	    cl.p_cairo_image_surface_get_height(s) != (int)h) {
		cl.p_cairo_surface_destroy(s);
		return err_set(FD_EINVAL, "%s", _("the PNG picture cannot be decoded"));
	}
	data = cl.p_cairo_image_surface_get_data(s);
	stride = cl.p_cairo_image_surface_get_stride(s);
	out->w = out->ow = (int)w;
	out->h = out->oh = (int)h;
	out->px = xmalloc((size_t)w * h * 3);
	for (y = 0; y < (int)h; y++)
		for (x = 0; x < (int)w; x++) {
			/* native-endian 0xAARRGGBB, premultiplied: as if on black */
			uint32_t v;
			unsigned char *o = out->px + ((size_t)y * w + (size_t)x) * 3;

			memcpy(&v, data + (size_t)y * (size_t)stride + (size_t)x * 4, 4);
			o[0] = (unsigned char)(v >> 16);
			o[1] = (unsigned char)(v >> 8);
			o[2] = (unsigned char)v;
		}
	cl.p_cairo_surface_destroy(s);
	return 0;
}

struct jerr {
	struct jpeg_error_mgr pub;
	jmp_buf back;
	char msg[JMSG_LENGTH_MAX];
};

static void jerr_exit(j_common_ptr c)
{
	struct jerr *e = (struct jerr *)c->err;

	e->pub.format_message(c, e->msg);
	longjmp(e->back, 1);
}

/* A message: the end of the data before the picture's is an error (a
 * truncated file, which libjpeg would fill with grey); any other warning
 * (corrupt data libjpeg goes past) and the trace are not printed. */
static void jerr_emit(j_common_ptr c, int level)
{
	if (level < 0 && c->err->msg_code == JWRN_JPEG_EOF)
		jerr_exit(c);
}

/* A JPEG's pixels, decoded at the smallest of 1/8, 1/4, 1/2 and 1 that
 * still gives at least pw x ph pixels. */
static int decode_jpeg(const unsigned char *b, size_t len, int cols, int rows, struct rgb *out)
{
	struct jpeg_decompress_struct ci;
	struct jerr e;
	unsigned char *volatile px = NULL;
	volatile int made = 0;
	int rc, pw, ph, d;

	if ((rc = jl_load()) != 0)
		return rc;
	memset(&ci, 0, sizeof ci);
	ci.err = jl.p_jpeg_std_error(&e.pub);
	e.pub.error_exit = jerr_exit;
	e.pub.emit_message = jerr_emit;
	e.msg[0] = '\0';
	if (setjmp(e.back)) {
		free(px);
		if (made)
			jl.p_jpeg_destroy_decompress(&ci);
		return err_set(FD_EINVAL, _("the JPEG picture cannot be decoded: %s"), e.msg);
	}
	jl.p_jpeg_CreateDecompress(&ci, JPEG_LIB_VERSION, sizeof ci);
	made = 1;
	jl.p_jpeg_mem_src(&ci, b, (unsigned long)len);
	jl.p_jpeg_read_header(&ci, TRUE);
	if (ci.image_width > MEDIA_PREVIEW_MAX_SIDE || ci.image_height > MEDIA_PREVIEW_MAX_SIDE) {
		rc = too_large(ci.image_width, ci.image_height);
		jl.p_jpeg_destroy_decompress(&ci);
		return rc;
	}
	fit((int)ci.image_width, (int)ci.image_height, cols, rows, &pw, &ph);
	for (d = 8; d > 1; d /= 2)
		if ((int)((ci.image_width + (unsigned)d - 1) / (unsigned)d) >= pw &&
		    (int)((ci.image_height + (unsigned)d - 1) / (unsigned)d) >= ph)
			break;
	ci.scale_num = 1;
	ci.scale_denom = (unsigned)d;
	ci.out_color_space = JCS_RGB;
	jl.p_jpeg_start_decompress(&ci);
	if (ci.output_components != 3 ||
	    (long long)ci.output_width * ci.output_height > MAX_PIXELS) {
		rc = too_large(ci.output_width, ci.output_height);
		jl.p_jpeg_destroy_decompress(&ci);
		return rc;
	}
	px = xmalloc((size_t)ci.output_width * ci.output_height * 3);
	while (ci.output_scanline < ci.output_height) {
		JSAMPROW row = px + (size_t)ci.output_scanline * ci.output_width * 3;

		jl.p_jpeg_read_scanlines(&ci, &row, 1);
	}
	/* the rest of the file (after the last scanline) is not needed */
	out->w = (int)ci.output_width;
	out->h = (int)ci.output_height;
	out->ow = (int)ci.image_width;
	out->oh = (int)ci.image_height;
	out->px = px;
	jl.p_jpeg_destroy_decompress(&ci);
	return 0;
}

/* ------------------------------------------------------------ the cells */

int media_preview_nearest(int r, int g, int b)
{
	/* the shades most terminals give the eight colours (xterm's) */
	static const int shade[8][3] = {{0, 0, 0},   {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
	                                {0, 0, 238}, {205, 0, 205}, {0, 205, 205}, {229, 229, 229}};
	long best = -1;
	int i, pick = 0;

	for (i = 0; i < 8; i++) {
		long dr = r - shade[i][0], dg = g - shade[i][1], db = b - shade[i][2],
		     d = dr * dr + dg * dg + db * db;

		if (best < 0 || d < best) {
			best = d;
			pick = i;
		}
	}
	return pick;
}

/* Pixel (tx, ty) of the picture scaled to pw x ph: the mean of the source
 * pixels it covers. */
static void mean_of(const struct rgb *s, int pw, int ph, int tx, int ty, unsigned char o[3])
{
	long long x0 = (long long)tx * s->w / pw, x1 = (long long)(tx + 1) * s->w / pw,
	          y0 = (long long)ty * s->h / ph, y1 = (long long)(ty + 1) * s->h / ph, x, y, n = 0,
	          sum[3] = {0, 0, 0};
	int k;

	if (x1 <= x0)
		x1 = x0 + 1;
	if (y1 <= y0)
		y1 = y0 + 1;
	for (y = y0; y < y1; y++)
		for (x = x0; x < x1; x++) {
			const unsigned char *p = s->px + ((size_t)y * (size_t)s->w + (size_t)x) * 3;

			for (k = 0; k < 3; k++)
				sum[k] += p[k];
			n++;
		}
	for (k = 0; k < 3; k++)
		o[k] = (unsigned char)(sum[k] / n);
}

static void cells_make(const struct rgb *s, int pw, int ph, struct media_preview *out)
{
	int c, r;

	out->cols = pw;
	out->rows = (ph + 1) / 2;
	out->cell = xcalloc((size_t)out->cols * (size_t)out->rows, sizeof *out->cell);
	for (r = 0; r < out->rows; r++)
		for (c = 0; c < pw; c++) {
			struct media_cell *m = &out->cell[r * pw + c];

			mean_of(s, pw, ph, c, 2 * r, m->up);
			m->up_color =
			    (unsigned char)media_preview_nearest(m->up[0], m->up[1], m->up[2]);
			m->has_low = 2 * r + 1 < ph;
			if (m->has_low) {
				mean_of(s, pw, ph, c, 2 * r + 1, m->low);
				m->low_color = (unsigned char)media_preview_nearest(
				    m->low[0], m->low[1], m->low[2]);
			}
		}
}

/* ------------------------------------------------------------ the hotspots */

struct spots {
	int64_t media_id;
	int pw, ph;
	const struct media_frame *f; /* a panorama's frame; NULL on a photo */
	struct media_preview *out;
};

static int clamp_px(double v, int n)
{
	double p = floor(v * n);

	return p < 0 ? 0 : p >= n ? n - 1 : (int)p;
}

static int spot_add(const struct condition_hotspot *h, void *arg)
{
	struct spots *s = arg;
	struct media_preview_spot *sp;
	double x, y;

	if (h->media_id != s->media_id)
		return 0;
	if (!strcmp(h->system, "equirect") && s->f) {
		/* as condition-print.c places it on the page */
		double u = s->f->yaw_origin + h->c[0] / 360.0;

		x = u - floor(u);
		y = 0.5 - h->c[1] / 180.0;
	} else if (!strcmp(h->system, "image")) {
		x = h->c[0];
		y = h->c[1];
	} else {
		return 0;
	}
	s->out->spot = xrealloc(s->out->spot, (size_t)(s->out->nspots + 1) * sizeof *s->out->spot);
	sp = &s->out->spot[s->out->nspots++];
	sp->number = h->number;
	sp->col = clamp_px(x, s->pw);
	sp->row = clamp_px(y, s->ph) / 2;
	return 0;
}

/* ------------------------------------------------------------ the whole */

int media_preview(struct db *db, int64_t media_id, int cols, int rows, struct media_preview *out)
{
	struct condition_media m;
	struct media_frame f;
	struct rgb pic = {0, 0, 0, 0, NULL};
	struct strbuf path = {0};
	unsigned char *b = NULL;
	size_t len = 0;
	char *dir, sha[65];
	int rc, pw, ph, panorama;

	memset(out, 0, sizeof *out);
	if (cols < 1 || rows < 1 || cols > MEDIA_PREVIEW_MAX_CELLS ||
	    rows > MEDIA_PREVIEW_MAX_CELLS)
		return err_set(FD_EINVAL,
		               _("a preview is 1 to %1$d cells wide and high, not %2$d x %3$d"),
		               MEDIA_PREVIEW_MAX_CELLS, cols, rows);
	if ((rc = condition_media_get(db, media_id, &m)) != 0)
		return rc;
	panorama = !strcmp(m.kind, "panorama");
	if (!panorama && strcmp(m.kind, "photo")) {
		rc = err_set(FD_EINVAL, _("medium %lld is a 3D capture: it has no preview"),
		             (long long)media_id);
		goto out;
	}
	if (!m.local_path) {
		rc = err_set(FD_ECONFLICT, _("the copy of medium %lld was removed (purged)"),
		             (long long)media_id);
		goto out;
	}
	dir = condition_media_folder(db);
	sb_printf(&path, "%s/%s", dir, m.local_path);
	free(dir);
	/* read once, and hash what was read: what is decoded is what was checked */
	rc = fsmode_read_file(sb_cstr(&path), CONDITION_FILE_MAX, &b, &len);
	if (!rc && (rc = crypto_sha256_hex(b, len, sha)) != 0)
		goto out;
	if (rc || strcmp(sha, m.sha256)) {
		err_clear();
		rc = err_set(FD_ECONFLICT,
		             _("the copy of medium %lld is missing or changed (frontdesk check)"),
		             (long long)media_id);
		goto out;
	}
	if (len >= 2 && b[0] == 0xFF && b[1] == 0xD8)
		rc = decode_jpeg(b, len, cols, rows, &pic);
	else if (len >= 8 && !memcmp(b, "\x89PNG\r\n\x1a\n", 8))
		rc = decode_png(b, len, &pic);
	else
		rc = err_set(FD_EINVAL, _("medium %lld is neither a JPEG nor a PNG picture"),
		             (long long)media_id);
	if (rc)
		goto out;
	/* the aspect of the picture itself (a JPEG may be decoded smaller) */
	out->width = pic.ow;
	out->height = pic.oh;
	fit(out->width, out->height, cols, rows, &pw, &ph);
	cells_make(&pic, pw, ph, out);
	if (panorama && (rc = media_frame_now(db, media_id, &f)) != 0)
		goto out;
	{
		struct spots s = {media_id, pw, ph, panorama ? &f : NULL, out};

		rc = condition_hotspot_list(db, m.report_id, spot_add, &s);
	}
out:
	if (rc)
		media_preview_free(out);
	free(pic.px);
	free(b);
	sb_free(&path);
	condition_media_free(&m);
	return rc;
}

void media_preview_free(struct media_preview *p)
{
	free(p->cell);
	free(p->spot);
	memset(p, 0, sizeof *p);
}
