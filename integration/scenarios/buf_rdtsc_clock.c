// scenario: buf_rdtsc where the kernel makes rdtsc fault (the default there):
// the library cannot read the counter itself (its own rdtsc would fault
// too), so a patched site's value comes from CLOCK_MONOTONIC_RAW, converted
// at the counter's rate as the recorder converts each read it traps
// (engine/core/tsc_clock.h). The same three threads must never see the
// counter go back, across the library's reads and the recorder's (the
// sites that keep trapping), and replay must give every value back.
// requires: threads
// requires: tsc-fault
// expect-buffered: 7000
#include "buf_rdtsc.c"
