// Loops from CUDA C (compiled to PTX by clang) with no calls, jump tables or barriers, so that the translator
// lays every block out in structured constructs: nested loops whose trip counts differ across lanes, a continue
// and a break in the inner loop, a goto out of both loops, a return from inside them, a bounded inner while
// and a do-while after them.
#define DEVICE __attribute__((device))
#define GLOBAL extern "C" __attribute__((global))

static DEVICE unsigned lane_tid() { return __nvvm_read_ptx_sreg_tid_x(); }

GLOBAL void loops(int *out, const int *in, int n) {
  unsigned i = lane_tid();
  int x = in[i];
  int acc = x & 0xff;
  int rows = (x >> 8) & 7;
  for (int r = 0; r <= rows; r++) {
    int cols = in[(i + r) % n] & 15;
    for (int c = 0; c < cols; c++) {
      int v = in[(i * 7 + r * 3 + c) % n];
      if ((v & 3) == 0) continue;
      if ((v & 0x7f) == 0x55) goto done;
      if ((v & 0xff) == 0x33) {
        out[i] = acc ^ v;
        return;
      }
      acc = acc * 31 + (v >> 3);
      if (acc > 0x1000000) break;
    }
    acc ^= r << 4;
    for (int s = 0; s < 5 && (acc & 1); s++) acc = (acc >> 1) + 3;
  }
  acc += 0x100;
done:
  int k = x & 31;
  do {
    acc += k * k;
    k -= 3;
  } while (k > 0);
  out[i] = acc;
}
