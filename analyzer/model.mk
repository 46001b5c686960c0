# analyzer/model.mk - the config path (--model): model sequences, config
# parsing, collectives and their timing go into the core library.
CORE_SRCS += analyzer/model.c analyzer/modelcfg.c analyzer/modelprog.c analyzer/comm.c \
	analyzer/modelrun.c analyzer/modelmem.c analyzer/modelplan.c
LDLIBS += -ljansson

