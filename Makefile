# Thin wrapper over CMake: the README's two commands, `make run` and `make test`.
# Both install missing Debian packages first (scripts/setup-deps.sh, a no-op when all is there).

BUILD_DIR ?= build
CONFIG    ?= configs/default.ini
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DTOUCHSTONE_WERROR=ON

.PHONY: all deps deps-test configure build run test clean

all: build

deps:
	@./scripts/setup-deps.sh

deps-test:
	@./scripts/setup-deps.sh --test

configure: deps
	@cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	./$(BUILD_DIR)/app/touchstone run $(CONFIG)

test: deps-test build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD_DIR)
