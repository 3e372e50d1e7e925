/*
 * condition-print.c - a condition report to hand over (see
 * condition-print.h): the text laid out with print.h's pieces, and the PDF
 * with a page per photo and panorama (print_pictures_write).
 *
 * Numbers are written with '.' whatever the locale (fmt_num: integer
 * arithmetic, no printf of a double). Every text comes from the owners'
 * reads (condition.h, media.h) and is sanitised by the layout's pieces.
 */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "channel.h"
#include "clock.h"
#include "condition-print.h"
#include "condition.h"
#include "crypto-dyn.h"
#include "err.h"
#include "fsmode.h"
#include "i18n.h"
#include "media-frame.h"
#include "media.h"
#include "print.h"
#include "strbuf.h"
#include "xalloc.h"

/* v with at most four decimals, '.' the decimal point. */
static void fmt_num(double v, char out[32])
{
	long long q = llround(fabs(v) * 10000.0), whole = q / 10000, frac = q % 10000;
	char f[8];
	int n;

	snprintf(f, sizeof f, "%04lld", frac);
	for (n = 4; n > 0 && f[n - 1] == '0'; n--)
		f[n - 1] = '\0';
	snprintf(out, 32, "%s%lld%s%s", v < 0 && q ? "-" : "", whole, *f ? "." : "", f);
}

/* A hotspot's place in words: "x 0.25, y 0.6". */
static void place_of(const struct condition_hotspot *h, char *out, size_t n)
{
	static const char *const names[3][3] = {
	    {"x", "y", NULL}, {"yaw", "pitch", NULL}, {"x", "y", "z"}};
	const char *const *nm = !strcmp(h->system, "image")      ? names[0]
	                        : !strcmp(h->system, "equirect") ? names[1]
	                                                         : names[2];
	struct strbuf sb = {0};
	char v[32];
	int i;

	for (i = 0; i < 3 && nm[i]; i++) {
		fmt_num(h->c[i], v);
		sb_printf(&sb, "%s%s %s", i ? ", " : "", nm[i], v);
	}
	snprintf(out, n, "%s", sb_cstr(&sb));
	sb_free(&sb);
}

struct doc {
	struct db *db;
	int64_t report;
	int width;
	struct strbuf *out;
	struct condition_report r;
	/* the media and hotspots, read once */
	struct condition_media *m;
	size_t nm;
	struct condition_hotspot *h;
	size_t nh;
	int rc;
};

static int keep_medium(const struct condition_media *m, void *arg)
{
	struct doc *d = arg;
	struct condition_media *c;

	d->m = xrealloc(d->m, (d->nm + 1) * sizeof *d->m);
	c = &d->m[d->nm++];
	*c = *m;
	c->caption = m->caption ? xstrdup(m->caption) : NULL;
	c->file_name = m->file_name ? xstrdup(m->file_name) : NULL;
	c->local_path = m->local_path ? xstrdup(m->local_path) : NULL;
	return 0;
}

static int keep_hotspot(const struct condition_hotspot *h, void *arg)
{
	struct doc *d = arg;
	struct condition_hotspot *c;

	d->h = xrealloc(d->h, (d->nh + 1) * sizeof *d->h);
	c = &d->h[d->nh++];
	*c = *h;
	c->label = xstrdup(h->label ? h->label : "");
	return 0;
}

static void doc_free(struct doc *d)
{
	size_t i;

	for (i = 0; i < d->nm; i++)
		condition_media_free(&d->m[i]);
	for (i = 0; i < d->nh; i++)
		condition_hotspot_free(&d->h[i]);
	free(d->m);
	free(d->h);
	condition_free(&d->r);
}

static int doc_read(struct doc *d)
{
	int rc;

	if ((rc = condition_get(d->db, d->report, &d->r)) ||
	    (rc = condition_media_list(d->db, d->report, keep_medium, d)) ||
	    (rc = condition_hotspot_list(d->db, d->report, keep_hotspot, d)))
		return rc;
	return 0;
}

/* The hosts of a medium, a line each (deleted ones left out). */
static int host_line(const struct media_host *h, void *arg)
{
	struct doc *d = arg;
	struct strbuf sb = {0};

	if (!strcmp(h->status, "deleted"))
		return 0;
	sb_printf(&sb, _("at %1$s (%2$s): %3$s"), h->provider, media_host_label(h->status),
	          h->viewer_url ? h->viewer_url
	          : h->error    ? h->error
	                        : "-");
	print_wrapped(d->out, d->width, 5, sb_cstr(&sb));
	sb_free(&sb);
	return 0;
}

static int lay_out(void *arg)
{
	struct doc *d = arg;
	char when[32], line[160], at[120];
	struct strbuf sb = {0};
	size_t i;
	int rc;

	print_shop(d->out, d->width);
	snprintf(line, sizeof line,
	         strcmp(d->r.stage, "after") ? _("Condition report %lld, before the work")
	                                     : _("Condition report %lld, after the work"),
	         (long long)d->r.id);
	print_wrapped(d->out, d->width, 0, line);
	clock_format_local(d->r.visit_start, "%Y-%m-%d %H:%M", when, sizeof when);
	snprintf(line, sizeof line, "%lld, %s", (long long)d->r.appointment_id, when);
	print_pair(d->out, d->width, _("Visit"), line);
	print_field(d->out, d->width, _("Customer"), d->r.customer_name ? d->r.customer_name : "-");
	print_pair(d->out, d->width, _("State"), condition_label(d->r.status));
	if (d->r.note)
		print_field(d->out, d->width, _("Note"), d->r.note);
	print_rule(d->out, d->width, '-');
	print_wrapped(d->out, d->width, 0, _("Media"));
	if (!d->nm)
		print_wrapped(d->out, d->width, 2, _("none"));
	for (i = 0; i < d->nm; i++) {
		const struct condition_media *m = &d->m[i];

		sb_printf(&sb, "M%lld %s%s%s", (long long)m->id, condition_label(m->kind),
		          m->caption ? ": " : "", m->caption ? m->caption : "");
		print_wrapped(d->out, d->width, 2, sb_cstr(&sb));
		sb_free(&sb);
		sb_printf(&sb, "SHA-256 %s", m->sha256);
		print_wrapped(d->out, d->width, 5, sb_cstr(&sb));
		sb_free(&sb);
		if (!m->local_path)
			print_wrapped(d->out, d->width, 5, _("(the original was removed)"));
		if ((rc = media_host_list(d->db, m->id, host_line, d)))
			return rc;
	}
	print_rule(d->out, d->width, '-');
	print_wrapped(d->out, d->width, 0, _("Hotspots"));
	if (!d->nh)
		print_wrapped(d->out, d->width, 2, _("none"));
	for (i = 0; i < d->nh; i++) {
		const struct condition_hotspot *h = &d->h[i];

		place_of(h, at, sizeof at);
		sb_printf(&sb, _("#%1$d %2$s on M%3$lld at %4$s"), h->number,
		          condition_label(h->kind), (long long)h->media_id, at);
		print_wrapped(d->out, d->width, 2, sb_cstr(&sb));
		sb_free(&sb);
		print_wrapped(d->out, d->width, 5, h->label);
		if (h->line_item_id) {
			sb_printf(&sb, _("the work: line item %lld"), (long long)h->line_item_id);
			print_wrapped(d->out, d->width, 5, sb_cstr(&sb));
			sb_free(&sb);
		}
		if (h->resource_id) {
			sb_printf(&sb, _("resource %lld"), (long long)h->resource_id);
			print_wrapped(d->out, d->width, 5, sb_cstr(&sb));
			sb_free(&sb);
		}
		if (h->earlier_id) {
			sb_printf(&sb, _("seen before: hotspot %lld"), (long long)h->earlier_id);
			print_wrapped(d->out, d->width, 5, sb_cstr(&sb));
			sb_free(&sb);
		}
	}
	print_rule(d->out, d->width, '=');
	return 0;
}

int condition_print_text(struct db *db, int64_t report, int width, struct strbuf *out)
{
	struct doc d = {db, report, width, out, {0}, NULL, 0, NULL, 0, 0};
	int rc;

	if (!print_width_valid(width))
		return err_set(FD_EINVAL, _("the width is %d or %d columns"), PRINT_WIDE,
		               PRINT_NARROW);
	if (!(rc = doc_read(&d)))
		rc = print_layout(width, lay_out, &d);
	doc_free(&d);
	return rc;
}

/* A picture of medium m with its hotspots' marks into *p (its bytes, title
 * and marks owned by the caller: free with pic_free). 1: no picture (a 3D
 * capture, or purged); 0; or FD_ECONFLICT when the copy is missing or
 * changed. */
static int pic_make(struct doc *d, const struct condition_media *m, struct print_picture *p)
{
	struct media_frame f;
	struct print_mark *mk = NULL;
	unsigned char *b = NULL;
	struct strbuf path = {0}, title = {0};
	char *dir;
	size_t len = 0, i, n = 0;
	int rc;

	memset(p, 0, sizeof *p);
	if (!strcmp(m->kind, "model") || !m->local_path)
		return 1;
	dir = condition_media_folder(d->db);
	sb_printf(&path, "%s/%s", dir, m->local_path);
	free(dir);
	rc = fsmode_file_matches(sb_cstr(&path), m->sha256, CONDITION_FILE_MAX);
	if (!rc)
		rc = fsmode_read_file(sb_cstr(&path), CONDITION_FILE_MAX, &b, &len);
	sb_free(&path);
	if (rc) {
		err_clear();
		return err_set(FD_ECONFLICT,
		               _("the copy of medium %lld is missing or changed (frontdesk check): "
		                 "it is not printed"),
		               (long long)m->id);
	}
	if ((rc = media_frame_now(d->db, m->id, &f))) {
		free(b);
		return rc;
	}
	for (i = 0; i < d->nh; i++) {
		const struct condition_hotspot *h = &d->h[i];

		if (h->media_id != m->id)
			continue;
		mk = xrealloc(mk, (n + 1) * sizeof *mk);
		mk[n].number = h->number;
		if (!strcmp(h->system, "equirect")) {
			/* the viewer's yaw 0 looks at column yaw_origin; yaw grows to
			 * the right, a whole turn being the image's width; pitch 0 is
			 * the middle row, 90 the top */
			double u = f.yaw_origin + h->c[0] / 360.0;

			mk[n].x = u - floor(u);
			mk[n].y = 0.5 - h->c[1] / 180.0;
		} else {
			mk[n].x = h->c[0];
			mk[n].y = h->c[1];
		}
		n++;
	}
	sb_printf(&title, "M%lld %s%s%s", (long long)m->id, condition_label(m->kind),
	          m->caption ? ": " : "", m->caption ? m->caption : "");
	p->title = sb_steal(&title);
	p->data = b;
	p->len = len;
	p->jpeg = !strcmp(m->content_type, "image/jpeg");
	if (p->jpeg && print_jpeg_size(b, len, &p->width, &p->height)) {
		free(b);
		free(mk);
		free((char *)p->title);
		memset(p, 0, sizeof *p);
		return err_set(FD_ECONFLICT, _("the JPEG of medium %lld has no readable size"),
		               (long long)m->id);
	}
	p->marks = mk;
	p->nmarks = n;
	return 0;
}

static void pic_free(struct print_picture *p)
{
	free((char *)p->title);
	free((unsigned char *)p->data);
	free((struct print_mark *)p->marks);
}

int condition_print_write(struct db *db, int64_t report, enum print_format fmt, int width,
                          const char *path)
{
	struct doc d = {db, report, PRINT_WIDE, NULL, {0}, NULL, 0, NULL, 0, 0};
	struct strbuf text = {0};
	struct print_picture *pics = NULL;
	size_t n = 0, i;
	int rc;

	if (fmt == PRINT_TEXT) {
		if (!(rc = condition_print_text(db, report, width, &text)))
			rc = print_text_write(sb_cstr(&text), PRINT_TEXT, path);
		sb_free(&text);
		return rc;
	}
	if (!path)
		return err_set(FD_EINVAL, _("a PDF needs a file to go to"));
	d.out = &text;
	if ((rc = doc_read(&d)) || (rc = print_layout(PRINT_WIDE, lay_out, &d)))
		goto out;
	pics = xcalloc(d.nm ? d.nm : 1, sizeof *pics);
	for (i = 0; i < d.nm; i++) {
		rc = pic_make(&d, &d.m[i], &pics[n]);
		if (rc < 0)
			goto out;
		if (rc == 0)
			n++;
		rc = 0;
	}
	rc = print_pictures_write(sb_cstr(&text), pics, n, path);
out:
	for (i = 0; i < n; i++)
		pic_free(&pics[i]);
	free(pics);
	sb_free(&text);
	doc_free(&d);
	return rc;
}

int condition_finalize(struct db *db, int64_t report, char **path_out)
{
	struct condition_report r;
	struct strbuf full = {0};
	unsigned char *b = NULL;
	size_t len = 0;
	char *dir, name[80], hex[17], sha[65];
	int rc;

	if (path_out)
		*path_out = NULL;
	if ((rc = condition_get(db, report, &r)))
		return rc;
	if (strcmp(r.status, "open")) {
		rc = err_set(FD_ECONFLICT, _("condition report %lld is final already"),
		             (long long)report);
		condition_free(&r);
		return rc;
	}
	if ((rc = chan_random_hex(hex))) {
		condition_free(&r);
		return rc;
	}
	/* a name of its own: a finalize that loses the race to another
	 * removes only its own file */
	snprintf(name, sizeof name, "CR-%lld-%s-%s.pdf", (long long)report, r.stage, hex);
	condition_free(&r);
	dir = condition_media_folder(db);
	sb_printf(&full, "%s/%s", dir, name);
	free(dir);
	if (!(rc = fsmode_mkdirs(sb_cstr(&full))) &&
	    !(rc = condition_print_write(db, report, PRINT_PDF, 80, sb_cstr(&full))) &&
	    !(rc = fsmode_read_file(sb_cstr(&full), CONDITION_FILE_MAX, &b, &len)) &&
	    !(rc = crypto_sha256_hex(b, len, sha)))
		rc = condition_record_final(db, report, name, sha, (int64_t)len);
	free(b);
	if (rc)
		unlink(sb_cstr(&full));
	else if (path_out)
		*path_out = sb_steal(&full);
	sb_free(&full);
	return rc;
}
