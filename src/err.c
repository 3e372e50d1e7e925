/*
 * err.c - the per-thread "why was this refused" buffer (see err.h).
 */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>

#include "err.h"

static _Thread_local char last_msg[1024];

int err_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof last_msg, fmt, ap);
	va_end(ap);
	return code;
}

const char *err_msg(void)
{
	return last_msg;
}

void err_clear(void)
{
	last_msg[0] = '\0';
}
