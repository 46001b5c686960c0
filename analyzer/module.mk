# analyzer/module.mk - see the top-level Makefile
include analyzer/model.mk
