/*
 * surfer_err.c - error codes to exit statuses and names (see surfer_err.h).
 */
#include "trace/surfer_err.h"

int surfer_exit_code(int err)
{
	if (err >= 0)
		return 0;
	return err == SURFER_ENOMEM || err == SURFER_EWRITE ? 1 : 2;
}

const char *surfer_err_name(int err)
{
	switch (err) {
	case SURFER_OK: return "success";
	case SURFER_ENOMEM: return "out of memory";
	case SURFER_EINVAL: return "bad input";
	case SURFER_EIO: return "cannot read";
	case SURFER_ECORRUPT: return "malformed data";
	case SURFER_EVERSION: return "unsupported version";
	case SURFER_ETRUNC: return "truncated";
	case SURFER_EUNKNOWN: return "unknown name";
	case SURFER_EDEVICE: return "no usable device";
	case SURFER_EWRITE: return "cannot write";
	}
	return "error";
}
