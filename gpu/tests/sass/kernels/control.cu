// Control flow from CUDA C (compiled to PTX by clang): divergent if/else, loops with break and continue, early
// exits, calls to functions that are not inlined (including recursion), an indirect branch through a switch,
// traps and barriers.
#define DEVICE __attribute__((device))
#define GLOBAL extern "C" __attribute__((global))
#define NOINLINE __attribute__((noinline))

static DEVICE unsigned lane_tid() { return __nvvm_read_ptx_sreg_tid_x(); }

static DEVICE NOINLINE int collatz_steps(int n) {
  int steps = 0;
  while (n != 1) {
    if (steps > 1000) break;
    n = (n & 1) ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}

static DEVICE NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

GLOBAL void control(int *out, const int *in, int n) {
  unsigned i = lane_tid();
  int x = in[i];
  if (x < 0) {
    out[i] = -1;
    return;
  }
  int acc = 0;
  for (int k = 0; k < n; k++) {
    int v = in[k];
    if (v == x) continue;
    if (v > 1000000) break;
    if (v & 1) {
      acc += v * x;
    } else {
      acc ^= v >> 1;
    }
  }
  switch (x & 7) {
    case 0: acc += 11; break;
    case 1: acc *= 13; break;
    case 2: acc -= 17; break;
    case 3: acc ^= 19; break;
    case 4: acc |= 23; break;
    case 5: acc &= 29; break;
    case 6: acc += collatz_steps(x); break;
    default: acc += fib(x & 15); break;
  }
  if (acc == 0x7fffffff) __builtin_trap();
  __syncthreads();
  out[i] = acc;
}
