# tools/module.mk - the other programs, each with its tools/<name>.mk; the
# importers' library (tools/import/), the benchmark and training harness
# (tools/lab/) and the scripts for a machine with a GPU (tools/gpu/).
include $(filter-out tools/module.mk,$(wildcard tools/*.mk))
include $(wildcard tools/lab/*.mk) $(wildcard tools/gpu/*.mk)
CFLAGS_tools_lab_ += $(CFLAGS_tools_)
CFLAGS_tools_import_ += $(CFLAGS_tools_)
