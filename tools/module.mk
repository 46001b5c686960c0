# tools/module.mk - the other programs, each with its tools/<name>.mk, and
# the scripts for a machine with a GPU (tools/gpu/).
include $(filter-out tools/module.mk,$(wildcard tools/*.mk))
include $(wildcard tools/gpu/*.mk)
