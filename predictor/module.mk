# predictor/module.mk - every predictor/*.c goes into the core library;
# other predictor/*.mk fragments (generated weights, ...) are included.
CORE_SRCS += $(wildcard predictor/*.c)
include $(filter-out predictor/module.mk,$(wildcard predictor/*.mk))
