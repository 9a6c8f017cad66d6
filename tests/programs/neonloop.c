/* The vector FP benchmark: 1024 particles in a force field, stepped 10000 times with Advanced SIMD on four singles at
 * a time (FMLA, FMLS, FMUL, FDIV, FADD, FCMGT, BSL), ending in a CRC of the final positions' bits that qemu-aarch64
 * confirms. The values stay normal, as a game's vector maths mostly does: the case the fast path computes natively.
 * Built with FP/SIMD registers (xtask's FP_PROGRAMS); 77.0 M instructions. */
#include <arm_neon.h>

#include "tandem.h"

#define PARTICLES 1024
#define STEPS 10000

static float position_x[PARTICLES], position_y[PARTICLES], velocity_x[PARTICLES], velocity_y[PARTICLES];

int main(void) {
    for (int i = 0; i < PARTICLES; i++) {
        position_x[i] = (float)(i % 61 + 1) * 0.37f - 11.5f;
        position_y[i] = (float)(i % 53 + 1) * 0.41f - 10.7f;
        velocity_x[i] = (float)(i % 7 + 1) * 0.013f;
        velocity_y[i] = (float)(i % 11 + 1) * -0.017f;
    }
    const float32x4_t one = vdupq_n_f32(1.0f), strength = vdupq_n_f32(0.75f);
    const float32x4_t damping = vdupq_n_f32(0.9995f), step = vdupq_n_f32(0.01f);
    const float32x4_t far_out = vdupq_n_f32(60.0f);
    const float32_t turn_values[4] = {0.99995f, 0.0099998f, 0.0f, 0.0f};
    const float32x4_t turn = vld1q_f32(turn_values);
    for (int round = 0; round < STEPS; round++) {
        for (int i = 0; i < PARTICLES; i += 4) {
            float32x4_t x = vld1q_f32(&position_x[i]), y = vld1q_f32(&position_y[i]);
            float32x4_t vx = vld1q_f32(&velocity_x[i]), vy = vld1q_f32(&velocity_y[i]);
            /* A pull towards the origin that weakens with distance: a = -strength * p / (1 + |p|^2). */
            float32x4_t distance = vfmaq_f32(vfmaq_f32(one, x, x), y, y);
            float32x4_t pull = vdivq_f32(strength, distance);
            vx = vmulq_f32(vfmsq_f32(vx, x, vmulq_f32(pull, step)), damping);
            vy = vmulq_f32(vfmsq_f32(vy, y, vmulq_f32(pull, step)), damping);
            x = vfmaq_f32(x, vx, step);
            y = vaddq_f32(y, vmulq_f32(vy, step));
            /* A slight turn of the velocities (a 2x2 rotation) where the particle is far out. */
            float32x4_t turned_x = vfmsq_laneq_f32(vmulq_laneq_f32(vx, turn, 0), vy, turn, 1);
            float32x4_t turned_y = vfmaq_laneq_f32(vmulq_laneq_f32(vy, turn, 0), vx, turn, 1);
            uint32x4_t far = vcgtq_f32(distance, far_out);
            vx = vbslq_f32(far, turned_x, vx);
            vy = vbslq_f32(far, turned_y, vy);
            vst1q_f32(&position_x[i], x);
            vst1q_f32(&position_y[i], y);
            vst1q_f32(&velocity_x[i], vx);
            vst1q_f32(&velocity_y[i], vy);
        }
    }
    uint32_t checksum = 0;
    for (int i = 0; i < PARTICLES; i++) {
        uint32_t x, y;
        __builtin_memcpy(&x, &position_x[i], 4);
        __builtin_memcpy(&y, &position_y[i], 4);
        checksum = __builtin_arm_crc32cw(__builtin_arm_crc32cw(checksum, x), y);
    }
    print("neonloop: ");
    print_u64(PARTICLES);
    print(" particles, ");
    print_u64(STEPS);
    print(" steps, positions crc ");
    print_hex_digits(checksum, 8);
    print("\n");
    return 0;
}
