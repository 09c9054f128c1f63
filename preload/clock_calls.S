/* bs_clock_syscall: the one `syscall` the library's clock functions
 * (clock_calls.c) make, as long f(long nr, long a0, long a1).
 *
 * The program reads clocks through the vDSO without entering the kernel;
 * backstep overwrites the vDSO's clock functions with real system calls
 * (engine/core/vdso.h), each a ptrace stop. The library defines the libc
 * functions themselves, which an LD_PRELOAD library overrides for every
 * caller outside libc, and makes the call here: an ordinary call site
 * (`syscall; ret` and padding), which the recorder patches into a jump to
 * a stub like any other, so that from the second call on the clock is read
 * by the library and logged in the thread's buffer, without a stop. */
        .text
        .globl bs_clock_syscall
        .hidden bs_clock_syscall
        .type bs_clock_syscall, @function
        .balign 16
bs_clock_syscall:
        .cfi_startproc
        mov %rdi, %rax
        mov %rsi, %rdi
        mov %rdx, %rsi
        syscall
        ret
        /* The patch's jump takes five bytes: padding, never executed. */
        int3
        int3
        .cfi_endproc
        .size bs_clock_syscall, . - bs_clock_syscall

        .section .note.GNU-stack, "", @progbits
