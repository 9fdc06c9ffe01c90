# servebench developer entry points. `make demo` and `make test` install what they
# need (Debian packages) and build, so each works as the first command on a fresh
# machine. Builds use two jobs: CI machines have two cores.
JOBS      ?= 2
BUILD     ?= build
ASAN      ?= build-asan
FUZZ_DIR  ?= build-fuzz
FUZZ_SECS ?= 600
# ccache, when the machine has it, makes rebuilds across checkouts cheap; CI without it
# builds the same way.
CMAKE_FLAGS ?= $(if $(shell command -v ccache),-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
FORMAT_FILES = find src bench fuzz \( -name '*.h' -o -name '*.cc' -o -name '*.cpp' \) -print

.PHONY: all deps deps-test build build-asan test test-fast test-asan demo demo-llamacpp llamacpp bench soak fuzz format format-check clean

all: build

deps:
	@scripts/install-deps.sh

# What only the tests need: a real headless browser for the dashboard (Debian's
# chromium), a real Slurm controller for the Slurm executor (slurm-wlm) and npm for
# the real engine's source (llama.cpp, built by the realengine test fixture).
deps-test:
	@scripts/install-deps.sh --with-browser --with-slurm --with-llamacpp

# -g1 (line tables, no variables) keeps backtraces and profiles useful at a fraction
# of full debug info's compile time over the Boost headers: CI has two cores.
$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSERVEBENCH_WERROR=ON \
	  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

$(ASAN)/build.ninja:
	cmake -S . -B $(ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSERVEBENCH_WERROR=ON -DSERVEBENCH_SANITIZE=ON \
	  "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" $(CMAKE_FLAGS)

build-asan: deps $(ASAN)/build.ninja
	cmake --build $(ASAN) -j $(JOBS)

# Fast tests on the optimised build, then the same suite under ASan + UBSan.
# Tests labelled "slow" (soak, load) are left to `make soak` / `make bench`.
test: deps-test format-check test-fast test-asan

test-fast: build
	cd $(BUILD) && ctest -LE slow -j $(JOBS) --output-on-failure --timeout 600

# The realengine tests (a real llama-server) run once, in test-fast: they measure an
# external engine, and ASan's slower client would double their minutes and blur the
# timing checks; their client code paths run under ASan in the fake-server tests.
# Label no-sanitizer marks the same for the 53-point sim rehearsals (minutes under
# ASan; their client paths run under ASan in client_sim_test and run_e2e_test).
test-asan: build-asan
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest -LE 'slow|no-sanitizer|realengine' -j $(JOBS) --output-on-failure --timeout 900

demo: build
	scripts/demo.sh $(BUILD)/src/cli/servebench

# The real engine: llama.cpp's llama-server built into ~/.cache/servebench when
# missing (about 5 min on two cores), plus random-weight models; prints their paths.
llamacpp: build
	@scripts/install-deps.sh --with-llamacpp
	scripts/llamacpp-setup.sh $(BUILD)/src/cli/servebench

# The main job on the real engine: examples/llamacpp.yaml, stored, tables, dashboard.
demo-llamacpp: build
	@scripts/install-deps.sh --with-llamacpp
	scripts/demo-llamacpp.sh $(BUILD)/src/cli/servebench

bench: build
	scripts/bench.sh $(BUILD)

soak: build
	cd $(BUILD) && ctest -L slow -j 1 --output-on-failure --timeout 3600

# libFuzzer targets need clang; FUZZ_SECS per target (default ten minutes).
fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSERVEBENCH_FUZZ=ON
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target recipe_loader_fuzzer
	scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECS)

format:
	$(FORMAT_FILES) | xargs clang-format -i

# Fails on the first file clang-format would change (make test runs it first, so CI does).
format-check: deps
	$(FORMAT_FILES) | xargs clang-format --dry-run -Werror

clean:
	rm -rf $(BUILD) $(ASAN) $(FUZZ_DIR)
