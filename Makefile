# berth: the two commands a new user needs.
#   make run    builds berth and runs the main job (the seed reproducer, planned and verified)
#   make test   builds berth with -Werror and runs the whole test suite
# Both install missing Debian packages first (as root).

BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: run test test-sanitize deps deps-test configure build clean

deps:
	@sh scripts/install-deps.sh

deps-test:
	@sh scripts/install-deps.sh --test

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBERTH_WERROR=ON $(CMAKE_FLAGS) >/dev/null

# make run builds only the tool, quietly (errors and warnings still show).
run: configure
	@cmake --build $(BUILD) -j $(JOBS) --target berth >/dev/null
	$(BUILD)/berth run examples/seed/seed.bir --call 'f64[1]:5.0' --call 'f64[1]:6.0'

build: configure
	cmake --build $(BUILD) -j $(JOBS)

test: deps-test build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

test-sanitize: deps-test
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DBERTH_WERROR=ON -DBERTH_SANITIZE=ON >/dev/null
	cmake --build $(BUILD)-asan -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --test-dir $(BUILD)-asan --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) $(BUILD)-asan
