# How servebench's targets are declared, and how the build keeps modules apart.
#
#   servebench_module(<m> SOURCES ... DEPS ...)            the library servebench_<m> of src/<m>/
#   servebench_testing_library(<m> SOURCES ... DEPS ...)   servebench_<m>_testing: src/<m>/testing/
#   servebench_test(<name> SOURCES ... DEPS ... [LABELS ...])  a GoogleTest binary run by ctest
#   servebench_realengine_test(<name> SOURCES ... DEPS ...)    one against the real llama-server
#
# Boundaries. A module's users see its headers and nothing else: each module gets an
# include root of its own, <build>/include/<m>/, holding one link `<m>` -> src/<m>,
# so `#include "<m>/x.h"` resolves for the module itself and for whatever links
# servebench_<m>, and `#include "other/y.h"` fails to compile unless `other` is a
# dependency. Every target is also written to <build>/servebench_targets.tsv, and the
# ctest test `deps_check` (scripts/check-deps.py) compares each file's includes with
# the DEPS of its target, naming the include, the DEPS entry it needs and where to add
# it: a module must declare every module it includes directly, product code never
# includes testing/ headers, and modules depend only on modules listed before them in
# SERVEBENCH_MODULES.

set(SERVEBENCH_TARGETS_FILE ${CMAKE_BINARY_DIR}/servebench_targets.tsv)
set_property(GLOBAL PROPERTY SERVEBENCH_TARGET_ROWS "")

# Gives `target` the include root that exposes src/<module>/ as "<module>/...".
function(servebench_expose_headers target module visibility)
  set(root ${CMAKE_BINARY_DIR}/include/${module})
  if(NOT EXISTS ${root}/${module})
    file(MAKE_DIRECTORY ${root})
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${module} ${root}/${module} SYMBOLIC)
  endif()
  target_include_directories(${target} ${visibility} ${root})
endfunction()

# One row of servebench_targets.tsv: kind, target, folder, DEPS, sources.
function(servebench_record_target kind target deps sources)
  string(REPLACE "\t" " " deps "${deps}")
  file(RELATIVE_PATH dir ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set_property(GLOBAL APPEND_STRING PROPERTY SERVEBENCH_TARGET_ROWS
    "${kind}\t${target}\t${dir}\t${deps}\t${sources}\n")
endfunction()

function(servebench_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS" ${ARGN})
  add_library(servebench_${name} STATIC ${M_SOURCES})
  servebench_expose_headers(servebench_${name} ${name} PUBLIC)
  target_link_libraries(servebench_${name} PUBLIC ${M_DEPS})
  set_property(GLOBAL APPEND PROPERTY SERVEBENCH_MODULE_LIBS servebench_${name})
  servebench_record_target(module servebench_${name} "${M_DEPS}" "${M_SOURCES}")
endfunction()

# Test helpers of module <m> (src/<m>/testing/), for the tests of any module.
function(servebench_testing_library name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPS" ${ARGN})
  add_library(servebench_${name}_testing STATIC ${L_SOURCES})
  target_link_libraries(servebench_${name}_testing PUBLIC servebench_${name} ${L_DEPS})
  target_compile_definitions(servebench_${name}_testing PRIVATE
    SERVEBENCH_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    SERVEBENCH_BIN="$<TARGET_FILE_DIR:servebench>/servebench")
  servebench_record_target(testing servebench_${name}_testing "servebench_${name};${L_DEPS}"
    "${L_SOURCES}")
endfunction()

# Labels the tests gtest_discover_tests found in `target`, at ctest time. Its own
# PROPERTIES flatten a list (LABELS "a;b" arrives as `LABELS a b`, and b is read as a
# property name), so the labels are set by a file ctest includes after the discovered
# tests: it sees their names in <target>_TESTS (gtest_discover_tests' TEST_LIST).
function(servebench_label_discovered_tests target labels)
  set(file ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  file(WRITE ${file} "if(${target}_TESTS)\n"
                     "  set_tests_properties(\${${target}_TESTS} PROPERTIES LABELS \"${labels}\")\n"
                     "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${file})
endfunction()

# A GoogleTest binary run by ctest, labelled LABELS (default "unit"; one or more).
# Label "slow" keeps it out of `make test` (run by make soak/bench); "no-sanitizer"
# out of `make test-asan`. Tests get SERVEBENCH_BIN (the CLI) and SERVEBENCH_SOURCE_DIR.
# SERIAL: ctest runs these tests with nothing beside them (RUN_SERIAL), for a test that
# saturates the machine on purpose and would starve other tests' timing.
function(servebench_test name)
  cmake_parse_arguments(T "SERIAL" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    SERVEBENCH_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    SERVEBENCH_BIN="$<TARGET_FILE_DIR:servebench>/servebench")
  if(NOT T_LABELS)
    set(T_LABELS unit)
  endif()
  set(serial FALSE)
  if(T_SERIAL)
    set(serial TRUE)
  endif()
  gtest_discover_tests(${name} PROPERTIES RUN_SERIAL ${serial} DISCOVERY_TIMEOUT 60)
  servebench_label_discovered_tests(${name} "${T_LABELS}")
  servebench_record_target(test ${name} "${T_DEPS}" "${T_SOURCES}")
endfunction()

# A GoogleTest binary against the real llama.cpp llama-server (docs/engines.md,
# "llama.cpp"), with engine/'s testing library (testing/real_llama.h). Its tests carry
# the label "realengine" and need the `realengine_setup` fixture (top-level
# CMakeLists.txt), which builds the engine into the cache when it is missing and
# writes the models. `make test-asan` leaves the label out: they measure an external
# engine, once, in the optimised pass.
function(servebench_realengine_test name)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_DEPS} servebench_engine_testing GTest::gtest
                        GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
    SERVEBENCH_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    SERVEBENCH_BIN="$<TARGET_FILE_DIR:servebench>/servebench")
  add_dependencies(${name} servebench)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES
    LABELS realengine FIXTURES_REQUIRED realengine TIMEOUT 900)
  servebench_record_target(test ${name} "${T_DEPS};servebench_engine_testing" "${T_SOURCES}")
endfunction()

# Writes servebench_targets.tsv (after every folder was added) and registers the
# ctest test that checks includes against it.
function(servebench_check_boundaries)
  get_property(rows GLOBAL PROPERTY SERVEBENCH_TARGET_ROWS)
  string(REPLACE ";" " " order "${SERVEBENCH_MODULES}")
  file(WRITE ${SERVEBENCH_TARGETS_FILE}.tmp "order\t${order}\n${rows}")
  file(COPY_FILE ${SERVEBENCH_TARGETS_FILE}.tmp ${SERVEBENCH_TARGETS_FILE} ONLY_IF_DIFFERENT)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  add_test(NAME deps_check
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-deps.py
            --targets ${SERVEBENCH_TARGETS_FILE} --source-dir ${CMAKE_SOURCE_DIR}
            --binary-dir ${CMAKE_BINARY_DIR})
  # The checker's own tests: its advice, word for word, on a small tree.
  add_test(NAME deps_check_selftest
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check_deps_test.py)
  set_tests_properties(deps_check deps_check_selftest PROPERTIES LABELS unit)
endfunction()
