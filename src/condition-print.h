/*
 * condition-print.h - a condition report to hand over: its text (80 or 42
 * columns: the visit, the customer, the note, each medium with its hash and
 * where it is hosted, each hotspot by number with its place, its text and
 * its links) and the same as an A4 PDF followed by a page per photo and
 * panorama with the hotspots drawn on it as numbered marks (print.h).
 *
 * A panorama's mark is drawn where its yaw and pitch fall on the
 * equirectangular image, in the frame its places are kept in
 * (media_frame_now: the viewer's yaw 0 looks at the column yaw_origin). A
 * 3D capture has no page: its hotspots are in the text. A medium whose
 * copy is missing or changed is not printed: the PDF is refused, naming it
 * (`frontdesk check` says the same); a purged one is left out.
 *
 * Callers: cli-condition.c (`frontdesk condition print`).
 */
#ifndef FD_CONDITION_PRINT_H
#define FD_CONDITION_PRINT_H

#include <stdint.h>

#include "print.h"

struct db;
struct strbuf;

/* condition_print_text - report laid out at width (80 or 42) appended to
 * out. FD_ENOTFOUND, FD_EINVAL for another width. */
int condition_print_text(struct db *db, int64_t report, int width, struct strbuf *out);

/* condition_print_write - report as fmt to path (a PDF needs one; text
 * without one goes to stdout), the file whole or not at all, mode 0600.
 * Errors as above, and FD_ECONFLICT naming a medium whose copy is missing
 * or changed (a PDF). */
int condition_print_write(struct db *db, int64_t report, enum print_format fmt, int width,
                          const char *path);

/* condition_finalize - open report made final: printed as a PDF (as
 * condition_print_write) into the media folder under a name of its own,
 * recorded with that file's SHA-256 and size in one transaction
 * (condition_record_final); the file is removed when it cannot be
 * recorded. *path_out (NULL to skip; caller frees) gets the file's path.
 * FD_ENOTFOUND, FD_ECONFLICT when it is final already, and
 * condition_print_write's errors. */
int condition_finalize(struct db *db, int64_t report, char **path_out);

#endif
