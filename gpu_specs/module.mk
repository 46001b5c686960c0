# gpu_specs/module.mk - see the top-level Makefile
