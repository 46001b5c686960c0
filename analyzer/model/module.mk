# analyzer/model/module.mk - the config path (--model): model sequences, config
# parsing, collectives and their timing go into the core library.
CORE_SRCS += analyzer/model/model.c analyzer/model/step.c analyzer/model/fuse.c analyzer/model/ops.c analyzer/model/attn.c analyzer/model/config.c analyzer/model/arch_alias.c analyzer/model/program.c \
	analyzer/model/run.c analyzer/model/memory.c analyzer/model/plan.c analyzer/model/serve.c analyzer/model/moe.c analyzer/model/cpu.c \
	analyzer/model/stage.c analyzer/model/lens.c
LDLIBS += -ljansson

CFLAGS_analyzer_model_ += $(CFLAGS_analyzer_)
