/* synthprof: a bare x86-64 guest whose calls have a known structure, to check the per-symbol
 * instruction profile (lab/plugin/profile.c, test lab/tests/test_profile.sh).  Like
 * synthlock.S it is a 32-bit multiboot ELF that QEMU runs with -kernel; it enters long mode,
 * marks windows as the runners do (CPUID, EAX = the start or stop leaf, ECX = the window's id;
 * the CPUID itself is outside), then leaves through isa-debug-exit (QEMU exits 1).  Every label
 * in .text that is not local (.L, or a number) is a symbol of the map: prof_main holds the
 * windows' own code, and the functions below it are the symbols counted.
 *
 * What the plugin must count (self = instructions in the symbol; incl = instructions while it
 * is current or a caller on the shadow stack, once each):
 *   window 7: a loop calling prof_outer R = 100 times; prof_outer runs K1 = 50 nops, calls
 *     prof_inner (K2 = 20 nops and a ret) twice, and returns.
 *       prof_main  self 1 + 3R + 2 = 303          incl = the window, 9803
 *       prof_outer self R (K1 + 3) = 5300         incl 5300 + 4200 = 9500
 *       prof_inner self 2R (K2 + 1) = 4200        incl 4200
 *       insns 9803, incl_total 23503, stack_resets 0
 *   window 8: an indirect call (`call *%rax`) of prof_rec, which calls itself to N = 5 deep
 *     (K4 = 10 nops, then dec, jz, call, ret; the deepest dec, jz, ret), then a call of
 *     prof_stop8, which stops the window from inside a call (K5 = 7 nops, mov, mov, CPUID).
 *       prof_main  self 4                         incl = the window, 82
 *       prof_rec   self N (K4 + 4) - 1 = 69       incl 69 (a recursive symbol counts once)
 *       prof_stop8 self K5 + 2 = 9                incl 9
 *       insns 82, incl_total 160, stack_resets 1 (prof_main's frame, at the stop)
 *   window 9: calls of code outside the map: a copy of user_blob (K3 = 8 nops and a ret) at
 *     0x8000, a "user" pc (below the map, below 0xffff800000000000), and another copy at 0x9000
 *     run through the upper half at 0xffff800000009000, a kernel pc outside every symbol (two
 *     copies: QEMU shares a block between the virtual addresses of one physical page, and the
 *     plugin sees the block at its first translation).
 *       prof_main  self 6                         incl 6 + 9 = 15 (not the [user] part: the
 *                                                 stack is emptied there)
 *       [user]     self K3 + 1 = 9                incl 9
 *       [unknown]  self K3 + 1 = 9                incl 9
 *       insns 24, incl_total 33, stack_resets 1
 *   window 10: prof_deep calls itself to D = 70 deep (dec, jz, call, ret; the deepest dec,
 *     jz, ret): 6 frames past the stack's 64, the first of them prof_main's, pushed after 2 of
 *     its instructions and dropped by the 64th call of prof_deep, after 3 x 64 of them.
 *       prof_main  self 4                         incl 4 + 192 = 196
 *       prof_deep  self 4 (D - 1) + 3 = 279       incl 279
 *       insns 283, incl_total 475, stack_resets 0; stack_overflows 6 (the only ones)
 *   window 11: a call of prof_thunk, shaped as a retpoline thunk: it calls its own tail (a frame
 *     that no return pops), which makes its return address prof_inner's (the target, in RAX);
 *     prof_inner returns to prof_main, past prof_thunk's frame (the lookup 4 frames deep).
 *       prof_main  self 4                         incl 4 + 3 + 21 = 28
 *       prof_thunk self 3 (call, mov, ret)        incl 3 + 21 = 24
 *       prof_inner self K2 + 1 = 21               incl 21
 *       insns 28, incl_total 73, stack_resets 0 (both frames popped by the return)
 *   outside any window: a call of prof_outer, not counted.
 * Each window 1 task, on vCPU 0. */
#define LEAF_START 0x4c414231
#define LEAF_STOP 0x4c414230
#define R 100
#define K1 50
#define K2 20
#define K3 8
#define N 5
#define K4 10
#define K5 7
#define D 70

#include "synthpages.S.inc"

	.macro window_start id
	mov $LEAF_START, %eax
	mov $\id, %ecx
	cpuid
	.endm
	.macro window_stop id
	mov $LEAF_STOP, %eax
	mov $\id, %ecx
	cpuid
	.endm

	multiboot_header

	.globl _start
_start:
	mov $stack_top, %esp
	/* The first GiB identity-mapped with 2 MiB pages, and again at 0xffff800000000000. */
	identity_map_1g
	mov $pdpt, %eax
	or $3, %eax
	mov %eax, pml4 + 256 * 8
	long_mode_enter

	.code64
long_mode:
	flat_data_segments
	mov $stack_top, %esp
	/* The code outside the map, at 0x8000 and 0x9000. */
	cld
	mov $user_blob, %esi
	mov $0x8000, %edi
	mov $(user_blob_end - user_blob), %ecx
	rep movsb
	mov $user_blob, %esi
	mov $0x9000, %edi
	mov $(user_blob_end - user_blob), %ecx
	rep movsb
	/* Outside any window: not counted. */
	call prof_outer

	.globl prof_main
prof_main:
	/* window 7 */
	window_start 7
	mov $R, %r12d
1:	call prof_outer
	dec %r12d
	jnz 1b
	window_stop 7

	/* window 8 */
	window_start 8
	mov $N, %edi
	mov $prof_rec, %eax
	call *%rax
	call prof_stop8

	/* window 9 */
	window_start 9
	mov $0x8000, %eax
	call *%rax
	movabs $0xffff800000009000, %rax
	call *%rax
	window_stop 9

	/* window 10 */
	window_start 10
	mov $D, %edi
	call prof_deep
	window_stop 10

	/* window 11 */
	window_start 11
	mov $prof_inner, %eax
	call prof_thunk
	window_stop 11

	mov $0, %al
	out %al, $0xf4
2:	hlt
	jmp 2b

	.globl prof_outer
prof_outer:
	.rept K1
	nop
	.endr
	call prof_inner
	call prof_inner
	ret

	.globl prof_inner
prof_inner:
	.rept K2
	nop
	.endr
	ret

	.globl prof_rec
prof_rec:
	.rept K4
	nop
	.endr
	dec %edi
	jz 1f
	call prof_rec
	ret /* the return address of the call: the deepest returns from its own ret below, since a
	     * jump to a return address would pop as a return */
1:	ret

	.globl prof_stop8
prof_stop8:
	.rept K5
	nop
	.endr
	window_stop 8
	ret

	.globl prof_thunk
prof_thunk:
	call 1f
2:	pause
	jmp 2b
1:	mov %rax, (%rsp)
	ret

	.globl prof_deep
prof_deep:
	dec %edi
	jz 1f
	call prof_deep
	ret
1:	ret

	long_mode_gdt
/* Copied to 0x8000 and 0x9000 and run there: no symbol of the map covers them. */
user_blob:
	.rept K3
	nop
	.endr
	ret
user_blob_end:

	page_tables
	.skip 8192
stack_top:
