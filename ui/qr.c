/*
 * qr.c - a text as a QR code in half-block characters (see qr.h).
 */
#include <config.h>

#include <errno.h>
#include <qrencode.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "i18n.h"
#include "qr.h"
#include "xalloc.h"

int qr_matrix(const char *text, int *width, unsigned char **dots)
{
	QRcode *q;
	int i, n;

	*width = 0;
	*dots = NULL;
	if (!text || !*text)
		return err_set(FD_EINVAL, "%s", _("there is no text to make a QR code of"));
	/* version 0: the smallest that holds the text at level L */
	q = QRcode_encodeString(text, 0, QR_ECLEVEL_L, QR_MODE_8, 1);
	if (!q)
		return err_set(FD_EINVAL,
		               _("the text cannot be made into a QR code (%zu bytes): %s"),
		               strlen(text), strerror(errno));
	n = q->width;
	*dots = xmalloc((size_t)n * (size_t)n);
	for (i = 0; i < n * n; i++)
		(*dots)[i] = q->data[i] & 1; /* bit 0: dark */
	*width = n;
	QRcode_free(q);
	return 0;
}

/* Module (x, y) of the code with its quiet zone: 1 dark. */
static int dark_at(const unsigned char *dots, int n, int quiet, int x, int y)
{
	x -= quiet;
	y -= quiet;
	if (x < 0 || y < 0 || x >= n || y >= n)
		return 0;
	return dots[y * n + x];
}

int qr_draw(const char *text, int quiet, int ink_dark, struct qr_art *out)
{
	static const char *const cell[4] = {" ", "\u2584", "\u2580", "\u2588"};
	unsigned char *dots;
	int n, m, r, x, rc;

	memset(out, 0, sizeof *out);
	if ((rc = qr_matrix(text, &n, &dots)) != 0)
		return rc;
	if (quiet < 0)
		quiet = 0;
	m = n + 2 * quiet;
	out->modules = m;
	out->cols = m;
	out->rows = (m + 1) / 2;
	out->line = xcalloc((size_t)out->rows, sizeof *out->line);
	for (r = 0; r < out->rows; r++) {
		char *p = out->line[r] = xmalloc((size_t)m * 3 + 1);

		for (x = 0; x < m; x++) {
			/* the lower half of the last row of an odd code is quiet zone */
			int top = dark_at(dots, n, quiet, x, 2 * r) == ink_dark;
			int bot = 2 * r + 1 < m ? dark_at(dots, n, quiet, x, 2 * r + 1) == ink_dark
			                        : !ink_dark;
			const char *c = cell[top * 2 + bot];
			size_t k = strlen(c);

			memcpy(p, c, k);
			p += k;
		}
		*p = '\0';
	}
	free(dots);
	return 0;
}

void qr_free(struct qr_art *a)
{
	int r;

	if (a->line)
		for (r = 0; r < a->rows; r++)
			free(a->line[r]);
	free(a->line);
	memset(a, 0, sizeof *a);
}
