// Whole programs as a compiler makes them (CUDA C compiled to PTX by clang): a shared-memory reduction with warp
// shuffles, a tiled matrix multiply, a colour-grading kernel with clamps and conversions, 64-bit integer hashing.
#define DEVICE __attribute__((device))
#define GLOBAL extern "C" __attribute__((global))
#define SHARED __attribute__((shared))

static DEVICE unsigned tid() { return __nvvm_read_ptx_sreg_tid_x(); }
static DEVICE unsigned block() { return __nvvm_read_ptx_sreg_ctaid_x(); }
static DEVICE unsigned block_size() { return __nvvm_read_ptx_sreg_ntid_x(); }

GLOBAL void reduce_sum(float *out, const float *in, unsigned n) {
  SHARED static float partial[32];
  unsigned i = block() * block_size() + tid();
  float sum = 0.0f;
  for (unsigned k = i; k < n; k += block_size() * __nvvm_read_ptx_sreg_nctaid_x()) sum += in[k];
  for (int offset = 16; offset > 0; offset /= 2) sum += __nvvm_shfl_sync_down_f32(0xffffffff, sum, offset, 31);
  if ((tid() & 31) == 0) partial[tid() / 32] = sum;
  __syncthreads();
  if (tid() < 32) {
    sum = tid() < block_size() / 32 ? partial[tid()] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) sum += __nvvm_shfl_sync_bfly_f32(0xffffffff, sum, offset, 31);
    if (tid() == 0) __nvvm_atom_add_gen_f(out, sum);
  }
}

GLOBAL void matmul(float *c, const float *a, const float *b, int n) {
  SHARED static float ta[16][16];
  SHARED static float tb[16][16];
  int tx = __nvvm_read_ptx_sreg_tid_x(), ty = __nvvm_read_ptx_sreg_tid_y();
  int row = __nvvm_read_ptx_sreg_ctaid_y() * 16 + ty, col = block() * 16 + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += 16) {
    ta[ty][tx] = row < n && t + tx < n ? a[row * n + t + tx] : 0.0f;
    tb[ty][tx] = col < n && t + ty < n ? b[(t + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; k++) acc += ta[ty][k] * tb[k][tx];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc;
}

static DEVICE float clamp01(float x) { return __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f); }

GLOBAL void grade(unsigned *pixels, const float *matrix, float gamma, unsigned count) {
  unsigned i = block() * block_size() + tid();
  if (i >= count) return;
  unsigned p = pixels[i];
  float r = (p & 0xff) / 255.0f, g = ((p >> 8) & 0xff) / 255.0f, b = ((p >> 16) & 0xff) / 255.0f;
  float r2 = clamp01(matrix[0] * r + matrix[1] * g + matrix[2] * b);
  float g2 = clamp01(matrix[3] * r + matrix[4] * g + matrix[5] * b);
  float b2 = clamp01(matrix[6] * r + matrix[7] * g + matrix[8] * b);
  r2 = __nvvm_ex2_approx_f(gamma * __nvvm_lg2_approx_f(r2));
  g2 = __nvvm_ex2_approx_f(gamma * __nvvm_lg2_approx_f(g2));
  b2 = __nvvm_sin_approx_f(b2) + __nvvm_cos_approx_f(g2);
  unsigned ri = (unsigned)__nvvm_f2i_rn(r2 * 255.0f), gi = (unsigned)(g2 * 255.0f), bi = (unsigned)__nvvm_f2ui_rz(b2 * 255.0f);
  pixels[i] = (p & 0xff000000u) | ri | (gi << 8) | (bi << 16);
}

GLOBAL void hash64(unsigned long long *out, const unsigned long long *in, unsigned count) {
  unsigned i = block() * block_size() + tid();
  if (i >= count) return;
  unsigned long long h = in[i] ^ 0xcbf29ce484222325ull;
  for (int round = 0; round < 4; round++) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 29;
    h = (h << 7) | (h >> 57);
  }
  out[i] = h % 1000003ull;
}
