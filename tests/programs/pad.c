/* The controllers' input as a program sees it: hid set up as padInitializeDefault does (runtime/horizon/pad.c),
 * then every sample of the Handheld npad read until sample 10, and each change printed with the sample that first
 * showed it. With no input the first sample is the only line; a replayed input log (tests/cli.rs) must show its
 * changes at the samples of the vertical blanks it names: sample n is the one at counter tick 320000 n, as the
 * npads are activated before the first vertical blank. */
#include "pad.h"
#include "tandem.h"

int main(void) {
    pad_open(STYLE_FULL_KEY | STYLE_HANDHELD);
    check(svc_get_system_tick() < 320000, "activated before the first vertical blank");
    uint64_t seen = 0;
    NpadCommonState last;
    memset(&last, 0xff, sizeof last);
    while (seen < 10) {
        svc_sleep_thread(4000000); /* a quarter of a frame: every sample is seen */
        const NpadCommonState *state = newest(&npad(8)->handheld);
        if (!state || state->sampling_number == seen) continue;
        check(state->sampling_number == seen + 1, "no sample missed");
        seen = state->sampling_number;
        if (last.buttons == state->buttons && memcmp(last.stick_l, state->stick_l, 16) == 0) continue;
        last = *state;
        print("sample ");
        print_u64(seen);
        print(": buttons ");
        print_hex(state->buttons);
        print(", left stick ");
        print_i64(state->stick_l[0]);
        print(" ");
        print_i64(state->stick_l[1]);
        print(", right stick ");
        print_i64(state->stick_r[0]);
        print(" ");
        print_i64(state->stick_r[1]);
        print("\n");
    }
    print("pad: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
