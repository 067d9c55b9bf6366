# numalab — see README.md.  `make` builds, `make check` tests, `make run` runs configs/first.json (an A/B),
# `make fuzz [FUZZ_SECONDS=60]` runs the libFuzzer harnesses (lab/fuzz/, HACKING.md "Fuzzing").
CC       ?= cc
WERROR   ?= $(if $(CI),1,)
SANITIZE ?=
OPT      ?= -O2

WARN     := -std=c17 -Wall -Wextra -Wformat=2 -Wshadow -Wmissing-prototypes -Wvla
# Messages and paths go into fixed buffers on purpose (bounded, untrusted input): a cut-off
# snprintf is the intended behaviour, not a bug to warn about.
WARN     += -Wno-format-truncation
# FUZZ=1 (set by `make fuzz` and `make fuzz-build`, with CC=clang and B=$(FUZZ_B)): everything
# instrumented for libFuzzer, ASan and UBSan, and UBSan's findings fatal so that the fuzzer
# sees them.  clang does not know gcc's -Wformat-truncation.
FUZZ_B       ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SAN     := address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ifdef FUZZ
WARN     := -Wno-unknown-warning-option $(WARN)
endif
CPPFLAGS := -D_GNU_SOURCE -Ilab
CFLAGS   := $(WARN) $(OPT) -g $(if $(WERROR),-Werror,)
SANFLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer,)
ifdef FUZZ
SANFLAGS := -fsanitize=fuzzer-no-link,$(FUZZ_SAN)
endif
# gsl: Student t quantiles and tail probabilities for `lab compare` (lab/analysis/stats.c), from a
# well-kept numerical library rather than hand-written special functions.
# sqlite3: the history index of reports (lab/history/) and labd's job queue (lab/daemon/queue.c),
# a well-kept store made for this.
# libmicrohttpd: labd's HTTP API (lab/daemon/api.c), a small, well-kept HTTP server library
# that takes a unix socket, bounds connections and bodies, and gives a thread per connection.
# libarchive: the bundle archives (lab/util/archive.c), tar read and written by a well-kept
# library; zlib: their gzip layer read by the lab itself, which checks the CRC libarchive's
# reader does not.
PKGS     := jansson libvirt gsl libcurl libcrypto sqlite3 libmicrohttpd libarchive zlib
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# libguestfs (guest disk images, lab/builder/image.c; their keys use libcrypto's sha256 too):
# headers only, the library is dlopen'ed: linked, its constructor would initialise libvirt too
# early (lab/builder/guestfs.h).
PKG_CFLAGS += $(shell pkg-config --cflags libguestfs 2>/dev/null)

# Sanitized objects must not mix with plain ones: they get their own build directory.
B ?= build$(if $(SANITIZE),-san-$(subst $(comma),-,$(SANITIZE)),)
comma := ,
export B

# labd's code is library code too (its tests link it), all but its main (lab/daemon/labd.c).
LIB_SRC   := $(wildcard lab/util/*.c lab/proto/*.c lab/core/*.c lab/analysis/*.c lab/history/*.c \
                       lab/virt/*.c lab/builder/*.c lab/run/*.c lab/regress/*.c) \
             $(filter-out lab/daemon/labd.c,$(wildcard lab/daemon/*.c))
CLI_SRC   := $(wildcard lab/cli/*.c)
TEST_SRC  := $(wildcard lab/tests/test_*.c)
RUN_SRC   := $(wildcard runners/*.c)
RUN_BINS  := $(patsubst runners/%.c,$(B)/runners/%,$(filter-out runners/rt_%.c,$(RUN_SRC)))
# The runners link the host-guest contract (lab/proto: pure C on jansson) and the pure
# lab/util helpers it and they use; no libvirt, nothing of lab/core.
RUN_UTIL  := lab/util/fs.c lab/util/error.c lab/util/jsonpath.c lab/util/text.c
RUN_COMMON:= $(wildcard runners/rt_*.c lab/proto/*.c) $(RUN_UTIL)
RUN_HDRS  := $(wildcard runners/*.h lab/proto/*.h) $(RUN_UTIL:.c=.h) lab/util/cleanup.h

LIB_OBJ  := $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC))
CLI_OBJ  := $(patsubst %.c,$(B)/obj/%.o,$(CLI_SRC))
TEST_BIN := $(patsubst lab/tests/%.c,$(B)/tests/%,$(TEST_SRC))
FUZZ_BIN := $(patsubst lab/fuzz/%.c,$(B)/fuzz/%,$(wildcard lab/fuzz/fuzz_*.c))

DEPS_STAMP := $(B)/.deps-ok
# A plain `make` builds as any user: it only checks that the packages are there (--check says
# which are missing); the goals that install when something is missing are these.
DEPS_CHECKED := $(B)/.deps-checked
INSTALL_GOALS := deps run check check-fresh unit integration bench doctor
DEPS_FIRST := $(if $(filter $(INSTALL_GOALS),$(MAKECMDGOALS)),$(DEPS_STAMP),$(DEPS_CHECKED))

.PHONY: FORCE all deps run check check-fresh unit integration bench clean doctor install uninstall fuzz \
	fuzz-build fuzz-bins
all: $(B)/lab $(B)/labd $(RUN_BINS) $(TEST_BIN) $(B)/plugin/lockinsn.so $(B)/plugin/numacost.so \
	$(B)/plugin/profile.so $(B)/tests/synthlock.elf $(B)/tests/synthnuma.elf $(B)/tests/synthprof.elf

# `make deps` always asks; run/check only call the installer when a probe says something is missing.
deps:
	lab/scripts/install-deps.sh
$(DEPS_STAMP): lab/scripts/install-deps.sh
	@mkdir -p $(B)
	lab/scripts/install-deps.sh
	@touch $@ $(DEPS_CHECKED)

$(DEPS_CHECKED): lab/scripts/install-deps.sh
	@mkdir -p $(B)
	@lab/scripts/install-deps.sh --check
	@touch $@

$(B)/obj/%.o: %.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SANFLAGS) -MMD -MP -c $< -o $@

# The lab's version (lab --version, every report's "lab" object: lab/util/version.h) and the
# commit it is built from.  version.o is rebuilt only when the commit changes: the stamp is
# rewritten only then.
LAB_VERSION := 0.37
LAB_COMMIT  := $(shell lab/scripts/commit-id.sh)
$(B)/commit-id: FORCE
	@mkdir -p $(B)
	@echo '$(LAB_COMMIT)' | cmp -s - $@ || echo '$(LAB_COMMIT)' >$@
$(B)/obj/lab/util/version.o: $(B)/commit-id
$(B)/obj/lab/util/version.o: CPPFLAGS += -DLAB_VERSION='"$(LAB_VERSION)"' -DLAB_COMMIT='"$(LAB_COMMIT)"'
FORCE:

$(B)/liblab.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/lab: $(CLI_OBJ) $(B)/liblab.a
	$(CC) $(SANFLAGS) -o $@ $(CLI_OBJ) $(B)/liblab.a $(PKG_LIBS) -lpthread

$(B)/labd: $(B)/obj/lab/daemon/labd.o $(B)/liblab.a
	$(CC) $(SANFLAGS) -o $@ $< $(B)/liblab.a $(PKG_LIBS) -lpthread

$(B)/tests/%: lab/tests/%.c lab/tests/tap.h lab/tests/testutil.h $(B)/liblab.a | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $< $(B)/liblab.a $(PKG_LIBS) -lpthread

# A libFuzzer harness: the fuzzer's main linked in.
$(B)/fuzz/%: lab/fuzz/%.c lab/fuzz/fuzz.h $(B)/liblab.a | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $< \
		$(B)/liblab.a $(PKG_LIBS) -lpthread

# Guest-side programs: static, so the initramfs needs no libc of its own.  Never sanitized
# (ASan cannot link statically); they are plain Linux programs and also run on the host.
# Their bytes must not depend on where the checkout is: they go into the initramfs, and a
# guest whose initramfs is a few bytes longer boots with its timing shifted, so one seed gave
# other figures from another directory.  -ffile-prefix-map keeps the checkout's path out of
# the debug information (lab/tests/test_runners.sh looks for it in every one).
$(B)/runners/%: runners/%.c $(RUN_COMMON) $(RUN_HDRS) | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(if $(WERROR),-Werror,) -O2 -g -ffile-prefix-map=$(CURDIR)=. \
		-static -o $@ $< $(RUN_COMMON) -ljansson -lz -lpthread -lm

# The lock-instruction counter, a QEMU TCG plugin loaded into the host's QEMU (lab/plugin/,
# GPL-2.0-or-later like the qemu-plugin.h it includes; glib is QEMU's).  Never sanitized: it
# runs inside QEMU.  Its test guest (lab/tests/synthlock.S): a bare multiboot program whose
# locks have a known length.
PLUGIN_CFLAGS = $(shell pkg-config --cflags glib-2.0 2>/dev/null)
$(B)/plugin/lockinsn.so: lab/plugin/lockinsn.c lab/plugin/plugutil.h lab/plugin/qemu-plugin.h | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(if $(WERROR),-Werror,) -O2 -g -fPIC -shared -fvisibility=hidden \
		$(PLUGIN_CFLAGS) -o $@ $< $(shell pkg-config --libs glib-2.0 2>/dev/null)
# The per-symbol instruction profile (self and inclusive, in lockinsn's windows), built the same
# way; its test guest (lab/tests/synthprof.S): a bare program whose calls have a known structure.
$(B)/plugin/profile.so: lab/plugin/profile.c lab/plugin/plugutil.h lab/plugin/qemu-plugin.h | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(if $(WERROR),-Werror,) -O2 -g -fPIC -shared -fvisibility=hidden \
		$(PLUGIN_CFLAGS) -o $@ $< $(shell pkg-config --libs glib-2.0 2>/dev/null)
# The NUMA cost model as a plugin: the model's engine (lab/core/numacost.c, pure C) compiled in
# as it is.  It needs the lab's QEMU (images/qemu/0003-icount-charge.patch): another QEMU
# refuses to load it (undefined qemu_plugin_vcpu_stall).
$(B)/plugin/numacost.so: lab/plugin/numacost.c lab/core/numacost.c lab/core/numacost.h \
		lab/plugin/plugutil.h lab/plugin/qemu-plugin.h | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(if $(WERROR),-Werror,) -D_GNU_SOURCE -O2 -g -fPIC -shared \
		-fvisibility=hidden -Ilab -Ilab/plugin $(PLUGIN_CFLAGS) -o $@ lab/plugin/numacost.c \
		lab/core/numacost.c $(shell pkg-config --libs glib-2.0 2>/dev/null)
$(B)/tests/synthlock.elf: lab/tests/synthlock.S lab/tests/synthpages.S.inc
	@mkdir -p $(dir $@)
	$(CC) -m32 -c -o $(B)/tests/synthlock.o $<
	ld -m elf_i386 -Ttext=0x100000 --build-id=none -o $@ $(B)/tests/synthlock.o
# A 4-vCPU guest whose cache-line traffic is known (lab/tests/synthnuma.S), for a cost plugin.
$(B)/tests/synthnuma.elf: lab/tests/synthnuma.S lab/tests/synthpages.S.inc
	@mkdir -p $(dir $@)
	$(CC) -m32 -c -o $(B)/tests/synthnuma.o $<
	ld -m elf_i386 -Ttext=0x100000 --build-id=none -o $@ $(B)/tests/synthnuma.o
$(B)/tests/synthprof.elf: lab/tests/synthprof.S lab/tests/synthpages.S.inc
	@mkdir -p $(dir $@)
	$(CC) -m32 -c -o $(B)/tests/synthprof.o $<
	ld -m elf_i386 -Ttext=0x100000 --build-id=none -o $@ $(B)/tests/synthprof.o

# Its A/B is a demonstration, not a gate: exits by the runs (lab run --runs-status).
run: all
	$(B)/lab run configs/first.json --runs-status

doctor: all
	$(B)/lab doctor

check: all
	lab/tests/run-tests.sh

# The suite as a new machine sees it: empty state, kernel and image caches (run-tests.sh --fresh).
check-fresh: all
	lab/tests/run-tests.sh --fresh

unit: all
	lab/tests/run-tests.sh --unit

integration: all
	lab/tests/run-tests.sh --integration

bench: all
	lab/tests/bench.sh

# The fuzz build: its own directory (instrumented objects never mix with gcc's), -O1 as
# libFuzzer advises.  `make fuzz` then runs every harness FUZZ_SECONDS (lab/tests/fuzz.sh).
fuzz-build:
	$(MAKE) --no-print-directory FUZZ=1 CC=clang OPT=-O1 B=$(FUZZ_B) fuzz-bins
fuzz-bins: $(FUZZ_BIN)
fuzz: fuzz-build
	FUZZ_B=$(FUZZ_B) FUZZ_SECONDS=$(FUZZ_SECONDS) lab/tests/fuzz.sh

clean:
	rm -rf $(B)

# `make install [PREFIX=/usr/local] [DESTDIR=DIR]` (lab/tests/test_install.sh): lab and labd,
# the guest programs and the files the lab reads at run time where an installed lab looks
# for them (PREFIX/lib/numalab/runners, PREFIX/share/numalab: lab/util/checkout.h, so these
# two and bin/ stay relative to PREFIX), the systemd units, the sysusers.d and tmpfiles.d
# entries, the man pages and bash completion, a Slurm node's epilog and health check
# (PREFIX/lib/numalab/slurm).  Units and man pages get PREFIX for /usr/local.  labd is
# installed when it is built.  Then: GUIDE.md, "The daemon (labd)".
PREFIX      ?= /usr/local
MANDIR      ?= $(PREFIX)/share/man
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
COMPLDIR    ?= $(PREFIX)/share/bash-completion/completions
BINDIR      := $(PREFIX)/bin
DATADIR     := $(PREFIX)/share/numalab
RUNNERDIR   := $(PREFIX)/lib/numalab/runners
DATA_DIRS   := kernels images configs lab/report
UNITS       := $(wildcard lab/systemd/*.service lab/systemd/*.timer)
SUBST_PREFIX = sed -i 's|/usr/local/|$(PREFIX)/|g'

install: $(B)/lab $(B)/labd $(RUN_BINS) $(B)/plugin/lockinsn.so $(B)/plugin/numacost.so \
		$(B)/plugin/profile.so
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(RUNNERDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(COMPLDIR)
	install -m 0755 $(B)/lab $(DESTDIR)$(BINDIR)/lab
	install -m 0644 lab/completion/lab.bash $(DESTDIR)$(COMPLDIR)/lab
	install -m 0755 $(B)/labd $(DESTDIR)$(BINDIR)/labd
	install -m 0755 $(RUN_BINS) $(DESTDIR)$(RUNNERDIR)/
	install -D -m 0755 $(B)/plugin/lockinsn.so $(DESTDIR)$(PREFIX)/lib/numalab/plugin/lockinsn.so
	install -D -m 0755 $(B)/plugin/numacost.so $(DESTDIR)$(PREFIX)/lib/numalab/plugin/numacost.so
	install -D -m 0755 $(B)/plugin/profile.so $(DESTDIR)$(PREFIX)/lib/numalab/plugin/profile.so
	install -d $(DESTDIR)$(PREFIX)/lib/numalab/slurm
	install -m 0755 lab/slurm/epilog lab/slurm/healthcheck $(DESTDIR)$(PREFIX)/lib/numalab/slurm/
	find $(DATA_DIRS) -type f | while read -r f; do \
		install -D -m 0644 "$$f" "$(DESTDIR)$(DATADIR)/$$f" || exit 1; done
	install -m 0644 $(UNITS) $(DESTDIR)$(UNITDIR)/
	cd $(DESTDIR)$(UNITDIR) && $(SUBST_PREFIX) $(notdir $(UNITS))
	install -m 0644 lab/systemd/sysusers.d/numalab.conf $(DESTDIR)$(SYSUSERSDIR)/numalab.conf
	install -m 0644 lab/systemd/tmpfiles.d/numalab.conf $(DESTDIR)$(TMPFILESDIR)/numalab.conf
	install -m 0644 lab/man/lab.1 $(DESTDIR)$(MANDIR)/man1/lab.1
	install -m 0644 lab/man/labd.8 $(DESTDIR)$(MANDIR)/man8/labd.8
	$(SUBST_PREFIX) $(DESTDIR)$(MANDIR)/man1/lab.1 $(DESTDIR)$(MANDIR)/man8/labd.8

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/lab $(DESTDIR)$(BINDIR)/labd \
		$(addprefix $(DESTDIR)$(UNITDIR)/,$(notdir $(UNITS))) \
		$(DESTDIR)$(SYSUSERSDIR)/numalab.conf $(DESTDIR)$(TMPFILESDIR)/numalab.conf \
		$(DESTDIR)$(MANDIR)/man1/lab.1 $(DESTDIR)$(MANDIR)/man8/labd.8 \
		$(DESTDIR)$(COMPLDIR)/lab
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(PREFIX)/lib/numalab

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
