/* hid's shared memory as libnx's structs lay it out (switch/services/hid.h: HidSharedMemory, HidNpadInternalState,
 * HidNpadCommonLifo), written out independently of Tandem's, and a client that sets the npads up as libnx's
 * padInitializeDefault does. */
#ifndef TANDEM_PAD_H
#define TANDEM_PAD_H

#include "horizon.h"

#define HID_MEMORY ((uint8_t *)0x4000000000ull)
#define HID_SIZE 0x40000u

/* HidNpadStyleTag, HidNpadIdType, HidNpadAttribute, HidDeviceTypeBits. */
#define STYLE_FULL_KEY 1u
#define STYLE_HANDHELD 2u
#define NPAD_NO1 0u
#define NPAD_HANDHELD 0x20u
#define ATTRIBUTE_IS_CONNECTED 1u
#define DEVICE_FULL_KEY 1u
#define DEVICE_HANDHELD_LEFT_RIGHT 0xCu

typedef struct {
    uint64_t unused, buffer_count, tail, count;
} LifoHeader;

typedef struct {
    uint64_t sampling_number;
    uint64_t buttons;
    int32_t stick_l[2], stick_r[2];
    uint32_t attributes, reserved;
} NpadCommonState;

typedef struct {
    uint64_t sampling_number;
    NpadCommonState state;
} NpadCommonStorage;

typedef struct {
    LifoHeader header;
    NpadCommonStorage storage[17];
} NpadCommonLifo;

_Static_assert(sizeof(NpadCommonLifo) == 0x350, "HidNpadCommonLifo");

/* HidNpadInternalState, as far as padUpdate reads it: style set, assignment mode, colours, seven common lifos. */
typedef struct {
    uint32_t style_set, joy_assignment_mode;
    uint8_t colors[0x20];
    NpadCommonLifo full_key, handheld, joy_dual, joy_left, joy_right, palma, system_ext;
} NpadState;

/* HidSharedMemory.npad: 10 entries of 0x5000 bytes at 0x9A00 (No1-No8, Handheld, Other). */
static inline const NpadState *npad(uint32_t entry) {
    return (const NpadState *)(HID_MEMORY + 0x9A00 + 0x5000 * entry);
}

/* libnx's _hidGetStates for the newest entry: the one at tail, its two sampling numbers equal; 0 if none. */
static inline const NpadCommonState *newest(const NpadCommonLifo *lifo) {
    if (lifo->header.count == 0) return 0;
    const NpadCommonStorage *entry = &lifo->storage[lifo->header.tail % 17];
    return entry->sampling_number == entry->state.sampling_number ? &entry->state : 0;
}

/* HidTouchState, HidTouchScreenState, HidTouchScreenLifo: the touch screen's section at 0x400. */
#define TOUCH_START 1u
#define TOUCH_END 2u

typedef struct {
    uint64_t delta_time;
    uint32_t attributes, finger_id, x, y, diameter_x, diameter_y, rotation_angle, reserved;
} TouchState;

typedef struct {
    uint64_t sampling_number;
    int32_t count;
    uint32_t reserved;
    TouchState touches[16];
} TouchScreenState;

typedef struct {
    uint64_t sampling_number;
    TouchScreenState state;
} TouchScreenStorage;

typedef struct {
    LifoHeader header;
    TouchScreenStorage storage[17];
} TouchScreenLifo;

_Static_assert(sizeof(TouchScreenLifo) == 0x2C38, "HidTouchScreenLifo");

/* The touch screen's newest entry, as `newest` reads an npad's. */
static inline const TouchScreenState *newest_touch(void) {
    const TouchScreenLifo *lifo = (const TouchScreenLifo *)(HID_MEMORY + 0x400);
    if (lifo->header.count == 0) return 0;
    const TouchScreenStorage *entry = &lifo->storage[lifo->header.tail % 17];
    return entry->sampling_number == entry->state.sampling_number ? &entry->state : 0;
}

/* hid, its shared memory mapped at HID_MEMORY, `styles` supported on No1 and Handheld, the npads and the touch
 * screen activated. */
void pad_open(uint32_t styles);

#endif
