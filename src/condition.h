/*
 * condition.h - condition reports (tables condition_report, media_item,
 * hotspot; migration 0032): the state of the car, the room or the machine
 * recorded at a visit before the work and, optionally, after it.
 *
 * A report belongs to a visit (one per stage: before, after) and through
 * it to the visit's jobs and customer. It holds media (a photo, a panorama,
 * a 3D capture), each an original file of which we keep a copy beside the
 * database (media/) with its SHA-256, and hotspots: our marks on a medium,
 * numbered in the report, with a kind, a short text, coordinates in the
 * medium's own system and optional links (a line item of the visit's jobs,
 * a resource, a hotspot of an earlier report of the same customer).
 * Hosting the media with a provider (media_host) is the media module's.
 *
 * Conventions as in job.h: every function returns 0 or a negative FD_E*
 * code with a translated reason in err_msg() (FD_EINVAL for unacceptable
 * input, FD_ENOTFOUND, FD_ECONFLICT when the report's state does not allow
 * the request); every write checks its input first and runs in one write
 * transaction, so a refused request changes nothing; history rows are
 * written by the schema's triggers. Nothing is ever deleted: a purge
 * (retention) blanks the personal text and removes the copies.
 *
 * Permissions: adding and editing ask visit.work on the report's visit (a
 * technician works on their own visits); reading asks records.view.
 *
 * Callers: the command line (cli-condition.c), the screen.
 */
#ifndef FD_CONDITION_H
#define FD_CONDITION_H

#include <stdint.h>

struct db;

#define CONDITION_NOTE_MAX    2000
#define CONDITION_CAPTION_MAX 400
#define CONDITION_LABEL_MAX   400
/* the largest original taken (the media provider's contract's limit) */
#define CONDITION_FILE_MAX (64u << 20)

struct condition_report {
	int64_t id;
	int64_t appointment_id;
	int64_t customer_id;     /* the visit's customer (through its jobs), 0 if none */
	char *customer_name;     /* NULL when the visit has no job */
	int64_t visit_start;     /* UTC seconds */
	char stage[8];           /* before, after */
	char status[8];          /* open, final */
	char *note;              /* NULL when none */
	int64_t media, hotspots; /* how many */
	int64_t created_at, updated_at;
	/* final: the printed document (a file of the media folder; NULL once a
	 * purge removed it), its SHA-256 and size; "" and 0 while open */
	char *document_path;
	char document_sha256[65];
	int64_t document_size;
};

/* condition_add - a new report of visit appt at stage ("before" or
 * "after", any case) with note (NULL or empty: none; at most
 * CONDITION_NOTE_MAX bytes). FD_ENOTFOUND for a visit that does not exist,
 * FD_ECONFLICT when the visit has a report of that stage already (its id
 * is named). *id_out gets the new report's id. */
int condition_add(struct db *db, int64_t appt, const char *stage, const char *note,
                  int64_t *id_out);

/* condition_get - report id into out (free with condition_free). */
int condition_get(struct db *db, int64_t id, struct condition_report *out);
void condition_free(struct condition_report *r);

/* condition_list - cb for each report of visit appt (appt 0: of customer
 * customer; both 0: every report), newest visit first, a visit's report
 * before the work ahead of the one after it; a non-zero return
 * of cb stops the walk and is returned. */
int condition_list(struct db *db, int64_t appt, int64_t customer,
                   int (*cb)(const struct condition_report *r, void *arg), void *arg);

struct condition_media {
	int64_t id;
	int64_t report_id;
	char kind[12];         /* photo, panorama, model */
	char *caption;         /* NULL when none */
	char *file_name;       /* the original's own name, NULL when none */
	char content_type[32]; /* image/jpeg, image/png, application/octet-stream */
	char *local_path;      /* relative to condition_media_folder, NULL once purged */
	char sha256[65];
	int64_t size;
	int64_t hotspots; /* how many lie on it */
	int64_t created_at;
};

/* condition_media_folder - a new string: <database folder>/media. */
char *condition_media_folder(struct db *db);

/* condition_media_add - add the file at path to report as a medium of
 * kind ("photo", "panorama" or "model"; NULL: photo) with caption (NULL or
 * empty: none). A photo or a panorama is a JPEG or PNG file (read from its
 * first bytes, whatever its name), a model any file; none may be empty or
 * larger than CONDITION_FILE_MAX. The file is copied whole into the media
 * folder (named after the report, its SHA-256 and a random part) before the
 * row is written; a refused request leaves no copy. FD_ECONFLICT when the report is
 * final or holds the same file already (its medium is named). */
int condition_media_add(struct db *db, int64_t report, const char *path, const char *kind,
                        const char *caption, int64_t *id_out);

/* condition_media_get - medium id into out (free with condition_media_free). */
int condition_media_get(struct db *db, int64_t id, struct condition_media *out);
void condition_media_free(struct condition_media *m);

/* condition_media_list - cb for each medium of report, in the order added. */
int condition_media_list(struct db *db, int64_t report,
                         int (*cb)(const struct condition_media *m, void *arg), void *arg);

/* A hotspot's kinds, in the order forms offer them. */
#define CONDITION_NKINDS 5
extern const char *const condition_hotspot_kinds[CONDITION_NKINDS];

/* condition_label - the translated label of a hotspot's kind ("damage"),
 * a medium's ("photo") or a report's state ("open", "final"); any other
 * word as it is. */
const char *condition_label(const char *word);

struct condition_hotspot {
	int64_t id;
	int64_t report_id;
	int64_t media_id;
	int number;     /* 1.. in its report */
	char kind[8];   /* damage, note, meter, device, action */
	char *label;    /* the short text */
	char system[9]; /* image, equirect, model */
	double c[3];    /* image: x, y; equirect: yaw, pitch; model: x, y, z */
	int64_t line_item_id, resource_id, earlier_id; /* 0: no link */
	int64_t created_at, updated_at;
};

/* What a hotspot is given. For condition_hotspot_add media_id, kind, label
 * and at are required; for condition_hotspot_edit NULL (or, for the links,
 * -1) keeps a field, and a link of 0 removes it.
 *  - at: the coordinates in the medium's system, numbers with a '.' for the
 *    decimal point whatever the locale, separated by commas: "x,y" on a
 *    photo (0..1 from its top-left corner), "yaw,pitch" on a panorama
 *    (degrees: yaw -180..180, -180 read as 180; pitch -90..90), "x,y,z" on
 *    a model (the capture's frame, each within +-1e6);
 *  - line_item_id: a line item of a job of the report's visit;
 *  - resource_id: a resource;
 *  - earlier_id: a hotspot of another report of the same customer, of a
 *    visit that started earlier. */
struct condition_hotspot_input {
	int64_t media_id;
	const char *kind;
	const char *label;
	const char *at;
	int64_t line_item_id, resource_id, earlier_id;
};

/* condition_hotspot_add - a new hotspot (the report's next number); *id_out
 * and *number_out (may be NULL) get its id and number. FD_ECONFLICT when
 * the report is final. */
int condition_hotspot_add(struct db *db, const struct condition_hotspot_input *in, int64_t *id_out,
                          int *number_out);

/* condition_hotspot_edit - change the given fields of hotspot id (its
 * medium cannot change: add another). FD_ECONFLICT when the report is final. */
int condition_hotspot_edit(struct db *db, int64_t id, const struct condition_hotspot_input *in);

/* condition_hotspot_get - hotspot id into out (free with
 * condition_hotspot_free). */
int condition_hotspot_get(struct db *db, int64_t id, struct condition_hotspot *out);
void condition_hotspot_free(struct condition_hotspot *h);

/* condition_hotspot_list - cb for each hotspot of report, by number. */
int condition_hotspot_list(struct db *db, int64_t report,
                           int (*cb)(const struct condition_hotspot *h, void *arg), void *arg);

/* condition_hotspots_reframe - INSIDE a write transaction: the
 * coordinates of every hotspot of medium media_id as fn gives them (c: x,y
 * on a photo, yaw,pitch on a panorama, x,y,z in a 3D capture; changed in
 * place), for a move of the medium to a provider whose viewer frame
 * differs. Every hotspot is asked first: fn's first non-zero return (an
 * FD_E* code with err_set) is returned and nothing is written; then each
 * hotspot's coordinates are updated (its id, number, kind, text, links and
 * earlier history stay; the update is kept in hotspot_his), also on a final
 * report. *n (may be NULL) gets how many were moved. Asks nothing: the
 * provider's answer carries it out. */
int condition_hotspots_reframe(struct db *db, int64_t media_id, int (*fn)(double c[3], void *arg),
                               void *arg, int64_t *n);

/* condition_document - report r as condition_get reads it, for the e-sign
 * worker, which acts for the shop (no permission asked), and *path (NULL
 * to skip; caller frees) its final document's full path, NULL while the
 * report is open or once a purge removed it. FD_ENOTFOUND. */
int condition_document(struct db *db, int64_t report, struct condition_report *r, char **path);

/* condition_record_final - report made final with its printed document:
 * rel, a file of the media folder written whole already, its SHA-256 and
 * size; one transaction, visit.work asked on the report's visit.
 * FD_ENOTFOUND, FD_ECONFLICT when it is final already (nothing changes:
 * the caller removes its file). */
int condition_record_final(struct db *db, int64_t report, const char *rel, const char *sha256,
                           int64_t size);

/* condition_check_media - every medium's kept copy and every final
 * report's document against its hash: report("condition-media-missing" |
 * "condition-media-changed" | "condition-document-missing" |
 * "condition-document-changed", detail, arg) for each one missing or
 * changed. The number reported, or a
 * negative FD_E* code. For `frontdesk check` (checkdb.c). */
int condition_check_media(struct db *db,
                          void (*report)(const char *code, const char *detail, void *arg),
                          void *arg);

#endif
