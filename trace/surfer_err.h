/*
 * surfer_err.h - the one set of error codes of surfer's libraries (trace,
 * gpu_specs, predictor, analyzer, model builder, importers) and the one
 * mapping from an error to a program's exit status.
 *
 * Contract: a library function returns 0 (or a count) on success and one
 * of these negative codes on failure, with the details in a caller-provided
 * buffer; it never prints or exits.  A program's main turns the code into
 * its exit status with surfer_exit_code() and nothing else, so that every
 * program answers the same failure with the same status:
 *   0  success;
 *   1  the machine failed: out of memory, an output that cannot be written;
 *   2  the input is bad: an option, a file that cannot be read or is not
 *      what it should be, a name no table knows.
 * (surfer-analyze's gate adds 3 for a regression; that is a verdict, not
 * an error.)
 *
 * The values of ENOMEM (-1) and EINVAL (-2) are those the analyzer and the
 * predictor always returned; the trace module's TRACE_E* names are these
 * codes under its own prefix.
 */
#ifndef SURFER_ERR_H
#define SURFER_ERR_H

enum surfer_err {
	SURFER_OK = 0,
	SURFER_ENOMEM = -1,    /* out of memory                                     */
	SURFER_EINVAL = -2,    /* a bad argument, option or configuration            */
	SURFER_EIO = -3,       /* an input cannot be opened or read (errno kept)     */
	SURFER_ECORRUPT = -4,  /* malformed data: a field of a bad type or value     */
	SURFER_EVERSION = -5,  /* a newer major version, or not a surfer trace       */
	SURFER_ETRUNC = -6,    /* the data ends inside or before its last record     */
	SURFER_EUNKNOWN = -7,  /* a name (model, architecture) that no table knows   */
	SURFER_EDEVICE = -8,   /* no usable device: unknown, none or ambiguous       */
	SURFER_EWRITE = -9,    /* an output cannot be created or written (errno kept) */
};

/* The exit status of a program whose work ended with err (0 or a
 * negative code above): 0, 1 (ENOMEM, EWRITE) or 2 (every other code,
 * and any other negative value). */
int surfer_exit_code(int err);

/* A short English name of err ("out of memory", "bad input", ...), for
 * messages that have nothing more precise. */
const char *surfer_err_name(int err);

#endif
