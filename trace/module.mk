# trace/module.mk - the trace format module (writer and streaming reader),
# part of the core library every program links.
CORE_SRCS += trace/trace.c trace/writer.c trace/reader.c trace/order.c trace/hmap.c trace/strpool.c \
	trace/csv.c trace/surfer_err.c trace/editdist.c
