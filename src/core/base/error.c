/*
 * error.c: filling a PbError, the one way every core function reports
 * what went wrong.
 */
#include <stdarg.h>
#include <stdio.h>

#include "pb_base.h"

/* Record code and a printf-style message in err; return code. */
PbStatus
PbFail(PbError *err, PbStatus code, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
	err->code = code;
	return code;
}
