# Thin wrapper over CMake: the README's two commands, `make run` and `make test`.
# Both install missing Debian packages first (scripts/setup-deps.sh, a no-op when all is there).

BUILD_DIR ?= build
CONFIG    ?= configs/default.ini
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DTOUCHSTONE_WERROR=ON
# The hardening builds (README, "Reliability"), each in a directory of its own.
ASAN_DIR  ?= build-asan
FUZZ_DIR  ?= build-fuzz
FUZZ_SECONDS ?= 60
# What the AddressSanitizer + UBSan build runs: the suite without the labels (tests/labels.txt)
# of tests that boot a VM, start Slurm, measure, run under valgrind, inject faults in loops or
# build the Debian package (its compiler flags are Debian's, not the sanitizers'),
# check the source tree (layout: no code of ours runs), nor those labelled no-asan (each says
# why where it is defined).
ASAN_EXCLUDE_LABELS = ^(vm|slurm|bench|valgrind|faults|random|layout|package|no-asan)$$
# cli.verify_fail preloads a library of its own (it intercepts sin, not malloc).
ASAN_ENV = ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

.PHONY: all deps deps-test configure build run format test test-random test-asan test-fuzz fuzz fuzz-build clean

all: build

deps:
	@./scripts/setup-deps.sh

# DEPS_DONE=1: already checked by the make that calls this one (make test's later passes).
deps-test:
ifndef DEPS_DONE
	@./scripts/setup-deps.sh --test
endif

configure: deps
	@cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	./$(BUILD_DIR)/app/touchstone run $(CONFIG)

# The C sources formatted in place with clang-format-14 and .clang-format (layout.format checks).
format:
	sh scripts/format.sh fix .

# The whole suite but the tests left to chance (label random), then its fast part under ASan +
# UBSan, then the fuzzers' deterministic part: the same verdict on every run of a commit.
test: deps-test build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -LE random
	@$(MAKE) --no-print-directory test-asan DEPS_DONE=1
	@$(MAKE) --no-print-directory test-fuzz DEPS_DONE=1

# The tests whose verdict depends on chance (label random), left out of make test: kills at
# moments drawn at random (faults.kill_random; FAULTS_SEED=S repeats a sequence).
test-random: deps-test build
	cd $(BUILD_DIR) && ctest --output-on-failure -L random

test-asan: deps-test
	@cmake -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOUCHSTONE_WERROR=ON \
	    -DTOUCHSTONE_SANITIZE=address,undefined >/dev/null
	@cmake --build $(ASAN_DIR) -j $(JOBS)
	cd $(ASAN_DIR) && $(ASAN_ENV) ctest --output-on-failure -j $(JOBS) -LE '$(ASAN_EXCLUDE_LABELS)'

# Only what label fuzz runs (tests/fuzz's fuzz_harnesses: the harnesses, fuzz_seeds and
# touchstone): the unit tests' programs there would be a third of the build for nothing.
fuzz-build: deps-test
	@cmake -S . -B $(FUZZ_DIR) -DCMAKE_C_COMPILER=clang-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DTOUCHSTONE_WERROR=ON -DTOUCHSTONE_FUZZ=ON -DTOUCHSTONE_FUZZ_SECONDS=$(FUZZ_SECONDS) >/dev/null
	@cmake --build $(FUZZ_DIR) -j $(JOBS) --target fuzz_harnesses

# The regression cases and seeds replayed, then a bounded exploration per harness from a fixed
# seed (tests/fuzz/run_fuzz.sh explore): about a minute on 2 cores.
test-fuzz: fuzz-build
	cd $(FUZZ_DIR) && ctest --output-on-failure -j $(JOBS) -L fuzz -LE random

# All of test-fuzz, then FUZZ_SECONDS (default 60) of random fuzzing per harness, also from files
# of real runs: where new findings come from (fix, then keep in tests/fuzz/regressions/).
fuzz: fuzz-build
	cd $(FUZZ_DIR) && ctest --output-on-failure -j $(JOBS) -L fuzz

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR)
