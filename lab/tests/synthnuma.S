/* synthnuma: a bare 4-vCPU x86-64 guest whose cache-line traffic is known, to check a cost
 * plugin's NUMA charges (test lab/tests/test_synthnuma.sh).  Like synthlock.S it is a 32-bit
 * multiboot ELF that QEMU runs with -kernel; the BSP wakes the three APs (INIT-SIPI-SIPI through
 * the local APIC), every vCPU enters long mode with the same page tables and its own stack, and
 * all run the scenarios below in order, separated by barriers that lie outside every window.
 * Each vCPU that takes part in a scenario marks the window itself (CPUID, EAX = the start or stop
 * leaf, ECX = the window's id), as the runners do per task.  vCPU i is the one whose APIC id is
 * i: on -smp 4 (4 sockets, or 2 sockets x 2 cores) these are QEMU's cpu indexes 0..3, so with
 * -numa node,cpus=0-1 / node,cpus=2-3, vCPUs 0 and 1 share a node and vCPU 2 is on the other.
 *
 * What each window holds (R = 1000):
 *   window 1 (vCPU 0): R CPUIDs of the stall leaf with ECX = N = 500: a charge of R * N.
 *   window 2 (vCPU 0): the same with ECX = 0: no charge (same instructions as window 1).
 *   window 3 (vCPU 0): R `lock incl` of one line: R locked RMWs, 0 transfers (one vCPU).
 *   window 4 (vCPUs 0, 1): ping-pong on line T by `lock cmpxchg`: each side R successful
 *             passes, so the turn (and the line) changes hands 2R = 2000 times (give or take the
 *             first), within node 0; failed attempts (each one locked RMW) pause and retry.
 *   window 5 (vCPUs 0, 2): the same on line T2, across the two nodes.
 *   window 6 (all 4): R `lock incl` each, on 4 counters 64 bytes apart: 4R RMWs, no sharing.
 *   window 7 (all 4): the same on 4 counters packed in one line: 4R RMWs on one line (false
 *             sharing: from 3 transfers, when the vCPUs run one after another as under
 *             round-robin TCG, up to 4R when they interleave finely).
 *   window 8 (all 4): R8 = 200 acquisitions each of the test-and-set lock L in
 *             `_raw_spin_lock`, a section of S = 100 instructions (`incl D` + 99 nops), the
 *             release `movb $0` (as spin_unlock): 800 sections; uncontended, 3 + S + 1 = 104
 *             instructions from the entry point to the releasing store, both counted.
 * Instructions per vCPU and window, as lab/plugin/lockinsn.c counts them (the start CPUID to the
 * stop's): windows 1, 2: 5004; 3: 3005; 6, 7: 3004; 8 uncontended: 21604; 4, 5: as many as the
 * failed attempts make.  Under round-robin TCG (-icount) a vCPU gives way only at `pause` (QEMU
 * ends its turn there) or at the end of its time slice: windows 6 to 8 then run one vCPU after
 * another, without contention; the ping-pongs alternate at every pass.
 * Output on the debug console (port 0xe9, -debugcon): vCPU 0 prints "wN tsc=T" after each
 * window, T its TSC delta from just before its start CPUID to just after its stop CPUID; at the
 * end "counters p=4000 k=4000 d=800" (the padded and packed sums and D: the program's own check),
 * then it leaves through isa-debug-exit (QEMU exits 1).  If an AP does not come up, it prints
 * "ap start failed up=N" and exits with 1 written (QEMU exits 3). */
#define LEAF_START 0x4c414231
#define LEAF_STOP 0x4c414230
#define LEAF_STALL 0x4c414232
#define NCPU 4
#define R 1000
#define N 500
#define R8 200
#define S 100
#define STACK_SIZE 8192
#define TRAMP 0x8000 /* the APs' real-mode start: below 1 MiB, 4 KiB aligned (SIPI vector 8) */
#define APIC_ICR_LO 0xfee00300
#define APIC_ICR_HI 0xfee00310
#define ICR_INIT 0x000c4500 /* all excluding self, level assert, INIT */
#define ICR_SIPI (0x000c4600 | (TRAMP >> 12)) /* all excluding self, start-up at TRAMP */
#define AP_WAIT (1 << 24) /* pause iterations the BSP waits for the APs before giving up */

/* A window's start, its TSC read just before (r13): clobbers rax, rbx, rcx, rdx. */
.macro WSTART id
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	mov %rax, %r13
	mov $LEAF_START, %eax
	mov $\id, %ecx
	cpuid
.endm
/* Its stop, the TSC read just after; vCPU 0 then prints the delta (outside the window). */
.macro WSTOP id
	mov $LEAF_STOP, %eax
	mov $\id, %ecx
	cpuid
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	sub %r13, %rax
	mov $\id, %edi
	call report
.endm
/* R CPUIDs of the stall leaf asking for n.  (Labels in macros are .L...\@: a numeric one
 * would capture the callers' `jnz 1f`.) */
.macro STALLS n
	mov $R, %r12d
.Lstall\@:
	mov $LEAF_STALL, %eax
	mov $\n, %ecx
	cpuid
	dec %r12d
	jnz .Lstall\@
.endm
/* cnt `lock incl` of the counter at rdi. */
.macro LOCKINCS cnt
	mov $\cnt, %r12d
.Linc\@:
	lock incl (%rdi)
	dec %r12d
	jnz .Linc\@
.endm
/* A ping-pong between vCPU 0 (k = 0) and vCPU partner (k = 1) on the line at `line`. */
.macro PINGPONG id, partner, line
	xor %esi, %esi
	test %r15d, %r15d
	jz .Lpp\@
	mov $1, %esi
	cmp $\partner, %r15d
	jne .Lpp_out\@ /* not taking part: straight to the barrier */
.Lpp\@:
	WSTART \id
	mov $\line, %edi
	call pingpong
	WSTOP \id
.Lpp_out\@:
	call barrier
.endm

#include "synthpages.S.inc"

	multiboot_header

	.globl _start
_start:
	/* The BSP, in flat 32-bit protected mode without paging (multiboot), on vCPU 0's stack
	 * (the calls below need one; multiboot leaves ESP undefined).  The page tables
	 * first: the APs use them as soon as they are awake.  The first GiB identity-mapped
	 * with 2 MiB pages (the local APIC, above it, is only touched before paging is on). */
	mov $(stacks + STACK_SIZE), %esp
	identity_map_1g
	/* The trampoline where the SIPI sends the APs. */
	mov $tramp_start, %esi
	mov $TRAMP, %edi
	mov $(tramp_end - tramp_start), %ecx
	cld
	rep movsb
	/* INIT, a wait, then two SIPIs (the architected sequence: an AP already started by the
	 * first ignores the second, which is there for one that missed it).  The destination is
	 * the "all excluding self" shorthand, so ICR high (the destination field) is unused.
	 * The waits spin with `pause`, which under round-robin TCG hands the host thread to the
	 * next vCPU, so the APs get to take the INIT and the SIPI. */
	movl $0, APIC_ICR_HI
	movl $ICR_INIT, APIC_ICR_LO
	call icr_wait
	mov $1000, %ecx
	call delay
	movl $ICR_SIPI, APIC_ICR_LO
	call icr_wait
	mov $100, %ecx
	call delay
	movl $ICR_SIPI, APIC_ICR_LO
	call icr_wait
	jmp to_long

/* The ICR's delivery status (bit 12) back to idle: the IPI has been sent. */
icr_wait:
	pause
	testl $0x1000, APIC_ICR_LO
	jnz icr_wait
	ret
/* ecx pauses. */
delay:
	pause
	dec %ecx
	jnz delay
	ret

/* Both the BSP and the APs (from ap_pm), in 32-bit protected mode: to long mode. */
to_long:
	long_mode_enter

/* The APs' trampoline, copied to TRAMP: the SIPI starts an AP in real mode at CS:IP =
 * (TRAMP >> 4):0.  It only gets to 32-bit protected mode; the rest runs at the image's own
 * addresses, which a flat 32-bit code segment reaches. */
	.code16
tramp_start:
	cli
	/* DS = CS, so that the GDT pointer below is addressed by its offset in the trampoline. */
	mov %cs, %ax
	mov %ax, %ds
	/* The 32-bit form of lgdt: the GDT lies above 1 MiB, out of reach of a 24-bit base. */
	lgdtl tramp_gdtr - tramp_start
	mov %cr0, %eax
	or $1, %eax /* PE */
	mov %eax, %cr0
	/* A far jump loads CS from the GDT (32-bit flat code); 32-bit offset: ap_pm > 64 KiB. */
	ljmpl $0x18, $ap_pm
	.align 4
tramp_gdtr:
	.word gdt_end - gdt - 1
	.long gdt
tramp_end:

	.code32
ap_pm:
	/* Flat data segments (the real-mode ones have a 64 KiB limit), then as the BSP. */
	flat_data_segments
	jmp to_long

	.code64
long_mode:
	flat_data_segments
	/* Who am I: the initial APIC id, CPUID leaf 1 EBX[31:24]; it picks the stack. */
	mov $1, %eax
	cpuid
	shr $24, %ebx
	cmp $NCPU, %ebx
	jae park /* not a vCPU this program knows: the BSP will give up waiting for it */
	mov %ebx, %r15d /* r15: this vCPU's index, for good */
	lea 1(%rbx), %eax
	imul $STACK_SIZE, %eax
	add $stacks, %eax
	mov %eax, %esp
	xor %r14d, %r14d /* r14: this vCPU's barrier sense */
	test %r15d, %r15d
	jz 1f
	lock incl ap_up(%rip)
	jmp 2f
1:	call wait_aps
2:	call barrier

	/* window 1: the stall leaf asking for N, vCPU 0 alone. */
	test %r15d, %r15d
	jnz 1f
	WSTART 1
	STALLS N
	WSTOP 1
1:	call barrier

	/* window 2: the same asking for nothing. */
	test %r15d, %r15d
	jnz 1f
	WSTART 2
	STALLS 0
	WSTOP 2
1:	call barrier

	/* window 3: locked RMWs on a line nobody else touches. */
	test %r15d, %r15d
	jnz 1f
	WSTART 3
	mov $line3, %edi
	LOCKINCS R
	WSTOP 3
1:	call barrier

	/* windows 4 and 5: ping-pong within a node, then across nodes. */
	PINGPONG 4, 1, turn_t
	PINGPONG 5, 2, turn_t2

	/* window 6: padded, a line per vCPU. */
	mov %r15d, %edi
	shl $6, %edi
	add $padded, %edi
	WSTART 6
	LOCKINCS R
	WSTOP 6
	call barrier

	/* window 7: packed, 4-byte counters in one line. */
	lea packed(,%r15,4), %edi
	WSTART 7
	LOCKINCS R
	WSTOP 7
	call barrier

	/* window 8: a spinlock taken R8 times by every vCPU. */
	WSTART 8
	mov $R8, %r12d
	.globl synth_section
synth_section:
	mov $lock_l, %edi
	call _raw_spin_lock
	incl data_d(%rip) /* plain: the lock protects it */
	.rept S - 1
	nop
	.endr
	movb $0, (%rdi)
	dec %r12d
	jnz synth_section
	WSTOP 8
	call barrier

	test %r15d, %r15d
	jnz park
	mov $s_counters, %esi
	call puts
	xor %eax, %eax
	xor %ecx, %ecx
	mov $padded, %edi
1:	mov (%rdi,%rcx,8), %edx /* the counter of vCPU c is 64 = 8 * 8 bytes on */
	add %rdx, %rax
	add $8, %ecx
	cmp $(8 * NCPU), %ecx
	jne 1b
	call putdec
	mov $s_packed, %esi
	call puts
	mov packed(%rip), %eax
	add packed + 4(%rip), %eax
	add packed + 8(%rip), %eax
	add packed + 12(%rip), %eax
	call putdec
	mov $s_data, %esi
	call puts
	mov data_d(%rip), %eax
	call putdec
	mov $'\n', %al
	out %al, $0xe9
	xor %eax, %eax
exit:
	out %al, $0xf4 /* isa-debug-exit: QEMU exits with (al << 1) | 1 */
park:
	cli
	hlt
	jmp park

/* The BSP waits (a bounded while) for the 3 APs to reach long mode; else says so and leaves. */
wait_aps:
	mov $AP_WAIT, %ecx
1:	cmpl $(NCPU - 1), ap_up(%rip)
	je 2f
	pause
	dec %ecx
	jnz 1b
	mov $s_apfail, %esi
	call puts
	mov ap_up(%rip), %eax
	call putdec
	mov $'\n', %al
	out %al, $0xe9
	mov $1, %al
	jmp exit
2:	ret

/* A sense-reversing barrier for the NCPU vCPUs: the last to arrive resets the count, then
 * flips the shared sense; the others spin (reading, with `pause`) until it is flipped. */
barrier:
	xor $1, %r14d
	mov $1, %eax
	lock xadd %eax, bar_count(%rip)
	cmp $(NCPU - 1), %eax
	jne 1f
	movl $0, bar_count(%rip) /* before the sense: TSO keeps the order */
	mov %r14d, bar_sense(%rip)
	ret
1:	pause
	cmp %r14d, bar_sense(%rip)
	jne 1b
	ret

/* R passes of the turn at rdi: wait until it is k (esi), hand it to 1 - k; each attempt is one
 * locked RMW, a failed one pauses. */
pingpong:
	mov $R, %r12d
1:	mov %esi, %eax
	mov %esi, %ecx
	xor $1, %ecx
	lock cmpxchg %ecx, (%rdi)
	je 2f
	pause
	jmp 1b
2:	dec %r12d
	jnz 1b
	ret

/* Takes the test-and-set lock at rdi; while it is held, spins reading it (plain loads and
 * `pause`, no locked traffic) until it reads free, then tries again.  Named as the kernel's
 * entry point, so that a plugin finding `_raw_spin_lock` in the map sees the acquisitions;
 * the retry does not go back through the entry (once per acquisition, as in the kernel,
 * whose spinning is in a slow path). */
	.globl _raw_spin_lock
_raw_spin_lock:
	lock btsl $0, (%rdi)
	jc 1f
	ret
1:	pause
	movzbl (%rdi), %eax
	test %eax, %eax
	jnz 1b
	lock btsl $0, (%rdi)
	jc 1b
	ret

/* vCPU 0 prints "w<edi> tsc=<rax>\n"; the others print nothing. */
report:
	test %r15d, %r15d
	jnz 1f
	push %rax
	mov $'w', %al
	out %al, $0xe9
	lea '0'(%rdi), %eax
	out %al, $0xe9
	mov $s_tsc, %esi
	call puts
	pop %rax
	call putdec
	mov $'\n', %al
	out %al, $0xe9
1:	ret

/* The NUL-terminated string at rsi. */
puts:
	lodsb
	test %al, %al
	jz 1f
	out %al, $0xe9
	jmp puts
1:	ret

/* rax in decimal: the digits pushed least significant first, printed as they are popped. */
putdec:
	mov $10, %ecx
	xor %r8d, %r8d
1:	xor %edx, %edx
	div %rcx
	push %rdx
	inc %r8d
	test %rax, %rax
	jnz 1b
2:	pop %rax
	add $'0', %al
	out %al, $0xe9
	dec %r8d
	jnz 2b
	ret

	.data
	.align 8
gdt:
	.quad 0
	.quad 0x00209a0000000000 /* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff /* 0x10: data, flat 4 GiB (the APs use it in 32-bit mode too) */
	.quad 0x00cf9a000000ffff /* 0x18: 32-bit code, flat 4 GiB: the APs' way out of real mode */
gdt_end:
gdtr:
	.word gdt_end - gdt - 1
	.long gdt
s_tsc:	.asciz " tsc="
s_counters: .asciz "counters p="
s_packed: .asciz " k="
s_data:	.asciz " d="
s_apfail: .asciz "ap start failed up="

/* Every shared word on a line of its own, so that only the traffic meant is there. */
	.align 64
ap_up:	.long 0
	.align 64
bar_count: .long 0
	.align 64
bar_sense: .long 0
	.align 64
line3:	.long 0
	.align 64
turn_t:	.long 0
	.align 64
turn_t2: .long 0
	.align 64
padded:	.skip 64 * NCPU
packed:	.skip 64
lock_l:	.skip 64
data_d:	.skip 64

	page_tables
stacks:	.skip STACK_SIZE * NCPU
