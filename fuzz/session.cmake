# session_fuzz: request sequences served by a real GdbSession against the
# real ReplayTimeline of session_target.c, recorded in-process at start-up
# (session_fuzz.cc says how an input is read). The engine below the server
# (core, record, replay, timeline) is built here too, instrumented and
# checked like the codec; the main build's source lists are used as they are.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
include(${BACKSTEP_ROOT}/cmake/llvm_mc.cmake)
add_subdirectory(${BACKSTEP_ROOT}/engine/core core)
add_subdirectory(${BACKSTEP_ROOT}/engine/record record)
add_subdirectory(${BACKSTEP_ROOT}/engine/replay replay)
add_subdirectory(${BACKSTEP_ROOT}/engine/timeline timeline)
add_subdirectory(${BACKSTEP_ROOT}/gdbserver gdbserver)

# The recorded program is not code under test: no libc, no sanitizers, no
# coverage (the directory's options are replaced, not added to).
add_executable(session_target session_target.c)
set_property(TARGET session_target PROPERTY COMPILE_OPTIONS -O1 -g -fno-stack-protector -fno-pie)
set_property(TARGET session_target PROPERTY LINK_OPTIONS -static -nostdlib -no-pie)

add_executable(session_fuzz session_fuzz.cc)
target_link_options(session_fuzz PRIVATE -fsanitize=fuzzer)
target_link_libraries(session_fuzz PRIVATE backstep_gdbserver backstep_timeline backstep_record)
target_compile_definitions(session_fuzz PRIVATE SESSION_TARGET="$<TARGET_FILE:session_target>")
add_dependencies(session_fuzz session_target)

# Each input replays (and may reverse) a real program: far fewer runs than
# the codec targets in the same time.
set(BACKSTEP_FUZZ_RUNS_SESSION 500 CACHE STRING "libFuzzer -runs of the bounded session_fuzz test")
add_test(NAME fuzz.session
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/run_bounded.sh $<TARGET_FILE:session_fuzz>
                 ${CMAKE_CURRENT_SOURCE_DIR}/corpus/session ${CMAKE_CURRENT_BINARY_DIR}/run-session
                 ${BACKSTEP_FUZZ_RUNS_SESSION})
set_tests_properties(fuzz.session PROPERTIES LABELS fuzz TIMEOUT 300)
