# lbench — plain Makefile.  Dependencies are found with pkg-config and
# mariadb_config; `contrib/install-deps.sh` installs missing Debian packages.
#
#   make            build lbench, build/liblbench.a, build/liblbench.so (and
#                   lbench-mpi where Open MPI's development files are found)
#   make test       install test deps, build, run every test (last line: "N passed, N failed")
#   make demo       install deps, start a private MariaDB, run a short OLTP benchmark
#   make bench      lbench side by side with sysbench and fio, ratios printed
#   make install PREFIX=/usr/local   (LINKS="sysbench pgbench" adds the drop-in names)

VERSION  := 0.1.0
PREFIX   ?= /usr/local
CC       ?= cc
O        ?= build
SAN      ?=
BIN      ?= lbench

PKGS        := luajit libevent libpq sqlite3
DEPS_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(shell mariadb_config --cflags 2>/dev/null)
DEPS_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(shell mariadb_config --libs 2>/dev/null) -laio -lm -lpthread -ldl
# SQLite (the run history) is called only by the Lua half, through the FFI:
# no C reference keeps it, so a linker under --as-needed (Debian's gcc
# default) would drop it.  Kept by name, so the binary, liblbench.so and
# programs built with pkg-config carry it; lua/lbench/result/sqlite.lua still
# loads libsqlite3.so.0 itself when a program was linked without it.
DEPS_LIBS   += -Wl,--push-state,--no-as-needed -lsqlite3 -Wl,--pop-state
# io_uring engine only where liburing is installed (else it explains at run time).
ifeq ($(shell pkg-config --exists liburing 2>/dev/null && echo 1),1)
DEPS_CFLAGS += -DLB_HAVE_URING $(shell pkg-config --cflags liburing)
DEPS_LIBS   += $(shell pkg-config --libs liburing)
endif

# lbench-mpi (several client hosts as one run) only where Open MPI's
# development files are found; lbench and liblbench never link MPI.
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null || mpicc --showme:compile 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null || mpicc --showme:link 2>/dev/null)
ifneq ($(strip $(MPI_LIBS)),)
MPI_BIN  := lbench-mpi
endif

WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O2 -g
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) $(SAN) -D_GNU_SOURCE -fPIC -pthread \
             -DLB_VERSION='"$(VERSION)"' -DLB_SHARE_DIR='"$(PREFIX)/share/lbench"' \
             -Icore -I$(O) $(DEPS_CFLAGS)
LDFLAGS  ?=

LIB_SRC  := $(filter-out core/main.c core/cluster/cluster_mpi.c,$(wildcard core/*.c core/*/*.c core/*/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(O)/%.o) $(O)/embedded.o
LUA_SRC  := $(wildcard lua/lbench/*.lua lua/lbench/*/*.lua)
STOCK_SRC := $(wildcard scenarios/*.lua scenarios/*/*.lua)
# Order matters: each header's FFI section may use types of the ones before.
FFI_HDRS := core/clock.h core/httpget.h core/cluster/cluster.h core/hist.h core/rand.h core/kern.h core/rowgen.h core/handle.h core/stats.h core/db/db.h core/lbench.h core/pace.h core/run.h core/worker.h core/sbcompat/sbcompat.h core/sbcompat/sbsql.h \
            core/loop.h core/metrics.h core/runtime.h \
            core/io/engine.h core/io/registry.h core/io/fs.h core/io/steady.h core/io/genmap.h \
            core/io/diskstats.h core/io/series.h core/io/io.h core/io/verify.h core/pgbench/pgrand.h \
            core/pgbench/pglog.h

.PHONY: all test demo bench install clean deps check-deps unit unit-asan fuzz sbcram pgbtap
all: check-deps $(BIN) $(O)/liblbench.a $(O)/liblbench.so $(MPI_BIN)

check-deps:
	@pkg-config --exists $(PKGS) && command -v mariadb_config >/dev/null && test -f /usr/include/libaio.h \
	  || { echo "lbench: build dependencies missing; run: contrib/install-deps.sh build" >&2; exit 1; }

$(O)/%.o: %.c $(wildcard core/*.h core/*/*.h core/*/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FILE_CFLAGS) -c $< -o $@

# The loops of sysbench's built-in tests start on a 32-byte boundary: the
# memory test's 22-byte store loop ran 40 % slower when the code before it
# grew and the loop came to straddle one (docs/benchmarks.md).
$(O)/core/kern.o: FILE_CFLAGS = -falign-loops=32

$(O)/embedded.c: contrib/embed.lua $(LUA_SRC) $(STOCK_SRC) $(FFI_HDRS) Makefile
	@mkdir -p $(O)
	luajit contrib/embed.lua $@ $(FFI_HDRS) -- $(LUA_SRC) --stock $(STOCK_SRC)

$(O)/embedded.o: $(O)/embedded.c
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(O)/liblbench.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(O)/liblbench.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,liblbench.so.0 $(SAN) -o $@ $^ $(LDFLAGS) $(DEPS_LIBS)
	ln -sf liblbench.so $(O)/liblbench.so.0

# --export-dynamic: the Lua half reaches the core through the FFI, which
# resolves lb_* symbols in the process's global namespace.
$(BIN): $(O)/core/main.o $(O)/liblbench.a
	$(CC) $(SAN) -rdynamic -o $@ $(O)/core/main.o -Wl,--whole-archive $(O)/liblbench.a \
	  -Wl,--no-whole-archive $(LDFLAGS) $(DEPS_LIBS)

# The same main with the MPI cluster layer registered at start.
$(O)/core/main_mpi.o: core/main.c $(wildcard core/*.h core/cluster/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DLB_MPI $(MPI_CFLAGS) -c $< -o $@

$(O)/core/cluster/cluster_mpi.o: core/cluster/cluster_mpi.c core/cluster/cluster_mpi.h core/cluster/cluster.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) -c $< -o $@

lbench-mpi: $(O)/core/main_mpi.o $(O)/core/cluster/cluster_mpi.o $(O)/liblbench.a
	$(CC) $(SAN) -rdynamic -o $@ $(O)/core/main_mpi.o $(O)/core/cluster/cluster_mpi.o -Wl,--whole-archive \
	  $(O)/liblbench.a -Wl,--no-whole-archive $(LDFLAGS) $(DEPS_LIBS) $(MPI_LIBS)

# ---- tests ---------------------------------------------------------------
UNIT_SRC := $(wildcard test/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:test/unit/%.c=$(O)/test/%)

$(O)/test/%: test/unit/%.c $(O)/liblbench.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itest/unit -rdynamic -o $@ $< -Wl,--whole-archive $(O)/liblbench.a \
	  -Wl,--no-whole-archive $(LDFLAGS) $(DEPS_LIBS)

E2E_SRC := $(wildcard test/e2e/test_*.c)
E2E_BIN := $(E2E_SRC:test/e2e/%.c=$(O)/e2e/%)

$(O)/e2e/%: test/e2e/%.c $(O)/liblbench.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itest/unit -o $@ $< -Wl,--whole-archive $(O)/liblbench.a \
	  -Wl,--no-whole-archive $(LDFLAGS) $(DEPS_LIBS)

# The bare client loops: one harness (bare_harness.c), a client library each.
$(O)/bare_point_select: contrib/bare_point_select.c contrib/bare_harness.c contrib/bare_harness.h
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(DEPS_LIBS)

$(O)/bare_pg_point_select: contrib/bare_pg_point_select.c contrib/bare_harness.c contrib/bare_harness.h
	$(CC) $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(shell pkg-config --libs libpq) -lpthread

$(O)/embed_example: contrib/embed_example.c $(O)/liblbench.so
	$(CC) $(ALL_CFLAGS) -o $@ $< -L$(O) -Wl,-rpath,$(CURDIR)/$(O) -llbench $(DEPS_LIBS)

unit: $(UNIT_BIN) $(E2E_BIN)

# Unit tests of a sanitizer build (O=build-asan): same sources, other objects.
unit-asan: $(UNIT_BIN)

deps:
	@contrib/install-deps.sh test

test: deps
	@$(MAKE) --no-print-directory all unit $(O)/embed_example
	@test/run.sh

# Command-line fuzzing for ten minutes (make test runs it for 30 s);
# FUZZ_SEED=N picks another sequence.
fuzz: all
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-600} LB=./$(BIN) test/fuzz.sh

# sysbench 1.0.20's own cram suite side by side (the real sysbench, then
# lbench as `sysbench`) against a private MariaDB: make sbcram SYSBENCH_SRC=DIR
# (a checkout of akopytov/sysbench at tag 1.0.20); SBCRAM_CASES="a.t b.t"
# runs only those cases.
sbcram: all
	@test -n "$(SYSBENCH_SRC)" || { echo "make sbcram SYSBENCH_SRC=DIR (a sysbench 1.0.20 checkout)"; exit 2; }
	@command -v cram3 >/dev/null || contrib/install-deps.sh test
	@LBENCH=./$(BIN) contrib/sbcram.sh "$(SYSBENCH_SRC)" $(SBCRAM_CASES)

# pgbench 15's own TAP tests run with the real pgbench and with lbench as
# `pgbench`, each against the cluster the TAP framework starts:
# make pgbtap PG_SRC=DIR (a PostgreSQL 15 source tree); PGBTAP_TESTS="002_pgbench_no_server.pl"
# runs only those files.
pgbtap: all
	@test -n "$(PG_SRC)" || { echo "make pgbtap PG_SRC=DIR (a PostgreSQL 15 source tree)"; exit 2; }
	@perl -MIPC::Run -e1 2>/dev/null || contrib/install-deps.sh pgbtap
	@LBENCH=./$(BIN) contrib/pgbtap.sh "$(PG_SRC)" $(PGBTAP_TESTS)

demo:
	@contrib/install-deps.sh test
	@$(MAKE) --no-print-directory all
	@contrib/demo.sh

bench:
	@contrib/install-deps.sh bench
	@$(MAKE) --no-print-directory all
	@contrib/bench.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/lbench/scenarios
	install -m 755 lbench $(DESTDIR)$(PREFIX)/bin/lbench
	@# the drop-in names only on request (they shadow the real tools on PATH):
	@# make install LINKS="sysbench pgbench"
	for name in $(LINKS); do \
	  case $$name in sysbench|pgbench) ;; *) echo "LINKS: '$$name' is not one of: sysbench pgbench" >&2; exit 2;; esac; \
	  ln -sf lbench $(DESTDIR)$(PREFIX)/bin/$$name || exit 1; \
	done
	if [ -n "$(MPI_BIN)" ]; then install -m 755 lbench-mpi $(DESTDIR)$(PREFIX)/bin/lbench-mpi; fi
	install -m 644 $(O)/liblbench.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(O)/liblbench.so $(DESTDIR)$(PREFIX)/lib/liblbench.so.$(VERSION)
	ln -sf liblbench.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/liblbench.so.0
	ln -sf liblbench.so.0 $(DESTDIR)$(PREFIX)/lib/liblbench.so
	install -m 644 core/lbench.h $(DESTDIR)$(PREFIX)/include/lbench.h
	cp -R scenarios/. $(DESTDIR)$(PREFIX)/share/lbench/scenarios/
	for pc in lbench lbench-shared; do \
	  sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS@|$(DEPS_LIBS)|' \
	    contrib/$$pc.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$pc.pc || exit 1; \
	done

clean:
	rm -rf $(O) build-asan build-tsan lbench lbench-mpi
