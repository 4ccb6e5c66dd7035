/* Compiled code for the differential test: loops, calls, arrays, mixed
   signed/unsigned arithmetic. Writes its results to stdout and exits. */
typedef unsigned long u64;
typedef long i64;

static i64 results[32];

static long sys3(long n, long a, long b, long c) {
  register long a0 __asm__("a0") = a;
  register long a1 __asm__("a1") = b;
  register long a2 __asm__("a2") = c;
  register long a7 __asm__("a7") = n;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}

__attribute__((noinline)) static i64 collatz_steps(u64 n) {
  i64 steps = 0;
  while (n != 1) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    ++steps;
  }
  return steps;
}

__attribute__((noinline)) static u64 hash(const unsigned char* p, int len) {
  u64 h = 0xcbf29ce484222325UL;
  for (int i = 0; i < len; ++i) h = (h ^ p[i]) * 0x100000001b3UL;
  return h;
}

__attribute__((noinline)) static i64 divmix(volatile i64* v, int n) {
  i64 acc = 0;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      acc += v[i] / (v[j] | 1) + v[i] % (v[j] | 1);
      acc ^= (i64)((u64)v[i] / ((u64)v[j] + 3));
      acc += (int)v[i] / ((int)v[j] | 1);
    }
  }
  return acc;
}

void c_main(void) {
  static volatile i64 values[8] = {-7, 13, 0x7fffffffffffffffL, -0x7fffffffffffffffL - 1, 1, -1, 1000003, 42};
  static unsigned char text[64];
  for (int i = 0; i < 64; ++i) text[i] = (unsigned char)(i * 37 + 11);
  results[0] = collatz_steps(27);
  results[1] = collatz_steps(837799);
  results[2] = (i64)hash(text, 64);
  results[3] = divmix(values, 8);
  i64 prod = 1;
  for (int i = 1; i < 25; ++i) prod = prod * i + (prod >> 7);
  results[4] = prod;
  u64 mh = 0;
  for (int i = 0; i < 8; ++i) mh += (u64)(((__int128)values[i] * values[(i + 3) % 8]) >> 64);
  results[5] = (i64)mh;
  sys3(64, 1, (long)results, sizeof(results));
  sys3(93, 0, 0, 0);
}

__asm__(
    ".globl _start\n"
    "_start:\n"
    "  la sp, c_stack_top\n"
    "  call c_main\n"
    "1: j 1b\n"
    ".bss\n"
    ".balign 16\n"
    "c_stack: .space 8192\n"
    "c_stack_top:\n"
    ".text\n");
