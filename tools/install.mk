# tools/install.mk - `make install PREFIX=/usr/local [DESTDIR=...]`: every
# program in $(PROGRAMS) into bin/, the recorder into lib/libsurfer.so and
# the man pages into share/man/man1 and man7.  The programs link the core
# library statically, so nothing from the build tree is needed at run time.
INSTALL ?= install
MAN1_PAGES := $(wildcard docs/man/*.1)
MAN7_PAGES := $(wildcard docs/man/*.7)
INSTALL_DIR := $(DESTDIR)$(PREFIX)

install: all
	$(INSTALL) -d $(INSTALL_DIR)/bin $(INSTALL_DIR)/lib \
		$(INSTALL_DIR)/share/man/man1 $(INSTALL_DIR)/share/man/man7
	$(INSTALL) -m 755 $(PROGRAMS) $(INSTALL_DIR)/bin/
	$(if $(filter %/libsurfer.so,$(EXTRA_TARGETS)),$(INSTALL) -m 755 \
		$(filter %/libsurfer.so,$(EXTRA_TARGETS)) $(INSTALL_DIR)/lib/)
	$(INSTALL) -m 644 $(MAN1_PAGES) $(INSTALL_DIR)/share/man/man1/
	$(if $(MAN7_PAGES),$(INSTALL) -m 644 $(MAN7_PAGES) $(INSTALL_DIR)/share/man/man7/)
