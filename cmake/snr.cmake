# Shared build rules for every snr module: warnings as errors, optional
# sanitizers, and helpers to declare libraries, unit tests and fuzz targets.

set(SNR_WARNINGS -Wall -Wextra -Wpedantic -Werror -Wshadow -Wnon-virtual-dtor
    -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)

if(SNR_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
# Data races in the code that runs on several threads (readers of one
# trace in two halves, jobs run at once, the replayer's workers).
if(SNR_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

# Libraries linked into the `snr` binary; filled by snr_library().
set_property(GLOBAL PROPERTY SNR_CLI_LIBRARIES "")

# snr_library(NAME SOURCES ... [DEPS ...] [NO_CLI])
function(snr_library name)
  cmake_parse_arguments(ARG "NO_CLI" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${SNR_WARNINGS})
  target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR}/src ${CMAKE_BINARY_DIR}/src)
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  if(NOT ARG_NO_CLI)
    set_property(GLOBAL APPEND PROPERTY SNR_CLI_LIBRARIES ${name})
  endif()
endfunction()

# snr_test(NAME SOURCES ... [DEPS ...]) — a GoogleTest binary; each test case
# becomes its own ctest entry. Tests find shared inputs through the
# SNR_SHARED_DATA, SNR_SOURCE_DIR, SNR_BINARY_DIR and SNR_BIN environment
# variables; the binary sets them itself (test_environment.cc) unless the
# caller already did, so running a test binary by hand behaves like ctest.
function(snr_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES} ${CMAKE_SOURCE_DIR}/src/common/test_environment.cc)
  target_compile_options(${name} PRIVATE ${SNR_WARNINGS})
  set_source_files_properties(${CMAKE_SOURCE_DIR}/src/common/test_environment.cc
    TARGET_DIRECTORY ${name}
    PROPERTIES COMPILE_DEFINITIONS
      "SNR_TEST_SHARED_DATA=\"${SNR_SHARED_DATA}\";SNR_TEST_SOURCE_DIR=\"${CMAKE_SOURCE_DIR}\";SNR_TEST_BINARY_DIR=\"${CMAKE_BINARY_DIR}\"")
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gmock GTest::gtest_main)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
endfunction()

# Every snr_fuzzer target, whatever the build: `snr_fuzz_targets` builds them
# all and nothing else (plus what they link), so the libFuzzer build stays
# cheap. fuzz_targets.tsv in the build directory lists each one for the
# scripts (scripts/fuzz.sh, .ci/run); nobody keeps a hand-written list.
add_custom_target(snr_fuzz_targets)
set_property(GLOBAL PROPERTY SNR_FUZZ_MANIFEST "")

if(SNR_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SNR_FUZZ needs clang (libFuzzer); configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # Libraries get coverage instrumentation and the sanitizers too, otherwise
  # libFuzzer only sees the few lines of each entry point.
  # Line tables are all a sanitizer report needs, and full debug info makes
  # this build (and CI) much slower.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined -gline-tables-only)
  add_link_options(-fsanitize=address,undefined)
endif()

# snr_fuzzer(NAME SOURCES ... DEPS ... [CORPUS dir] [DICT file]) — a
# libFuzzer target when SNR_FUZZ is on; otherwise the same entry point is
# linked with a small driver that replays the corpus, so every build checks
# the target still runs. Conventions beside the entry point's source file:
#   fuzz_repro/NAME/   inputs that once crashed the target (replayed by ctest
#                      in every build; scripts/fuzz.sh saves new ones there),
#   NAME.dict          the libFuzzer dictionary, unless DICT names another.
function(snr_fuzzer name)
  cmake_parse_arguments(ARG "" "CORPUS;DICT" "SOURCES;DEPS" ${ARGN})
  list(GET ARG_SOURCES 0 first_source)
  cmake_path(ABSOLUTE_PATH first_source BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
  cmake_path(GET first_source PARENT_PATH source_dir)
  set(repro_dir ${source_dir}/fuzz_repro/${name})
  set(dict ${ARG_DICT})
  if(NOT dict AND EXISTS ${source_dir}/${name}.dict)
    set(dict ${source_dir}/${name}.dict)
  endif()
  # "-" stands for "none": bash's `read` merges adjacent tabs.
  set(corpus_column ${ARG_CORPUS})
  if(NOT corpus_column)
    set(corpus_column -)
  endif()
  if(NOT dict)
    set(dict -)
  endif()

  if(SNR_FUZZ)
    add_executable(${name} ${ARG_SOURCES})
    target_compile_options(${name} PRIVATE ${SNR_WARNINGS} -fsanitize=fuzzer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(${name} PRIVATE ${ARG_DEPS})
    # -runs=0 executes every input once and mutates nothing, so the
    # committed directories are only read.
    set(replay_args -runs=0 -rss_limit_mb=2048)
  else()
    add_executable(${name} ${ARG_SOURCES} ${CMAKE_SOURCE_DIR}/src/common/fuzz_replay_main.cc)
    target_compile_options(${name} PRIVATE ${SNR_WARNINGS})
    target_link_libraries(${name} PRIVATE ${ARG_DEPS})
    set(replay_args "")
  endif()
  add_dependencies(snr_fuzz_targets ${name})

  # The reproducer directory is optional: the libFuzzer binary refuses a
  # missing directory, so the test goes through the replay script.
  add_test(NAME ${name}.corpus
           COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/fuzz_replay.sh $<TARGET_FILE:${name}>
                   ${corpus_column} ${repro_dir} ${replay_args})
  set_tests_properties(${name}.corpus PROPERTIES LABELS fuzz TIMEOUT 600)
  set_property(GLOBAL APPEND PROPERTY SNR_FUZZ_MANIFEST
               "${name}\t$<TARGET_FILE:${name}>\t${corpus_column}\t${repro_dir}\t${dict}")
endfunction()

# Written once every CMakeLists.txt has declared its targets.
function(_snr_write_fuzz_manifest)
  get_property(rows GLOBAL PROPERTY SNR_FUZZ_MANIFEST)
  list(SORT rows)
  set(content "# name\tbinary\tcorpus\treproducers\tdictionary (- for none)\n")
  foreach(row ${rows})
    string(APPEND content "${row}\n")
  endforeach()
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/fuzz_targets.tsv CONTENT "${content}")
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _snr_write_fuzz_manifest)
