/*
 * zreport.h - the Z report: the day's close on paper. One shop day's
 * figures (dayclose.h: day_figures_get) laid out as print.c lays out an
 * invoice, as plain text of 80 or 42 columns or as an A4 PDF.
 *
 * The report holds the shop's name and address, the day and whether it is
 * closed (by whom, when, how many closes and reopens), the takings by
 * method and currency (count, received, refunded, net) with their totals
 * per currency, the voids, the credit notes, each drawer session (desk,
 * opened by and at, float, cash taken, refunded, voided, paid out,
 * expected; once counted: counted, over or short with its reason, counted
 * by and at), the checks to deposit with their total per currency, the
 * cash payments that are in no drawer (when there are any) and the state
 * of the day's card reconciliation. The layout invariants are print.h's:
 * no line wider than asked in display columns, a figure never cut, stored
 * text sanitised, money as money_text writes it.
 *
 * Callers: the command line (day show, day close; cli-day.c).
 */
#ifndef FD_ZREPORT_H
#define FD_ZREPORT_H

#include "print.h"

struct db;
struct strbuf;

/* zreport_text - lay out the Z report of shop day ("YYYY-MM-DD") at width
 * columns (80 or 42) and append it to out, every line ending in '\n'.
 * FD_EINVAL for another width or a day that cannot be read, FD_EDB when
 * the database cannot be read; out is then left as it was. Reads only. */
int zreport_text(struct db *db, const char *day, int width, struct strbuf *out);

/* zreport_write - the Z report of day as fmt (text at width columns; a PDF
 * always lays out 80) to path, or to stdout when path is NULL (text only:
 * FD_EINVAL for a PDF without a path). The file is made whole or not at
 * all, mode 0600. Errors as zreport_text, and FD_EIO (a file that cannot
 * be written, pangocairo that cannot be loaded) with a reason. */
int zreport_write(struct db *db, const char *day, enum print_format fmt, int width,
                  const char *path);

#endif
