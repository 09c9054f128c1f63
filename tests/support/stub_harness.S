/* A syscall site's stub, laid out as the recorder writes it
 * (preload_interface.h), with every register loaded from bs_stub_in before
 * it runs and stored into bs_stub_out after, so that a test can compare
 * them. Only RIP-relative memory is used in between: no register is
 * disturbed.
 *
 *   void bs_run_stub(uint64_t misalign)   misalign: 0 or 8, rsp mod 16 at the site
 *
 * Both register blocks: rax rbx rcx rdx rsi rdi rbp r8 r9 r10 r11 r12 r13
 * r14 r15 rflags rsp (rsp: out only, in is the site's rsp, set here).
 * bs_stub_path: 1 when the trampoline returned to R (handled), 2 when it
 * returned to R + BS_STUB_TRACED_DELTA (traced path). */
#include "preload/asm_constants.h"

        .data
        .balign 8
        .globl bs_stub_in, bs_stub_out, bs_stub_path, bs_stub_site_rsp
bs_stub_in:       .space 17 * 8
bs_stub_out:      .space 17 * 8
bs_stub_path:     .quad 0
bs_stub_site_rsp: .quad 0
caller_rsp:       .quad 0
trampoline:       .quad bs_syscall_trampoline

        .text
        .globl bs_run_stub
        .type bs_run_stub, @function
bs_run_stub:
        push %rbx
        push %rbp
        push %r12
        push %r13
        push %r14
        push %r15
        mov %rsp, caller_rsp(%rip)
        and $-16, %rsp
        sub %rdi, %rsp
        mov %rsp, bs_stub_site_rsp(%rip)
        movq $0, bs_stub_path(%rip)
        pushq bs_stub_in + 15 * 8(%rip)
        popfq
        mov bs_stub_in + 0 * 8(%rip), %rax
        mov bs_stub_in + 1 * 8(%rip), %rbx
        mov bs_stub_in + 2 * 8(%rip), %rcx
        mov bs_stub_in + 3 * 8(%rip), %rdx
        mov bs_stub_in + 4 * 8(%rip), %rsi
        mov bs_stub_in + 5 * 8(%rip), %rdi
        mov bs_stub_in + 6 * 8(%rip), %rbp
        mov bs_stub_in + 7 * 8(%rip), %r8
        mov bs_stub_in + 8 * 8(%rip), %r9
        mov bs_stub_in + 9 * 8(%rip), %r10
        mov bs_stub_in + 10 * 8(%rip), %r11
        mov bs_stub_in + 11 * 8(%rip), %r12
        mov bs_stub_in + 12 * 8(%rip), %r13
        mov bs_stub_in + 13 * 8(%rip), %r14
        mov bs_stub_in + 14 * 8(%rip), %r15
        /* The stub. */
        lea -128(%rsp), %rsp
        call *trampoline(%rip)
.Lhandled:
        lea 128(%rsp), %rsp
        movq $1, bs_stub_path(%rip)
        .byte 0xe9                       /* jmp rel32, a fixed size */
        .long .Lstore - (. + 4)
        .if . - .Lhandled > BS_ASM_STUB_TRACED_DELTA
        .error "the handled path is longer than BS_STUB_TRACED_DELTA"
        .endif
        .skip BS_ASM_STUB_TRACED_DELTA - (. - .Lhandled), 0xcc
.Ltraced:
        lea 128(%rsp), %rsp
        movq $2, bs_stub_path(%rip)
.Lstore:
        mov %rax, bs_stub_out + 0 * 8(%rip)
        mov %rbx, bs_stub_out + 1 * 8(%rip)
        mov %rcx, bs_stub_out + 2 * 8(%rip)
        mov %rdx, bs_stub_out + 3 * 8(%rip)
        mov %rsi, bs_stub_out + 4 * 8(%rip)
        mov %rdi, bs_stub_out + 5 * 8(%rip)
        mov %rbp, bs_stub_out + 6 * 8(%rip)
        mov %r8, bs_stub_out + 7 * 8(%rip)
        mov %r9, bs_stub_out + 8 * 8(%rip)
        mov %r10, bs_stub_out + 9 * 8(%rip)
        mov %r11, bs_stub_out + 10 * 8(%rip)
        mov %r12, bs_stub_out + 11 * 8(%rip)
        mov %r13, bs_stub_out + 12 * 8(%rip)
        mov %r14, bs_stub_out + 13 * 8(%rip)
        mov %r15, bs_stub_out + 14 * 8(%rip)
        pushfq
        popq bs_stub_out + 15 * 8(%rip)
        mov %rsp, bs_stub_out + 16 * 8(%rip)
        cld
        mov caller_rsp(%rip), %rsp
        pop %r15
        pop %r14
        pop %r13
        pop %r12
        pop %rbp
        pop %rbx
        ret
        .size bs_run_stub, . - bs_run_stub

        .section .note.GNU-stack, "", @progbits
