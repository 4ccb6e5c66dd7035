// System calls inside the recorded window, made with raw ecalls on
// qemu-riscv64's own stack (no libc): write to stdout, brk to grow a heap
// and mmap an anonymous page, both then written and read back; and, before
// them, one call the recorder refuses. Build:
//   riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -static -nostdlib -fno-pie -no-pie -O2
static long syscall3(long number, long a, long b, long c) {
  register long a0 __asm__("a0") = a;
  register long a1 __asm__("a1") = b;
  register long a2 __asm__("a2") = c;
  register long a7 __asm__("a7") = number;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}

static long syscall6(long number, long a, long b, long c, long d, long e, long f) {
  register long a0 __asm__("a0") = a;
  register long a1 __asm__("a1") = b;
  register long a2 __asm__("a2") = c;
  register long a3 __asm__("a3") = d;
  register long a4 __asm__("a4") = e;
  register long a5 __asm__("a5") = f;
  register long a7 __asm__("a7") = number;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5), "r"(a7) : "memory");
  return a0;
}

enum { kWrite = 64, kSchedGetaffinity = 123, kBrk = 214, kMmap = 222, kExit = 93 };

// Decimal digits of `value` and a newline into `out`; returns the length.
static int format_line(char* out, unsigned long value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  for (int i = 0; i < n; ++i) out[i] = digits[n - 1 - i];
  out[n] = '\n';
  return n + 1;
}

__attribute__((noinline)) unsigned long work(int lines) {
  char line[32];
  unsigned long acc = 1;
  long written = 0;
  // A heap page from brk and an anonymous mapping, used as scratch.
  unsigned long* heap = (unsigned long*)syscall3(kBrk, 0, 0, 0);
  syscall3(kBrk, (long)heap + 4096, 0, 0);
  unsigned long* mapped = (unsigned long*)syscall6(kMmap, 0, 4096, 3 /* read|write */, 0x22 /* private|anonymous */, -1, 0);
  for (int i = 0; i < lines; ++i) {
    acc = acc * 2862933555777941757UL + 3037000493UL;
    heap[i % 512] = acc;
    mapped[(i * 7) % 512] = acc >> 3;
    written += syscall3(kWrite, 1, (long)line, format_line(line, acc % 100000));
  }
  unsigned long sum = (unsigned long)written;
  for (int i = 0; i < 512; ++i) sum += heap[i] ^ mapped[i];
  return sum;
}

// A call whose effects the recorder does not know (sched_getaffinity): a
// window that contains it must stop with an error naming it.
__attribute__((noinline)) long refused(void) { return syscall3(kSchedGetaffinity, 0, 0, 0); }

void start_c(void) {
  const long r = refused();  // before work(): its window runs on to the exit
  unsigned long v = work(40) + (unsigned long)r;
  register long a0 __asm__("a0") = (long)(v & 0x7f);
  register long a7 __asm__("a7") = kExit;
  __asm__ volatile("ecall" : : "r"(a0), "r"(a7));
  for (;;) {}
}

// gp for the linker's gp-relative accesses (no C runtime sets it here).
__attribute__((naked, section(".text.start"))) void _start(void) {
  __asm__ volatile(".option push\n .option norelax\n lla gp, __global_pointer$\n .option pop\n call start_c\n");
}
