/* bs_syscall_trampoline and the stub area (preload_interface.h has the
 * contract and the stub layout).
 *
 * A patched syscall site jumps to its stub, which steps over the red zone
 * and calls the trampoline. The trampoline saves every register it or the
 * C hook may change, calls bs_hook with a pointer to the saved
 * struct bs_saved_regs, and returns:
 *   handled:     to R, rax = the result (the hook wrote it into the saved
 *                rax), every other register and rflags as at entry;
 *   not handled: to R + BS_STUB_TRACED_DELTA, every register and rflags as
 *                at entry (the stub then executes the traced syscall).
 * The hook itself runs on the stack at the end of the thread's buffer
 * (BS_HOOK_STACK_SIZE); on a thread's first call, which registers the
 * buffer on the program's stack (the same code in record and replay), it
 * answers BS_ASM_HOOK_AGAIN and is called again on the new stack.
 * The C code is built with -mgeneral-regs-only, so no vector or x87 state is
 * touched and none needs saving. */
#include "preload/asm_constants.h"

/* Pops struct bs_saved_regs back into the registers, rflags last. */
        .macro RESTORE_SAVED_REGS
        .irp reg, rax, rdi, rsi, rdx, r10, r8, r9, rcx, r11
        pop %\reg
        .cfi_adjust_cfa_offset -8
        .endr
        popfq
        .cfi_adjust_cfa_offset -8
        .endm

        .text
/* A patched rdtscp's stub calls here, BS_TSCP_ENTRY_BEFORE_TRAMPOLINE
 * bytes before the trampoline: the pseudo call BS_CALL_RDTSCP, answered in
 * eax, edx and ecx (the saved rcx, which the trampoline restores). */
        .globl bs_tscp_entry
        .hidden bs_tscp_entry
        .type bs_tscp_entry, @function
        .balign 16
bs_tscp_entry:
        .cfi_startproc
        mov $BS_ASM_CALL_RDTSCP, %eax
        jmp bs_syscall_trampoline
        .cfi_endproc
        .size bs_tscp_entry, . - bs_tscp_entry
        .org bs_tscp_entry + BS_ASM_TSCP_ENTRY_BEFORE_TRAMPOLINE - BS_ASM_TSC_ENTRY_BEFORE_TRAMPOLINE, 0xcc

/* A patched rdtsc's stub calls here (BS_TSC_ENTRY_BEFORE_TRAMPOLINE bytes
 * before the trampoline, where the recorder finds it): the pseudo call
 * BS_CALL_RDTSC, whose hook answers in eax and edx (tsc_call.c). rax holds
 * nothing of the program's here: rdtsc overwrites it. */
        .globl bs_tsc_entry
        .hidden bs_tsc_entry
        .type bs_tsc_entry, @function
        .balign 16
bs_tsc_entry:
        .cfi_startproc
        mov $BS_ASM_CALL_RDTSC, %eax
        jmp bs_syscall_trampoline
        .cfi_endproc
        .size bs_tsc_entry, . - bs_tsc_entry
        .org bs_tsc_entry + BS_ASM_TSC_ENTRY_BEFORE_TRAMPOLINE, 0xcc

        .globl bs_syscall_trampoline
        .type bs_syscall_trampoline, @function
bs_syscall_trampoline:
        .cfi_startproc
        /* struct bs_saved_regs, built downwards from its last field. */
        pushfq
        .cfi_adjust_cfa_offset 8
        push %r11
        .cfi_adjust_cfa_offset 8
        push %rcx
        .cfi_adjust_cfa_offset 8
        push %r9
        .cfi_adjust_cfa_offset 8
        push %r8
        .cfi_adjust_cfa_offset 8
        push %r10
        .cfi_adjust_cfa_offset 8
        push %rdx
        .cfi_adjust_cfa_offset 8
        push %rsi
        .cfi_adjust_cfa_offset 8
        push %rdi
        .cfi_adjust_cfa_offset 8
        push %rax
        .cfi_adjust_cfa_offset 8
        /* rbx (callee-saved in C) keeps the unaligned stack pointer. */
        push %rbx
        .cfi_adjust_cfa_offset 8
        .cfi_rel_offset %rbx, 0
        mov %rsp, %rbx
        .cfi_def_cfa_register %rbx
        /* The hook runs on the stack at the end of the thread's buffer, once
         * it has one: recording and replay run different code in it, and
         * what that leaves below the program's stack pointer would differ
         * between them (backstep's state digests read the program's stack). */
2:      lea 8(%rbx), %rdi
        movq bs_thread@gottpoff(%rip), %rax
        movq %fs:(%rax), %rax       /* bs_thread.buffer */
        test %rax, %rax
        jz 1f
        lea BS_ASM_BUFFER_SIZE(%rax), %rsp
1:      and $-16, %rsp
        cld                         /* the C ABI wants DF clear; popfq restores it */
        call bs_hook_local
        mov %rbx, %rsp
        cmp $BS_ASM_HOOK_AGAIN, %rax
        je 2b                       /* registered just now: again, on its stack */
        .cfi_def_cfa_register %rsp
        pop %rbx
        .cfi_adjust_cfa_offset -8
        .cfi_restore %rbx
        test %rax, %rax
        .cfi_remember_state
        jz 1f
        /* Handled: the saved rax now holds the result. */
        RESTORE_SAVED_REGS
        ret
1:      /* Not handled: return past the handled path (the add changes flags,
         * so it comes before popfq). */
        .cfi_restore_state
        addq $BS_ASM_STUB_TRACED_DELTA, BS_ASM_SAVED_REGS_SIZE(%rsp)
        RESTORE_SAVED_REGS
        ret
        .cfi_endproc
        .size bs_syscall_trampoline, . - bs_syscall_trampoline

/* The stub area: executable, inside the library so that a stub reaches the
 * trampoline with call rel32. backstep writes the stubs (through
 * /proc/PID/mem, recorded as memory its event wrote); the first slot is
 * reserved and its first 8 bytes count the slots in use, 1 to start with.
 * The rest is int3, so a jump into an unwritten slot traps. */
        .section .text.bs_stub_area, "ax", @progbits
        .globl bs_stub_area
        .type bs_stub_area, @object
        .balign BS_ASM_STUB_SIZE /* the engine finds a stub's start from any address in it */
bs_stub_area:
        .quad 1
        .fill BS_ASM_STUB_AREA_SIZE - 8, 1, 0xcc
        .size bs_stub_area, BS_ASM_STUB_AREA_SIZE

        .section .note.GNU-stack, "", @progbits
