/*
 * settle-file-stub.c - a stand-in for settle-file.c (reading settlement
 * files, settle-file.h) until it lands, so that `frontdesk recon import`
 * links: every file is refused. Removed when settle-file.c lands.
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "settle-file.h"

int settle_file_read(const void *data, size_t len, struct settle_file *out)
{
	(void)data;
	(void)len;
	memset(out, 0, sizeof *out);
	return err_set(FD_EINVAL, "reading settlement files is not built in yet");
}

int settle_wechat_bill_read(const void *data, size_t len, struct settle_file *out)
{
	return settle_file_read(data, len, out);
}

void settle_file_free(struct settle_file *f)
{
	free(f->lines);
	memset(f, 0, sizeof *f);
}
