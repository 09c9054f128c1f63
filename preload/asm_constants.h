/* The ABI numbers the assembly files need, spelled as the assembler reads
 * them (preload_interface.h is C). thread_init.c checks each one against
 * the interface header. */
#ifndef BACKSTEP_PRELOAD_ASM_CONSTANTS_H
#define BACKSTEP_PRELOAD_ASM_CONSTANTS_H

#define BS_ASM_STUB_SIZE 128
#define BS_ASM_STUB_TRACED_DELTA 40
#define BS_ASM_STUB_AREA_SIZE 131072
#define BS_ASM_UNTRACED_SYSCALL_ADDR 0x70000010
#define BS_ASM_BUFFER_SIZE 1048576
/* bs_hook's answer: the thread registered its buffer just now, on the
 * program's stack; call it again, on the buffer's stack. */
#define BS_ASM_HOOK_AGAIN 2
/* BS_CALL_RDTSC and BS_TSC_ENTRY_BEFORE_TRAMPOLINE */
#define BS_ASM_CALL_RDTSC 0x5b5002
#define BS_ASM_TSC_ENTRY_BEFORE_TRAMPOLINE 16
/* BS_CALL_RDTSCP and BS_TSCP_ENTRY_BEFORE_TRAMPOLINE */
#define BS_ASM_CALL_RDTSCP 0x5b5003
#define BS_ASM_TSCP_ENTRY_BEFORE_TRAMPOLINE 32
/* sizeof(struct bs_saved_regs) */
#define BS_ASM_SAVED_REGS_SIZE 80

#endif
