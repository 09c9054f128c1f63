# backstep_cpu_state: cpu_state.h, the plain register and CPUID values that the
# trace schema shares with core. Header-only and standard library only, so
# that the trace can use them without linking core, and core never needs the
# trace. Included by engine/core/CMakeLists.txt and by fuzz/CMakeLists.txt
# (which builds engine/trace without core).
# (fuzz/session.cmake then builds core too: the target is made once.)
if(NOT TARGET backstep_cpu_state)
  add_library(backstep_cpu_state INTERFACE ${CMAKE_CURRENT_LIST_DIR}/cpu_state.h)
endif()
