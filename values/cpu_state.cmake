# backstep_cpu_state: cpu_state.h, the plain register and CPUID values that the
# trace schema shares with the rest of the engine. Header-only and standard
# library only, so that the trace can use them without linking anything of
# backstep. Included by values/CMakeLists.txt and by fuzz/CMakeLists.txt
# (which builds engine/trace alone).
if(NOT TARGET backstep_cpu_state)
  add_library(backstep_cpu_state INTERFACE ${CMAKE_CURRENT_LIST_DIR}/cpu_state.h)
endif()
