// A program linked statically against the C library (glibc), built -O2:
// main allocates with malloc, sorts with qsort and prints with printf; the
// recorded windows are work(), which sorts and hashes on that heap and on
// qemu-riscv64's own stack, and the library's qsort (rv64gc code:
// compressed instructions) calling back into compare_desc(). This file is
// compiled for rv64imfd, the lp64d ABI the library needs. Build:
//   riscv64-linux-gnu-gcc -march=rv64imfd -mabi=lp64d -static -O2 -fno-tree-loop-distribute-patterns
#include <stdio.h>
#include <stdlib.h>

static const char kWords[] = "the quick brown fox jumps over the lazy dog while snr records it";

static void insertion_sort(unsigned* v, int n) {
  for (int i = 1; i < n; ++i) {
    unsigned key = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > key) {
      v[j + 1] = v[j];
      --j;
    }
    v[j + 1] = key;
  }
}

__attribute__((noinline)) unsigned long work(unsigned* values, int n) {
  unsigned local[64];
  for (int i = 0; i < 64; ++i) local[i] = values[(i * 37) % n] ^ (unsigned char)kWords[i % (sizeof kWords - 1)];
  insertion_sort(local, 64);
  insertion_sort(values, n);
  unsigned long hash = 1469598103934665603UL;
  for (int i = 0; i < n; ++i) hash = (hash ^ values[i]) * 1099511628211UL;
  for (int i = 0; i < 64; ++i) hash = (hash ^ local[i]) * 1099511628211UL;
  return hash;
}

static int compare_desc(const void* a, const void* b) {
  const unsigned x = *(const unsigned*)a, y = *(const unsigned*)b;
  return (x < y) - (x > y);
}

int main(void) {
  const int n = 200;
  unsigned* values = malloc(n * sizeof *values);
  if (values == NULL) return 1;
  unsigned x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    values[i] = x >> 8;
  }
  unsigned copy[200];  // 800 bytes: qsort merges through a buffer on the stack
  for (int i = 0; i < n; ++i) copy[i] = values[(i * 7) % n] ^ (unsigned)i;
  qsort(copy, (size_t)n, sizeof *copy, compare_desc);
  printf("%lx %u\n", work(values, n), copy[0]);
  free(values);
  return 0;
}
