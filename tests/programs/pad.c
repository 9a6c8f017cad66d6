/* The controllers' and the touch screen's input as a program sees it: hid set up as padInitializeDefault and
 * hidInitializeTouchScreen do (runtime/horizon/pad.c), then every sample of the Handheld npad and of the touch
 * screen read until sample 10, and each change printed with the sample that first showed it (a finger with its
 * start and end attributes). With no input the first sample is the only line; a replayed input log (tests/cli.rs) must show its
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
    TouchState last_touch;
    memset(&last_touch, 0, sizeof last_touch);
    int32_t last_touches = 0;
    while (seen < 10) {
        svc_sleep_thread(4000000); /* a quarter of a frame: every sample is seen */
        const NpadCommonState *state = newest(&npad(8)->handheld);
        if (!state || state->sampling_number == seen) continue;
        check(state->sampling_number == seen + 1, "no sample missed");
        seen = state->sampling_number;
        const TouchScreenState *touch = newest_touch();
        check(touch && touch->sampling_number == seen && touch->count >= 0 && touch->count <= 1,
              "the touch screen sampled with the npads");
        if (last.buttons != state->buttons || memcmp(last.stick_l, state->stick_l, 16) != 0) {
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
        if (!touch) continue;
        const TouchState *finger = &touch->touches[0];
        int changed = touch->count != last_touches ||
                      (touch->count && (finger->x != last_touch.x || finger->y != last_touch.y ||
                                        finger->attributes != last_touch.attributes));
        if (!changed) continue;
        last_touches = touch->count;
        last_touch = *finger;
        print("sample ");
        print_u64(seen);
        if (touch->count == 0) {
            print(": no touch\n");
            continue;
        }
        print(": touch ");
        print_u64(finger->x);
        print(" ");
        print_u64(finger->y);
        print(finger->attributes & TOUCH_START ? " start" : "");
        print(finger->attributes & TOUCH_END ? " end" : "");
        print("\n");
    }
    print("pad: ");
    print_u64((uint64_t)failures());
    print(" failures\n");
    return failures() == 0 ? 0 : 1;
}
