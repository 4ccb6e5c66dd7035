// A plain RV64IM program for recording from qemu-riscv64's gdbstub: no libc,
// its own stack inside .bss (recordings do not need that: recursion.c uses
// QEMU's stack), a loop of multiplies, divides and remainders over an
// array, and the checksum as the exit status. Build:
//   riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -static -nostdlib -fno-pie -no-pie -Wl,--no-warn-rwx-segments -O2
static unsigned long long data[256];
unsigned char stack_area[16384] __attribute__((aligned(16)));

static unsigned long long mix(unsigned long long x) { return x * 6364136223846793005ULL + 1442695040888963407ULL; }

__attribute__((noinline)) unsigned long long work(int rounds) {
  unsigned long long acc = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 256; ++i) {
      data[i] = mix(data[i] ^ (unsigned long long)(i + r));
      acc += data[i] / (unsigned long long)(i + 3) + data[i] % 7;
    }
  }
  return acc;
}

void start_c(void) {
  unsigned long long v = work(40);
  register long a0 __asm__("a0") = (long)(v & 0x7f);
  register long a7 __asm__("a7") = 93;
  __asm__ volatile("ecall" : : "r"(a0), "r"(a7));
  for (;;) {}
}

__attribute__((naked, section(".text.start"))) void _start(void) {
  __asm__ volatile("lla sp, stack_area\n li t0, 16384\n add sp, sp, t0\n call start_c\n");
}
