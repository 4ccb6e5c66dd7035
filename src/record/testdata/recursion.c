// Deep recursion on qemu-riscv64's own stack (no libc, no stack of its own):
// every level keeps a frame of locals, so the recorded window touches pages
// far apart from the text, at the addresses QEMU gave the process. Build:
//   riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -static -nostdlib -fno-pie -no-pie -O1
__attribute__((noinline)) unsigned long walk(unsigned long depth, unsigned long seed) {
  volatile unsigned long frame[64];  // a large frame, touched at both ends; volatile keeps it on the stack
  frame[0] = seed;
  frame[63] = seed ^ depth;
  if (depth == 0) return seed;
  const unsigned long below = walk(depth - 1, seed * 6364136223846793005UL + 1442695040888963407UL);
  return (below ^ frame[0] ^ (frame[63] >> 3)) % 1000003;
}

__attribute__((noinline)) unsigned long fib(unsigned long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

void start_c(void) {
  unsigned long v = walk(600, 7) + fib(16);
  register long a0 __asm__("a0") = (long)(v & 0x7f);
  register long a7 __asm__("a7") = 93;
  __asm__ volatile("ecall" : : "r"(a0), "r"(a7));
  for (;;) {}
}

// sp is QEMU's initial stack pointer (argc, argv, envp, auxv above it).
// gp for the linker's gp-relative accesses (no C runtime sets it here).
__attribute__((naked, section(".text.start"))) void _start(void) {
  __asm__ volatile(".option push\n .option norelax\n lla gp, __global_pointer$\n .option pop\n call start_c\n");
}
