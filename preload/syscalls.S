/* The library's two ways to make a system call, as C functions
 * long f(long nr, long a0, ..., long a5):
 *   bs_untraced_syscall  through the tool page's untraced instruction (the
 *                        seccomp filter lets it run without a ptrace stop);
 *   bs_native_syscall    through its own `syscall; ret`: traced under
 *                        backstep, and it works natively, when there is no
 *                        tool page. Three bytes are too few for the
 *                        recorder's 5-byte jump, so it never patches them. */
#include "preload/asm_constants.h"

/* A C call's (nr, a0..a5) into the kernel's registers: rax, rdi, rsi,
 * rdx, r10, r8, r9 (a5 is on the stack, above the return address). */
        .macro syscall_args_from_c
        mov %rdi, %rax
        mov %rsi, %rdi
        mov %rdx, %rsi
        mov %rcx, %rdx
        mov %r8, %r10
        mov %r9, %r8
        mov 8(%rsp), %r9
        .endm

        .text
        .globl bs_untraced_syscall
        .hidden bs_untraced_syscall
        .type bs_untraced_syscall, @function
        .balign 16
bs_untraced_syscall:
        .cfi_startproc
        syscall_args_from_c
        /* The tool page's `syscall; ret` returns straight to our caller. */
        mov $BS_ASM_UNTRACED_SYSCALL_ADDR, %r11
        jmp *%r11
        .cfi_endproc
        .size bs_untraced_syscall, . - bs_untraced_syscall

        .globl bs_native_syscall
        .hidden bs_native_syscall
        .type bs_native_syscall, @function
        .balign 16
bs_native_syscall:
        .cfi_startproc
        syscall_args_from_c
        syscall
        ret
        .cfi_endproc
        .size bs_native_syscall, . - bs_native_syscall

        .section .note.GNU-stack, "", @progbits
