# tools/install.mk - `make install PREFIX=/usr/local [DESTDIR=...]`: every
# program in $(PROGRAMS) into bin/, the recorder into lib/libsurfer.so and
# the man pages into share/man/man1 and man7, the bash completion into
# share/bash-completion/completions (one file, a link per surfer-VERB).  The programs link the core
# library statically, so nothing from the build tree is needed at run time.
INSTALL ?= install
MAN1_PAGES := $(wildcard docs/man/*.1)
MAN7_PAGES := $(wildcard docs/man/*.7)
INSTALL_DIR := $(DESTDIR)$(PREFIX)
COMPLETION_DIR := $(INSTALL_DIR)/share/bash-completion/completions

install: all
	$(INSTALL) -d $(INSTALL_DIR)/bin $(INSTALL_DIR)/lib \
		$(INSTALL_DIR)/share/man/man1 $(INSTALL_DIR)/share/man/man7
	$(INSTALL) -m 755 $(PROGRAMS) $(INSTALL_DIR)/bin/
	$(if $(filter %/libsurfer.so,$(EXTRA_TARGETS)),$(INSTALL) -m 755 \
		$(filter %/libsurfer.so,$(EXTRA_TARGETS)) $(INSTALL_DIR)/lib/)
	$(INSTALL) -m 644 $(MAN1_PAGES) $(INSTALL_DIR)/share/man/man1/
	$(if $(MAN7_PAGES),$(INSTALL) -m 644 $(MAN7_PAGES) $(INSTALL_DIR)/share/man/man7/)
	$(INSTALL) -d $(COMPLETION_DIR)
	$(INSTALL) -m 644 tools/surfer.bash $(COMPLETION_DIR)/surfer
	for p in $(filter-out surfer,$(notdir $(PROGRAMS))); do ln -sf surfer $(COMPLETION_DIR)/$$p; done
