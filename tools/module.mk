# tools/module.mk - each program or suite has its own tools/<name>.mk fragment.
include $(filter-out tools/module.mk,$(wildcard tools/*.mk))
