// Built into gcc_hello.elf (committed) with:
//   riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -O1 -static -nostdlib -Wl,--build-id=none gcc_hello.c -o gcc_hello.elf
// Prints "hello" through ecall write and exits 0 under qemu-riscv64 and snr.
static const char msg[] = "hello\n";
static long sys(long n, long a, long b, long c) {
  register long a0 asm("a0") = a; register long a1 asm("a1") = b; register long a2 asm("a2") = c; register long a7 asm("a7") = n;
  asm volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}
int data_counter = 3;
long fib(long n) { return n < 2 ? n : fib(n-1) + fib(n-2); }
void _start(void) {
  sys(64, 1, (long)msg, 6);
  long r = fib(10) + data_counter;
  sys(93, r == 58 ? 0 : 1, 0, 0);
  for(;;);
}
