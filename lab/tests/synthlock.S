/* synthlock: a bare x86-64 guest whose spinlocks have a known length, to check the
 * lock-instruction counter (lab/plugin/lockinsn.c, test lab/tests/test_lockinsn.sh).
 * QEMU loads it as a multiboot kernel (-kernel, a 32-bit ELF); it enters long mode, marks
 * windows as the runners do (CPUID, EAX = the start or stop leaf, ECX = the window's id),
 * takes its locks through a function named like the kernel's entry point and releases them
 * with `movb $0`, as spin_unlock() does; then leaves through isa-debug-exit (QEMU exits 1).
 *
 * What the plugin must count (instructions from the entry point's first to the releasing
 * store, both counted; the entry point is 2 instructions):
 *   window 7: R1 = 1000 sections of 2 + K1 + 1 = 103; the window 4 + R1 * (K1 + 7) = 107004
 *   window 8: R2 = 10 times a nested pair: the outer 79, the inner 2 + K3 + 1 = 23
 *             (outer: 2 + K2 + mov + call + 2 + K3 + store + mov + store = 2+50+1+1+2+20+1+1+1)
 *   window 9: a zero store to another byte inside a section (not a release): 2 + K1 + 2 = 104
 *   outside any window: sections that must not be counted. */
#define LEAF_START 0x4c414231
#define LEAF_STOP 0x4c414230
#define R1 1000
#define K1 100
#define R2 10
#define K2 50
#define K3 20

#include "synthpages.S.inc"

	multiboot_header

	.globl _start
_start:
	mov $stack_top, %esp
	/* The first GiB identity-mapped with 2 MiB pages. */
	identity_map_1g
	long_mode_enter

	.code64
long_mode:
	flat_data_segments
	mov $stack_top, %esp

	/* Outside any window: not counted. */
	mov $lock_a, %edi
	call _raw_spin_lock
	movb $0, (%rdi)

	/* window 7 */
	mov $LEAF_START, %eax
	mov $7, %ecx
	cpuid
	mov $R1, %r12d
	.globl synth_single
synth_single:
	mov $lock_a, %edi
	call _raw_spin_lock
	.rept K1
	nop
	.endr
	movb $0, (%rdi)
	dec %r12d
	jnz synth_single
	mov $LEAF_STOP, %eax
	mov $7, %ecx
	cpuid

	/* window 8 */
	mov $LEAF_START, %eax
	mov $8, %ecx
	cpuid
	mov $R2, %r12d
	.globl synth_nested
synth_nested:
	mov $lock_a, %edi
	call _raw_spin_lock
	.rept K2
	nop
	.endr
	mov $lock_b, %edi
	call _raw_spin_lock
	.rept K3
	nop
	.endr
	movb $0, (%rdi)
	mov $lock_a, %edi
	movb $0, (%rdi)
	dec %r12d
	jnz synth_nested
	mov $LEAF_STOP, %eax
	mov $8, %ecx
	cpuid

	/* window 9 */
	mov $LEAF_START, %eax
	mov $9, %ecx
	cpuid
	.globl synth_other_store
synth_other_store:
	mov $lock_a, %edi
	call _raw_spin_lock
	movb $0, 1(%rdi)
	.rept K1
	nop
	.endr
	movb $0, (%rdi)
	mov $LEAF_STOP, %eax
	mov $9, %ecx
	cpuid

	mov $0, %al
	out %al, $0xf4
2:	hlt
	jmp 2b

	.globl _raw_spin_lock
_raw_spin_lock:
	movb $1, (%rdi)
	ret

	long_mode_gdt
lock_a:
	.quad 0
lock_b:
	.quad 0

	page_tables
	.skip 8192
stack_top:
