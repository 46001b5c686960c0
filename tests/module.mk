# tests/module.mk - each program or suite has its own tests/<name>.mk fragment.
include $(filter-out tests/module.mk,$(wildcard tests/*.mk))
