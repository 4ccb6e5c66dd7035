# Shared build rules for every snr module: warnings as errors, optional
# sanitizers, and helpers to declare libraries, unit tests and fuzz targets.

set(SNR_WARNINGS -Wall -Wextra -Wpedantic -Werror -Wshadow -Wnon-virtual-dtor
    -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)

if(SNR_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
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

# snr_fuzzer(NAME SOURCE ... DEPS ... [CORPUS dir]) — a libFuzzer target when
# SNR_FUZZ is on; otherwise the same entry point is linked with a small driver
# that replays the corpus, so every build checks the target still runs.
function(snr_fuzzer name)
  cmake_parse_arguments(ARG "" "CORPUS" "SOURCES;DEPS" ${ARGN})
  if(SNR_FUZZ)
    add_executable(${name} ${ARG_SOURCES})
    target_compile_options(${name} PRIVATE ${SNR_WARNINGS} -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  else()
    add_executable(${name} ${ARG_SOURCES} ${CMAKE_SOURCE_DIR}/src/common/fuzz_replay_main.cc)
    target_compile_options(${name} PRIVATE ${SNR_WARNINGS})
    target_link_libraries(${name} PRIVATE ${ARG_DEPS})
    if(ARG_CORPUS)
      add_test(NAME ${name}.corpus COMMAND ${name} ${ARG_CORPUS})
    endif()
  endif()
endfunction()
