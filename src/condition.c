/*
 * condition.c - condition reports, their media and hotspots (see
 * condition.h; the tables of migration 0032).
 *
 * Invariants: a report records one customer's property: it is added only
 * to a visit whose jobs are all of one customer. Media and hotspots are
 * added and edited while the report is open (the schema refuses it after).
 * A medium's original is copied whole into the media folder before its row
 * is written, under a name made of its report and SHA-256, and removed
 * again when the row is not written; the row's hash is the file's. A
 * hotspot's coordinates are read and checked here against its medium's
 * kind (the schema's CHECKs hold the same ranges), with '.' as the decimal
 * point whatever the locale. Input is checked before the write
 * transaction, the records it names inside it.
 *
 * Permissions: adding and editing ask visit.work on the report's visit
 * (control_require_own_visit), first in their transaction; reading asks
 * records.view.
 */
#include <config.h>

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "announce.h"
#include "clock.h"
#include "condition.h"
#include "control.h"
#include "crypto-dyn.h"
#include "db.h"
#include "dbrow.h"
#include "err.h"
#include "fsmode.h"
#include "i18n.h"
#include "retention-mod.h"
#include "strbuf.h"
#include "text.h"
#include "words.h"
#include "xalloc.h"

const char *const condition_hotspot_kinds[CONDITION_NKINDS] = {"damage", "note", "meter", "device",
                                                               "action"};

static const char *const stages[] = {"before", "after"};
static const char *const media_kinds[] = {"photo", "panorama", "model"};

const char *condition_label(const char *word)
{
	/* in a context: the words are short and other screens use some of them
	 * in other senses ("note", "open") */
	if (!word)
		return "";
	if (!strcmp(word, "damage"))
		return C_("condition", "damage");
	if (!strcmp(word, "note"))
		return C_("condition", "note");
	if (!strcmp(word, "meter"))
		return C_("condition", "meter");
	if (!strcmp(word, "device"))
		return C_("condition", "device");
	if (!strcmp(word, "action"))
		return C_("condition", "action");
	if (!strcmp(word, "photo"))
		return C_("condition", "photo");
	if (!strcmp(word, "panorama"))
		return C_("condition", "panorama");
	if (!strcmp(word, "model"))
		return C_("condition", "3D capture");
	if (!strcmp(word, "open"))
		return C_("condition", "open");
	if (!strcmp(word, "final"))
		return C_("condition", "final");
	return word;
}

/* ---------------------------------------------------------------- reports */

/* The one customer whose jobs the visit works on: 0 and *customer, or
 * FD_EINVAL when it has none or several. */
static int visit_customer(struct db *db, int64_t appt, int64_t *customer)
{
	sqlite3_stmt *st;
	int rc;
	int64_t n = 0;

	*customer = 0;
	rc = db_prepare(db,
	                "SELECT count(DISTINCT s.customer_id), min(s.customer_id)"
	                " FROM appointment_work w JOIN service_order s ON s.id = w.service_order_id"
	                " WHERE w.appointment_id = ?1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, appt);
	if (sqlite3_step(st) == SQLITE_ROW) {
		n = sqlite3_column_int64(st, 0);
		*customer = sqlite3_column_int64(st, 1);
	} else
		rc = db_fail(db, _("cannot read the visit's jobs"));
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (n == 0)
		return err_set(FD_EINVAL,
		               _("visit %lld works on no job: a condition report records a "
		                 "customer's property; link the visit to the customer's job first"),
		               (long long)appt);
	if (n > 1)
		return err_set(
		    FD_EINVAL,
		    _("visit %lld works on jobs of several customers: a condition report "
		      "records one customer's property"),
		    (long long)appt);
	return 0;
}

static int visit_exists(struct db *db, int64_t appt)
{
	int64_t n = 0;
	sqlite3_stmt *st;
	int rc = db_prepare(db, "SELECT count(*) FROM appointment WHERE id = ?1", &st);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, appt);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, _("cannot read the visits"));
	sqlite3_finalize(st);
	if (!rc && !n)
		rc = err_set(FD_ENOTFOUND, _("there is no visit %lld"), (long long)appt);
	return rc;
}

struct add_ctx {
	int64_t appt;
	const char *stage, *note;
	int64_t id;
};

static int add_tx(struct db *db, void *arg)
{
	struct add_ctx *a = arg;
	char subject[80], other[32];
	int64_t customer;
	sqlite3_stmt *st;
	int rc;

	snprintf(subject, sizeof subject, "add a condition report to visit %lld",
	         (long long)a->appt);
	if ((rc = control_require_own_visit(db, a->appt, subject)) ||
	    (rc = visit_exists(db, a->appt)) || (rc = visit_customer(db, a->appt, &customer)))
		return rc;
	rc = db_prepare(
	    db, "SELECT id FROM condition_report WHERE appointment_id = ?1 AND stage = ?2", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->appt);
	sqlite3_bind_text(st, 2, a->stage, -1, SQLITE_STATIC);
	other[0] = 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(other, sizeof other, "%lld", (long long)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	if (other[0])
		return err_set(
		    FD_ECONFLICT,
		    _("visit %1$lld has a \"%2$s\" condition report already: report %3$s"),
		    (long long)a->appt, a->stage, other);
	rc = db_prepare(db,
	                "INSERT INTO condition_report (appointment_id, stage, note, created_at,"
	                " updated_at) VALUES (?1, ?2, nullif(?3, ''), ?4, ?4)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, a->appt);
	sqlite3_bind_text(st, 2, a->stage, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, a->note ? a->note : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, clock_now());
	if ((rc = db_run(db, st, _("cannot add the condition report"))))
		return rc;
	a->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

int condition_add(struct db *db, int64_t appt, const char *stage, const char *note, int64_t *id_out)
{
	struct add_ctx a = {appt, NULL, note, 0};
	int rc;

	if (appt <= 0)
		return err_set(FD_EINVAL, _("a condition report needs a visit"));
	if (!(a.stage = words_find(stages, 2, stage)))
		return err_set(FD_EINVAL,
		               _("'%.20s' is not a stage: use before (the work) or after (it)"),
		               stage ? stage : "");
	if (note && (rc = text_check(note, _("the note"), CONDITION_NOTE_MAX, 1)))
		return rc;
	if ((rc = db_write(db, add_tx, &a)))
		return rc;
	*id_out = a.id;
	return 0;
}

#define REPORT_COLS                                                                                \
	"r.id, r.appointment_id, r.stage, r.status, r.note, a.start_at,"                           \
	" coalesce(c.id, 0), c.name,"                                                              \
	" (SELECT count(*) FROM media_item m WHERE m.report_id = r.id),"                           \
	" (SELECT count(*) FROM hotspot h WHERE h.report_id = r.id),"                              \
	" r.created_at, r.updated_at, r.document_path, coalesce(r.document_sha256, ''),"           \
	" coalesce(r.document_size, 0)"
/* the visit's customer (one: condition_add's rule) joined in */
#define REPORT_FROM                                                                                \
	" FROM condition_report r JOIN appointment a ON a.id = r.appointment_id"                   \
	" LEFT JOIN customer c ON c.id = (SELECT min(s.customer_id) FROM appointment_work w"       \
	"  JOIN service_order s ON s.id = w.service_order_id"                                      \
	"  WHERE w.appointment_id = r.appointment_id)"

static void report_fill(sqlite3_stmt *st, struct condition_report *r)
{
	memset(r, 0, sizeof *r);
	r->id = sqlite3_column_int64(st, 0);
	r->appointment_id = sqlite3_column_int64(st, 1);
	dbrow_copy(st, 2, r->stage, sizeof r->stage);
	dbrow_copy(st, 3, r->status, sizeof r->status);
	r->note = dbrow_dup(st, 4);
	r->visit_start = sqlite3_column_int64(st, 5);
	r->customer_id = sqlite3_column_int64(st, 6);
	r->customer_name = dbrow_dup(st, 7);
	r->media = sqlite3_column_int64(st, 8);
	r->hotspots = sqlite3_column_int64(st, 9);
	r->created_at = sqlite3_column_int64(st, 10);
	r->updated_at = sqlite3_column_int64(st, 11);
	r->document_path = dbrow_dup(st, 12);
	dbrow_copy(st, 13, r->document_sha256, sizeof r->document_sha256);
	r->document_size = sqlite3_column_int64(st, 14);
}

static void report_row(sqlite3_stmt *st, void *out)
{
	report_fill(st, out);
}

static int report_read(struct db *db, int64_t id, struct condition_report *out)
{
	int rc, found;

	memset(out, 0, sizeof *out);
	rc = dbrow_get(db, "SELECT " REPORT_COLS REPORT_FROM " WHERE r.id = ?1", id, report_row,
	               out, _("cannot read the condition reports"), &found);
	if (!rc && !found)
		return err_set(FD_ENOTFOUND, _("there is no condition report %lld"), (long long)id);
	return rc;
}

int condition_get(struct db *db, int64_t id, struct condition_report *out)
{
	memset(out, 0, sizeof *out);
	if (control_require(db, PERM_RECORDS_VIEW, 0, "read a condition report"))
		return FD_EPERM;
	return report_read(db, id, out);
}

int condition_document(struct db *db, int64_t report, struct condition_report *r, char **path)
{
	int rc = report_read(db, report, r);

	if (path)
		*path = NULL;
	if (!rc && path && r->document_path) {
		char *dir = condition_media_folder(db);
		struct strbuf sb = {0};

		sb_printf(&sb, "%s/%s", dir, r->document_path);
		free(dir);
		*path = sb_steal(&sb);
	}
	return rc;
}

void condition_free(struct condition_report *r)
{
	free(r->note);
	free(r->customer_name);
	free(r->document_path);
	memset(r, 0, sizeof *r);
}

int condition_list(struct db *db, int64_t appt, int64_t customer,
                   int (*cb)(const struct condition_report *r, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int rc, step;

	if (control_require(db, PERM_RECORDS_VIEW, 0, "read the condition reports"))
		return FD_EPERM;
	if (appt && (rc = visit_exists(db, appt)))
		return rc;
	rc =
	    db_prepare(db,
	               "SELECT " REPORT_COLS REPORT_FROM " WHERE (?1 = 0 OR r.appointment_id = ?1)"
	               " AND (?2 = 0 OR r.appointment_id IN (SELECT w.appointment_id"
	               "  FROM appointment_work w JOIN service_order s ON s.id = w.service_order_id"
	               "  WHERE s.customer_id = ?2))"
	               " ORDER BY a.start_at DESC, r.stage = 'after', r.id",
	               &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, appt);
	sqlite3_bind_int64(st, 2, customer);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct condition_report r;

		report_fill(st, &r);
		rc = cb(&r, arg);
		condition_free(&r);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the condition reports"));
	sqlite3_finalize(st);
	return rc;
}

/* The report's visit and status: 0, FD_ENOTFOUND. */
static int report_state(struct db *db, int64_t report, int64_t *appt, char status[8])
{
	sqlite3_stmt *st;
	int rc, found = 0;

	rc = db_prepare(db, "SELECT appointment_id, status FROM condition_report WHERE id = ?1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, report);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		*appt = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, status, 8);
	}
	sqlite3_finalize(st);
	if (!found)
		return err_set(FD_ENOTFOUND, _("there is no condition report %lld"),
		               (long long)report);
	return 0;
}

/* The report checked open, with visit.work asked for subject on its visit
 * (into *appt). */
static int report_writable(struct db *db, int64_t report, const char *subject, int64_t *appt)
{
	char status[8];
	int rc;

	*appt = 0;
	if ((rc = report_state(db, report, appt, status)) ||
	    (rc = control_require_own_visit(db, *appt, subject)))
		return rc;
	if (strcmp(status, "open"))
		return err_set(FD_ECONFLICT,
		               _("condition report %lld is final: it is not changed any more"),
		               (long long)report);
	return 0;
}

struct final_ctx {
	int64_t report;
	const char *rel, *sha256;
	int64_t size;
};

static int final_tx(struct db *db, void *arg)
{
	struct final_ctx *f = arg;
	char subject[64];
	int64_t appt;
	sqlite3_stmt *st;
	int rc;

	snprintf(subject, sizeof subject, "make condition report %lld final", (long long)f->report);
	if ((rc = report_writable(db, f->report, subject, &appt)))
		return rc;
	rc = db_prepare(db,
	                "UPDATE condition_report SET status = 'final', document_path = ?2,"
	                " document_sha256 = ?3, document_size = ?4, updated_at = ?5"
	                " WHERE id = ?1 AND status = 'open'",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, f->report);
	sqlite3_bind_text(st, 2, f->rel, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, f->sha256, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, f->size);
	sqlite3_bind_int64(st, 5, clock_now());
	return db_run(db, st, _("cannot make the condition report final"));
}

int condition_record_final(struct db *db, int64_t report, const char *rel, const char *sha256,
                           int64_t size)
{
	struct final_ctx f = {report, rel, sha256, size};

	if (!rel || !*rel || strchr(rel, '/') || !sha256 || strlen(sha256) != 64 || size <= 0)
		return err_set(FD_EINVAL, "%s", _("a final report needs its printed document"));
	return db_write(db, final_tx, &f);
}

/* ---------------------------------------------------------------- media */

char *condition_media_folder(struct db *db)
{
	char *dir = fsmode_parent(db_path(db));
	struct strbuf sb = {0};

	sb_printf(&sb, "%s/media", dir);
	free(dir);
	return sb_steal(&sb);
}

/* The content type of the n bytes at p by their first bytes: JPEG, PNG,
 * or NULL. */
static const char *image_type(const unsigned char *p, size_t n)
{
	static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

	if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
		return "image/jpeg";
	if (n >= 8 && !memcmp(p, png, 8))
		return "image/png";
	return NULL;
}

struct media_ctx {
	int64_t report;
	const char *kind, *caption, *file_name, *type, *local;
	char sha[65];
	int64_t size;
	int64_t id;
};

static int media_tx(struct db *db, void *arg)
{
	struct media_ctx *m = arg;
	char subject[80], other[32];
	int64_t appt;
	sqlite3_stmt *st;
	int rc;

	snprintf(subject, sizeof subject, "add a medium to condition report %lld",
	         (long long)m->report);
	if ((rc = report_writable(db, m->report, subject, &appt)))
		return rc;
	rc = db_prepare(db, "SELECT id FROM media_item WHERE report_id = ?1 AND sha256 = ?2", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, m->report);
	sqlite3_bind_text(st, 2, m->sha, -1, SQLITE_STATIC);
	other[0] = 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(other, sizeof other, "%lld", (long long)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	if (other[0])
		return err_set(FD_ECONFLICT,
		               _("condition report %1$lld holds this file already: medium %2$s"),
		               (long long)m->report, other);
	rc = db_prepare(db,
	                "INSERT INTO media_item (report_id, kind, caption, file_name, content_type,"
	                " local_path, sha256, size, created_at, updated_at)"
	                " VALUES (?1, ?2, nullif(?3, ''), nullif(?4, ''), ?5, ?6, ?7, ?8, ?9, ?9)",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, m->report);
	sqlite3_bind_text(st, 2, m->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, m->caption ? m->caption : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, m->file_name ? m->file_name : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, m->type, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, m->local, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 7, m->sha, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, m->size);
	sqlite3_bind_int64(st, 9, clock_now());
	if ((rc = db_run(db, st, _("cannot add the medium"))))
		return rc;
	m->id = sqlite3_last_insert_rowid(db_sqlite(db));
	{
		/* who follows a new medium (the media provider's upload) does
		 * its part in this transaction */
		struct announcement a = {ANNOUNCE_MEDIUM_ADDED, m->id, 0};

		return announce(db, &a);
	}
}

/* The last part of path, cut to 255 bytes at a character's start. */
static char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	size_t n;
	char *b;

	s = s ? s + 1 : path;
	n = strlen(s);
	if (n > 255) {
		n = 255;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	b = xmalloc(n + 1);
	memcpy(b, s, n);
	b[n] = 0;
	return b;
}

int condition_media_add(struct db *db, int64_t report, const char *path, const char *kind,
                        const char *caption, int64_t *id_out)
{
	struct media_ctx m = {report, NULL, caption, NULL, NULL, NULL, "", 0, 0};
	unsigned char *b = NULL;
	size_t len = 0;
	char *dir = NULL, *fname = NULL, *name = NULL, *full = NULL;
	int rc;

	if (report <= 0)
		return err_set(FD_EINVAL, _("a medium needs a condition report"));
	if (!(m.kind = words_find(media_kinds, 3, kind ? kind : "photo")))
		return err_set(FD_EINVAL,
		               _("'%.20s' is not a kind of medium: use photo, panorama or model"),
		               kind);
	if (caption && (rc = text_check(caption, _("the caption"), CONDITION_CAPTION_MAX, 1)))
		return rc;
	if (!path || !*path)
		return err_set(FD_EINVAL, _("a medium needs a file"));
	if ((rc = fsmode_read_file(path, CONDITION_FILE_MAX, &b, &len)))
		return rc;
	if (!len) {
		rc = err_set(FD_EINVAL, _("%s is empty"), path);
		goto out;
	}
	m.type = image_type(b, len);
	if (strcmp(m.kind, "model") && !m.type) {
		rc = err_set(FD_EINVAL,
		             _("%1$s is not a JPEG or PNG image: a %2$s is taken as one of those"),
		             path, m.kind);
		goto out;
	}
	if (!strcmp(m.kind, "model"))
		m.type = "application/octet-stream";
	if ((rc = crypto_sha256_hex(b, len, m.sha)))
		goto out;
	m.size = (int64_t)len;
	fname = base_name(path);
	if (text_check(fname, _("the file's name"), 255, 1) == 0)
		m.file_name = fname; /* a name that is no text is not kept */
	err_clear();
	{
		/* a name of this request's own (a random part): a copy it removes
		 * again can be no other request's, even one adding the same file to
		 * the same report at the same moment */
		struct strbuf sb = {0};
		uint32_t r;

		if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
			rc = err_set(FD_EIO, _("cannot name the medium's copy: %s"),
			             strerror(errno));
			goto out;
		}
		sb_printf(&sb, "R%lld-%.16s-%08x.%s", (long long)report, m.sha, (unsigned)r,
		          !strcmp(m.type, "image/jpeg")  ? "jpg"
		          : !strcmp(m.type, "image/png") ? "png"
		                                         : "bin");
		name = sb_steal(&sb);
	}
	dir = condition_media_folder(db);
	{
		struct strbuf sb = {0};

		sb_printf(&sb, "%s/%s", dir, name);
		full = sb_steal(&sb);
	}
	if ((rc = fsmode_write_whole(dir, name, b, len)))
		goto out;
	m.local = name;
	rc = db_write(db, media_tx, &m);
	if (rc) /* the copy goes again when its row was not written */
		unlink(full);
	if (!rc)
		*id_out = m.id;
out:
	free(b);
	free(dir);
	free(fname);
	free(name);
	free(full);
	return rc;
}

#define MEDIA_COLS                                                                                 \
	"m.id, m.report_id, m.kind, m.caption, m.file_name, m.content_type, m.local_path,"         \
	" m.sha256, m.size, (SELECT count(*) FROM hotspot h WHERE h.media_id = m.id), "            \
	"m.created_at"

static void media_fill(sqlite3_stmt *st, struct condition_media *m)
{
	memset(m, 0, sizeof *m);
	m->id = sqlite3_column_int64(st, 0);
	m->report_id = sqlite3_column_int64(st, 1);
	dbrow_copy(st, 2, m->kind, sizeof m->kind);
	m->caption = dbrow_dup(st, 3);
	m->file_name = dbrow_dup(st, 4);
	dbrow_copy(st, 5, m->content_type, sizeof m->content_type);
	m->local_path = dbrow_dup(st, 6);
	dbrow_copy(st, 7, m->sha256, sizeof m->sha256);
	m->size = sqlite3_column_int64(st, 8);
	m->hotspots = sqlite3_column_int64(st, 9);
	m->created_at = sqlite3_column_int64(st, 10);
}

static void media_row(sqlite3_stmt *st, void *out)
{
	media_fill(st, out);
}

int condition_media_get(struct db *db, int64_t id, struct condition_media *out)
{
	int rc, found;

	memset(out, 0, sizeof *out);
	if (control_require(db, PERM_RECORDS_VIEW, 0, "read a condition report's media"))
		return FD_EPERM;
	rc = dbrow_get(db, "SELECT " MEDIA_COLS " FROM media_item m WHERE m.id = ?1", id, media_row,
	               out, _("cannot read the media"), &found);
	if (!rc && !found)
		rc = err_set(FD_ENOTFOUND, _("there is no medium %lld"), (long long)id);
	return rc;
}

void condition_media_free(struct condition_media *m)
{
	free(m->caption);
	free(m->file_name);
	free(m->local_path);
	memset(m, 0, sizeof *m);
}

int condition_media_list(struct db *db, int64_t report,
                         int (*cb)(const struct condition_media *m, void *arg), void *arg)
{
	sqlite3_stmt *st;
	char status[8];
	int64_t appt;
	int rc, step;

	if (control_require(db, PERM_RECORDS_VIEW, 0, "read a condition report's media"))
		return FD_EPERM;
	if ((rc = report_state(db, report, &appt, status)))
		return rc;
	rc = db_prepare(
	    db, "SELECT " MEDIA_COLS " FROM media_item m WHERE m.report_id = ?1 ORDER BY m.id",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, report);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct condition_media m;

		media_fill(st, &m);
		rc = cb(&m, arg);
		condition_media_free(&m);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the media"));
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- hotspots */

/* Read up to 3 numbers separated by commas from s, '.' the decimal point
 * whatever the locale: the count, or -1 when s is not such a list. */
static int read_numbers(const char *s, double v[3])
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	int n = 0;

	if (!c)
		return -1;
	while (s && *s) {
		char *end;

		if (n == 3 || *s == ' ' || *s == '\t') {
			n = -1;
			break;
		}
		errno = 0;
		v[n] = strtod_l(s, &end, c);
		if (end == s || errno || !isfinite(v[n])) {
			n = -1;
			break;
		}
		n++;
		s = end;
		if (*s == ',' && s[1])
			s++;
		else if (*s) {
			n = -1;
			break;
		}
	}
	freelocale(c);
	return n;
}

/* The coordinates at read for a medium of kind into sys and c. */
static int read_at(const char *kind, const char *at, char sys[9], double c[3])
{
	int n = read_numbers(at, c);

	if (!strcmp(kind, "photo")) {
		strcpy(sys, "image");
		if (n != 2 || c[0] < 0 || c[0] > 1 || c[1] < 0 || c[1] > 1)
			return err_set(
			    FD_EINVAL,
			    _("'%.40s' is not a place on a photo: give x,y, each from 0 to 1 "
			      "from its top-left corner (0.5,0.5 is the middle)"),
			    at ? at : "");
		return 0;
	}
	if (!strcmp(kind, "panorama")) {
		strcpy(sys, "equirect");
		if (n == 2 && c[0] == -180)
			c[0] = 180;
		if (n != 2 || c[0] <= -180 || c[0] > 180 || c[1] < -90 || c[1] > 90)
			return err_set(
			    FD_EINVAL,
			    _("'%.40s' is not a direction in a panorama: give yaw,pitch in "
			      "degrees, yaw from -180 to 180, pitch from -90 (down) to 90 (up)"),
			    at ? at : "");
		return 0;
	}
	strcpy(sys, "model");
	if (n != 3 || fabs(c[0]) > 1e6 || fabs(c[1]) > 1e6 || fabs(c[2]) > 1e6)
		return err_set(FD_EINVAL,
		               _("'%.40s' is not a point of a 3D capture: give x,y,z in its frame, "
		                 "each within 1000000"),
		               at ? at : "");
	return 0;
}

struct hs_ctx {
	const struct condition_hotspot_input *in;
	int64_t id; /* edit: the hotspot; add: the new one */
	const char *kind;
	int number;
};

/* The links of in, checked against the report of visit appt and customer. */
static int check_links(struct db *db, const struct condition_hotspot_input *in, int64_t report,
                       int64_t appt)
{
	int64_t n = 0;
	int rc;
	sqlite3_stmt *st;

	if (in->line_item_id > 0) {
		rc = db_prepare(db,
		                "SELECT count(*) FROM line_item l JOIN appointment_work w"
		                " ON w.service_order_id = l.service_order_id"
		                " WHERE l.id = ?1 AND w.appointment_id = ?2",
		                &st);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, in->line_item_id);
		sqlite3_bind_int64(st, 2, appt);
		n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
		sqlite3_finalize(st);
		if (!n)
			return err_set(
			    FD_EINVAL,
			    _("line item %1$lld is not on a job of visit %2$lld: a hotspot "
			      "links to the work of its own visit"),
			    (long long)in->line_item_id, (long long)appt);
	}
	if (in->resource_id > 0) {
		rc = db_prepare(db, "SELECT count(*) FROM resource WHERE id = ?1", &st);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, in->resource_id);
		n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
		sqlite3_finalize(st);
		if (!n)
			return err_set(FD_ENOTFOUND, _("there is no resource %lld"),
			               (long long)in->resource_id);
	}
	if (in->earlier_id > 0) {
		/* a hotspot of another report whose visit started earlier and works
		 * for the same customer */
		rc = db_prepare(
		    db,
		    "SELECT count(*) FROM hotspot h JOIN condition_report r ON r.id = h.report_id"
		    " JOIN appointment a ON a.id = r.appointment_id"
		    " WHERE h.id = ?1 AND h.report_id <> ?2"
		    " AND a.start_at < (SELECT start_at FROM appointment WHERE id = ?3)"
		    " AND EXISTS (SELECT 1 FROM appointment_work w JOIN service_order s"
		    "  ON s.id = w.service_order_id WHERE w.appointment_id = a.id"
		    "  AND s.customer_id IN (SELECT s2.customer_id FROM appointment_work w2"
		    "   JOIN service_order s2 ON s2.id = w2.service_order_id"
		    "   WHERE w2.appointment_id = ?3))",
		    &st);
		if (rc)
			return rc;
		sqlite3_bind_int64(st, 1, in->earlier_id);
		sqlite3_bind_int64(st, 2, report);
		sqlite3_bind_int64(st, 3, appt);
		n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
		sqlite3_finalize(st);
		if (!n)
			return err_set(
			    FD_EINVAL,
			    _("hotspot %lld is not on an earlier condition report of this "
			      "customer: it links to the same mark seen at an earlier visit"),
			    (long long)in->earlier_id);
	}
	return 0;
}

/* The medium's report, visit and kind. */
static int media_of(struct db *db, int64_t media, int64_t *report, char kind[12])
{
	sqlite3_stmt *st;
	int rc, found = 0;

	rc = db_prepare(db, "SELECT report_id, kind FROM media_item WHERE id = ?1", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, media);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		*report = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, kind, 12);
	}
	sqlite3_finalize(st);
	if (!found)
		return err_set(FD_ENOTFOUND, _("there is no medium %lld"), (long long)media);
	return 0;
}

static void bind_coords(sqlite3_stmt *st, int first, const char *sys, const double c[3])
{
	int i;

	for (i = 0; i < 5; i++)
		sqlite3_bind_null(st, first + i);
	if (!strcmp(sys, "image")) {
		sqlite3_bind_double(st, first, c[0]);
		sqlite3_bind_double(st, first + 1, c[1]);
	} else if (!strcmp(sys, "equirect")) {
		sqlite3_bind_double(st, first + 3, c[0]);
		sqlite3_bind_double(st, first + 4, c[1]);
	} else
		for (i = 0; i < 3; i++)
			sqlite3_bind_double(st, first + i, c[i]);
}

static int hs_add_tx(struct db *db, void *arg)
{
	struct hs_ctx *h = arg;
	const struct condition_hotspot_input *in = h->in;
	char mkind[12], sys[9], subject[80];
	double c[3] = {0, 0, 0};
	int64_t report = 0, appt = 0;
	sqlite3_stmt *st;
	int rc;

	if ((rc = media_of(db, in->media_id, &report, mkind)))
		return rc;
	snprintf(subject, sizeof subject, "add a hotspot to condition report %lld",
	         (long long)report);
	if ((rc = report_writable(db, report, subject, &appt)) ||
	    (rc = read_at(mkind, in->at, sys, c)) || (rc = check_links(db, in, report, appt)))
		return rc;
	/* the report's next number, in this transaction */
	rc = db_prepare(db, "SELECT coalesce(max(number), 0) + 1 FROM hotspot WHERE report_id = ?1",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, report);
	if (sqlite3_step(st) == SQLITE_ROW)
		h->number = sqlite3_column_int(st, 0);
	else
		rc = db_fail(db, _("cannot read the hotspots"));
	sqlite3_finalize(st);
	if (rc)
		return rc;
	rc = db_prepare(
	    db,
	    "INSERT INTO hotspot (report_id, media_id, number, kind, label, system, x, y,"
	    " z, yaw, pitch, line_item_id, resource_id, earlier_id, created_at,"
	    " updated_at) VALUES (?1, ?2, ?15, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
	    " nullif(?11, 0), nullif(?12, 0), nullif(?13, 0), ?14, ?14)",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int(st, 15, h->number);
	sqlite3_bind_int64(st, 1, report);
	sqlite3_bind_int64(st, 2, in->media_id);
	sqlite3_bind_text(st, 3, h->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, in->label, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, sys, -1, SQLITE_TRANSIENT);
	bind_coords(st, 6, sys, c);
	sqlite3_bind_int64(st, 11, in->line_item_id > 0 ? in->line_item_id : 0);
	sqlite3_bind_int64(st, 12, in->resource_id > 0 ? in->resource_id : 0);
	sqlite3_bind_int64(st, 13, in->earlier_id > 0 ? in->earlier_id : 0);
	sqlite3_bind_int64(st, 14, clock_now());
	if ((rc = db_run(db, st, _("cannot add the hotspot"))))
		return rc;
	h->id = sqlite3_last_insert_rowid(db_sqlite(db));
	return 0;
}

/* The checks of in that need no database. */
static int hs_check(const struct condition_hotspot_input *in, int adding, const char **kind)
{
	int rc;

	*kind = NULL;
	if (adding && in->media_id <= 0)
		return err_set(FD_EINVAL, _("a hotspot needs a medium"));
	if ((adding || in->kind) &&
	    !(*kind = words_find(condition_hotspot_kinds, CONDITION_NKINDS, in->kind)))
		return err_set(
		    FD_EINVAL,
		    _("'%.20s' is not a kind of hotspot: use damage, note, meter, device or "
		      "action"),
		    in->kind ? in->kind : "");
	if ((adding || in->label) &&
	    (rc = text_check(in->label, _("the text"), CONDITION_LABEL_MAX, 0)))
		return rc;
	if (adding && !in->at)
		return err_set(FD_EINVAL, _("a hotspot needs its place on the medium (--at)"));
	return 0;
}

int condition_hotspot_add(struct db *db, const struct condition_hotspot_input *in, int64_t *id_out,
                          int *number_out)
{
	struct hs_ctx h = {in, 0, NULL, 0};
	int rc;

	if ((rc = hs_check(in, 1, &h.kind)) || (rc = db_write(db, hs_add_tx, &h)))
		return rc;
	*id_out = h.id;
	if (number_out)
		*number_out = h.number;
	return 0;
}

static int hs_edit_tx(struct db *db, void *arg)
{
	struct hs_ctx *h = arg;
	const struct condition_hotspot_input *in = h->in;
	char mkind[12], sys[9], subject[80];
	double c[3] = {0, 0, 0};
	int64_t report = 0, media = 0, appt = 0;
	sqlite3_stmt *st;
	int rc, found = 0;

	rc = db_prepare(db, "SELECT media_id FROM hotspot WHERE id = ?1", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, h->id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		found = 1;
		media = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (!found)
		return err_set(FD_ENOTFOUND, _("there is no hotspot %lld"), (long long)h->id);
	if (in->media_id > 0 && in->media_id != media)
		return err_set(FD_EINVAL,
		               _("a hotspot stays on its medium: add a new one on medium %lld"),
		               (long long)in->media_id);
	if ((rc = media_of(db, media, &report, mkind)))
		return rc;
	snprintf(subject, sizeof subject, "edit hotspot %lld", (long long)h->id);
	if ((rc = report_writable(db, report, subject, &appt)) ||
	    (in->at && (rc = read_at(mkind, in->at, sys, c))) ||
	    (rc = check_links(db, in, report, appt)))
		return rc;
	if (in->earlier_id == h->id)
		return err_set(FD_EINVAL, _("a hotspot cannot be its own earlier mark"));
	rc = db_prepare(
	    db,
	    "UPDATE hotspot SET kind = coalesce(?2, kind), label = coalesce(?3, label),"
	    " x = CASE WHEN ?4 THEN ?5 ELSE x END, y = CASE WHEN ?4 THEN ?6 ELSE y END,"
	    " z = CASE WHEN ?4 THEN ?7 ELSE z END,"
	    " yaw = CASE WHEN ?4 THEN ?8 ELSE yaw END,"
	    " pitch = CASE WHEN ?4 THEN ?9 ELSE pitch END,"
	    " line_item_id = CASE WHEN ?10 < 0 THEN line_item_id ELSE nullif(?10, 0) END,"
	    " resource_id = CASE WHEN ?11 < 0 THEN resource_id ELSE nullif(?11, 0) END,"
	    " earlier_id = CASE WHEN ?12 < 0 THEN earlier_id ELSE nullif(?12, 0) END,"
	    " updated_at = ?13 WHERE id = ?1",
	    &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, h->id);
	if (h->kind)
		sqlite3_bind_text(st, 2, h->kind, -1, SQLITE_STATIC);
	if (in->label)
		sqlite3_bind_text(st, 3, in->label, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 4, in->at != NULL);
	if (in->at)
		bind_coords(st, 5, sys, c);
	sqlite3_bind_int64(st, 10, in->line_item_id);
	sqlite3_bind_int64(st, 11, in->resource_id);
	sqlite3_bind_int64(st, 12, in->earlier_id);
	sqlite3_bind_int64(st, 13, clock_now());
	return db_run(db, st, _("cannot change the hotspot"));
}

int condition_hotspot_edit(struct db *db, int64_t id, const struct condition_hotspot_input *in)
{
	struct hs_ctx h = {in, id, NULL, 0};
	int rc;

	if ((rc = hs_check(in, 0, &h.kind)))
		return rc;
	if (!in->kind && !in->label && !in->at && in->line_item_id < 0 && in->resource_id < 0 &&
	    in->earlier_id < 0)
		return err_set(FD_EINVAL, _("nothing to change: give what to change"));
	return db_write(db, hs_edit_tx, &h);
}

#define HS_COLS                                                                                    \
	"h.id, h.report_id, h.media_id, h.number, h.kind, h.label, h.system, h.x, h.y, h.z, "      \
	"h.yaw,"                                                                                   \
	" h.pitch, coalesce(h.line_item_id, 0), coalesce(h.resource_id, 0),"                       \
	" coalesce(h.earlier_id, 0), h.created_at, h.updated_at"

static void hs_fill(sqlite3_stmt *st, struct condition_hotspot *h)
{
	memset(h, 0, sizeof *h);
	h->id = sqlite3_column_int64(st, 0);
	h->report_id = sqlite3_column_int64(st, 1);
	h->media_id = sqlite3_column_int64(st, 2);
	h->number = sqlite3_column_int(st, 3);
	dbrow_copy(st, 4, h->kind, sizeof h->kind);
	h->label = dbrow_dup(st, 5);
	dbrow_copy(st, 6, h->system, sizeof h->system);
	if (!strcmp(h->system, "equirect")) {
		h->c[0] = sqlite3_column_double(st, 10);
		h->c[1] = sqlite3_column_double(st, 11);
	} else {
		h->c[0] = sqlite3_column_double(st, 7);
		h->c[1] = sqlite3_column_double(st, 8);
		h->c[2] = sqlite3_column_double(st, 9);
	}
	h->line_item_id = sqlite3_column_int64(st, 12);
	h->resource_id = sqlite3_column_int64(st, 13);
	h->earlier_id = sqlite3_column_int64(st, 14);
	h->created_at = sqlite3_column_int64(st, 15);
	h->updated_at = sqlite3_column_int64(st, 16);
}

static void hs_row(sqlite3_stmt *st, void *out)
{
	hs_fill(st, out);
}

int condition_hotspot_get(struct db *db, int64_t id, struct condition_hotspot *out)
{
	int rc, found;

	memset(out, 0, sizeof *out);
	if (control_require(db, PERM_RECORDS_VIEW, 0, "read a condition report's hotspots"))
		return FD_EPERM;
	rc = dbrow_get(db, "SELECT " HS_COLS " FROM hotspot h WHERE h.id = ?1", id, hs_row, out,
	               _("cannot read the hotspots"), &found);
	if (!rc && !found)
		rc = err_set(FD_ENOTFOUND, _("there is no hotspot %lld"), (long long)id);
	return rc;
}

void condition_hotspot_free(struct condition_hotspot *h)
{
	free(h->label);
	memset(h, 0, sizeof *h);
}

int condition_hotspot_list(struct db *db, int64_t report,
                           int (*cb)(const struct condition_hotspot *h, void *arg), void *arg)
{
	sqlite3_stmt *st;
	char status[8];
	int64_t appt;
	int rc, step;

	if (control_require(db, PERM_RECORDS_VIEW, 0, "read a condition report's hotspots"))
		return FD_EPERM;
	if ((rc = report_state(db, report, &appt, status)))
		return rc;
	rc = db_prepare(
	    db, "SELECT " HS_COLS " FROM hotspot h WHERE h.report_id = ?1 ORDER BY h.number", &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, report);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct condition_hotspot h;

		hs_fill(st, &h);
		rc = cb(&h, arg);
		condition_hotspot_free(&h);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the hotspots"));
	sqlite3_finalize(st);
	return rc;
}

/* ---------------------------------------------------------------- check */

/* The final reports' documents in dir against their hashes (a purged
 * one has no path), counted into *n. */
static int check_documents(struct db *db, const char *dir,
                           void (*report)(const char *code, const char *detail, void *arg),
                           void *arg, int *n)
{
	sqlite3_stmt *st;
	int rc, step;

	if ((rc = db_prepare(db,
	                     "SELECT id, document_path, document_sha256 FROM condition_report"
	                     " WHERE document_path IS NOT NULL ORDER BY id",
	                     &st)))
		return rc;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct strbuf path = {0}, detail = {0};
		long long id = sqlite3_column_int64(st, 0);
		int r;

		sb_printf(&path, "%s/%s", dir, (const char *)sqlite3_column_text(st, 1));
		r = fsmode_file_matches(sb_cstr(&path), (const char *)sqlite3_column_text(st, 2),
		                        CONDITION_FILE_MAX);
		if (r == FD_ENOTFOUND) {
			sb_printf(&detail,
			          _("the document of condition report %1$lld is missing: %2$s"), id,
			          sb_cstr(&path));
			report("condition-document-missing", sb_cstr(&detail), arg);
			(*n)++;
		} else if (r) {
			sb_printf(&detail,
			          _("the document of condition report %1$lld does not match its "
			            "SHA-256: %2$s"),
			          id, sb_cstr(&path));
			report("condition-document-changed", sb_cstr(&detail), arg);
			(*n)++;
		}
		sb_free(&path);
		sb_free(&detail);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the condition reports"));
	sqlite3_finalize(st);
	return rc;
}

int condition_check_media(struct db *db,
                          void (*report)(const char *code, const char *detail, void *arg),
                          void *arg)
{
	sqlite3_stmt *st;
	char *dir;
	int rc, step, n = 0;

	rc = db_prepare(db,
	                "SELECT id, report_id, local_path, sha256 FROM media_item"
	                " WHERE local_path IS NOT NULL ORDER BY id",
	                &st);
	if (rc)
		return rc;
	dir = condition_media_folder(db);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *rel = (const char *)sqlite3_column_text(st, 2);
		const char *want = (const char *)sqlite3_column_text(st, 3);
		struct strbuf path = {0}, detail = {0};
		int r;

		sb_printf(&path, "%s/%s", dir, rel);
		r = fsmode_file_matches(sb_cstr(&path), want, CONDITION_FILE_MAX);
		if (r == FD_ENOTFOUND) {
			sb_printf(&detail,
			          _("medium %1$lld of condition report %2$lld is missing: %3$s"),
			          (long long)sqlite3_column_int64(st, 0),
			          (long long)sqlite3_column_int64(st, 1), sb_cstr(&path));
			report("condition-media-missing", sb_cstr(&detail), arg);
			n++;
		} else if (r) {
			sb_printf(&detail,
			          _("medium %1$lld of condition report %2$lld does not match its "
			            "SHA-256: "
			            "%3$s"),
			          (long long)sqlite3_column_int64(st, 0),
			          (long long)sqlite3_column_int64(st, 1), sb_cstr(&path));
			report("condition-media-changed", sb_cstr(&detail), arg);
			n++;
		}
		sb_free(&path);
		sb_free(&detail);
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the media"));
	sqlite3_finalize(st);
	if (!rc)
		rc = check_documents(db, dir, report, arg, &n);
	free(dir);
	return rc ? rc : n;
}

/* ---------------------------------------------------------------- reframing */

struct placed {
	int64_t id;
	char sys[9];
	double c[3];
};

int condition_hotspots_reframe(struct db *db, int64_t media_id, int (*fn)(double c[3], void *arg),
                               void *arg, int64_t *n)
{
	struct placed *v = NULL;
	sqlite3_stmt *st;
	size_t k = 0, i;
	int rc, step;

	if (n)
		*n = 0;
	if ((rc = db_prepare(
	         db,
	         "SELECT id, system, coalesce(x, yaw), coalesce(y, pitch), z FROM hotspot"
	         " WHERE media_id = ?1 ORDER BY id",
	         &st)))
		return rc;
	sqlite3_bind_int64(st, 1, media_id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		v = xrealloc(v, (k + 1) * sizeof *v);
		v[k].id = sqlite3_column_int64(st, 0);
		dbrow_copy(st, 1, v[k].sys, sizeof v[k].sys);
		v[k].c[0] = sqlite3_column_double(st, 2);
		v[k].c[1] = sqlite3_column_double(st, 3);
		v[k].c[2] = sqlite3_column_double(st, 4);
		k++;
	}
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the hotspots"));
	sqlite3_finalize(st);
	/* every place first: one that cannot be moved moves none */
	for (i = 0; !rc && i < k; i++)
		rc = fn(v[i].c, arg);
	for (i = 0; !rc && i < k; i++) {
		if ((rc = db_prepare(
		         db,
		         "UPDATE hotspot SET x = ?2, y = ?3, z = ?4, yaw = ?5, pitch = ?6,"
		         " updated_at = ?7 WHERE id = ?1",
		         &st)))
			break;
		sqlite3_bind_int64(st, 1, v[i].id);
		bind_coords(st, 2, v[i].sys, v[i].c);
		sqlite3_bind_int64(st, 7, clock_now());
		rc = db_run(db, st, _("cannot move the hotspots"));
	}
	if (!rc && n)
		*n = (int64_t)k;
	free(v);
	return rc;
}

/* ---------------------------------------------------------------- retention */

/* The reports of the visits that work on any of the customer's jobs. */
#define CUSTOMER_REPORTS                                                                           \
	"SELECT r.id FROM condition_report r JOIN appointment_work w"                              \
	" ON w.appointment_id = r.appointment_id JOIN service_order s"                             \
	" ON s.id = w.service_order_id WHERE s.customer_id = ?1"

int condition_retention_purge(struct db *db, struct retention_purge_ctx *c)
{
	static const struct retention_stmt v[] = {
	    {"UPDATE condition_report SET note = NULL WHERE note IS NOT NULL"
	     " AND id IN (" CUSTOMER_REPORTS ")",
	     N_("cannot clear the condition reports")},
	    {"UPDATE condition_report_his SET note = NULL WHERE note IS NOT NULL"
	     " AND id IN (" CUSTOMER_REPORTS ")",
	     N_("cannot clear the condition reports' history")},
	    {"UPDATE media_item SET caption = NULL, file_name = NULL, local_path = NULL"
	     " WHERE report_id IN (" CUSTOMER_REPORTS ")"
	     " AND (caption IS NOT NULL OR file_name IS NOT NULL OR local_path IS NOT NULL)",
	     N_("cannot clear the condition reports' media")},
	    {"UPDATE media_item_his SET caption = NULL, file_name = NULL, local_path = NULL"
	     " WHERE report_id IN (" CUSTOMER_REPORTS ")"
	     " AND (caption IS NOT NULL OR file_name IS NOT NULL OR local_path IS NOT NULL)",
	     N_("cannot clear the condition reports' media history")},
	    {"UPDATE hotspot SET label = '" RETENTION_REMOVED "'"
	     " WHERE report_id IN (" CUSTOMER_REPORTS ") AND label IS NOT '" RETENTION_REMOVED "'",
	     N_("cannot clear the hotspots")},
	    {"UPDATE hotspot_his SET label = '" RETENTION_REMOVED "'"
	     " WHERE report_id IN (" CUSTOMER_REPORTS ") AND label IS NOT '" RETENTION_REMOVED "'",
	     N_("cannot clear the hotspots' history")},
	    {"UPDATE condition_report SET document_path = NULL WHERE document_path IS NOT NULL"
	     " AND id IN (" CUSTOMER_REPORTS ")",
	     N_("cannot clear the condition reports' documents")},
	    {"UPDATE condition_report_his SET document_path = NULL WHERE document_path IS NOT NULL"
	     " AND id IN (" CUSTOMER_REPORTS ")",
	     N_("cannot clear the condition reports' documents' history")},
	    {"UPDATE status_flow SET reason = NULL WHERE entity = 'condition_report'"
	     " AND reason IS NOT NULL AND entity_id IN (" CUSTOMER_REPORTS ")",
	     N_("cannot clear the condition reports' status reasons")},
	};
	sqlite3_stmt *st;
	char *dir;
	int rc, step;

	/* the copies go once the purge has committed */
	rc = db_prepare(db,
	                "SELECT local_path FROM media_item WHERE local_path IS NOT NULL"
	                " AND report_id IN (" CUSTOMER_REPORTS ")"
	                " UNION ALL SELECT document_path FROM condition_report"
	                " WHERE document_path IS NOT NULL AND id IN (" CUSTOMER_REPORTS ")",
	                &st);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, c->customer_id);
	dir = condition_media_folder(db);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct strbuf sb = {0};

		sb_printf(&sb, "%s/%s", dir, (const char *)sqlite3_column_text(st, 0));
		c->file(c, sb_cstr(&sb));
		sb_free(&sb);
	}
	free(dir);
	if (step != SQLITE_DONE)
		rc = db_fail(db, _("cannot read the condition reports' media"));
	sqlite3_finalize(st);
	if (rc)
		return rc;
	return retention_exec_all(db, v, sizeof v / sizeof v[0], c->customer_id);
}
