//! hid's shared memory: the layout libnx's `HidSharedMemory` (switch/services/hid.h) describes and programs read
//! directly, and what Tandem writes into its npad section.
//!
//! Each npad (10 entries of 0x5000 bytes from 0x9a00: No1-No8, Handheld, Other) holds its style set and colours,
//! then a lifo per style: a header {unused, buffer count 17, tail, count} and 17 entries of {sampling number,
//! state}, the state repeating the sampling number (a reader that sees the two differ knows it read a torn entry).
//! The newest entry is at `tail`; `count` grows to 16 (one entry is always being written). The touch screen's
//! section (at 0x400) is one lifo of the same kind, each entry {sampling number, HidTouchScreenState {sampling
//! number, count, reserved, 16 HidTouchState}}.

use super::InputState;
use crate::service::ServiceSharedMemory;

pub const SIZE: usize = 0x40000;

/// `HidNpadStyleTag` bits.
pub const STYLE_FULL_KEY: u32 = 1 << 0;
pub const STYLE_HANDHELD: u32 = 1 << 1;

const TOUCH_SECTION: usize = 0x400;
const TOUCH_ENTRY: usize = 0x298;
/// `HidTouchState` {u64 delta time, u32 attributes, u32 finger id, u32 x, u32 y, u32 diameter x, u32 diameter y,
/// u32 rotation angle, u32 reserved}, after the state's {u64 sampling number, s32 count, u32 reserved}.
const TOUCH_STATE: usize = 0x18;
/// `HidTouchAttribute`: the finger came down, or went up, at this sample.
const TOUCH_START: u32 = 1;
const TOUCH_END: u32 = 2;
/// A mouse pointer touches one pixel.
const TOUCH_DIAMETER: u32 = 1;
/// Between two samples (the vertical blanks), in nanoseconds.
const SAMPLE_INTERVAL_NS: u64 = 1_000_000_000 / 60;
const NPAD_SECTION: usize = 0x9a00;
const NPAD_ENTRY: usize = 0x5000;

/// `HidNpadInternalState` fields.
const STYLE_SET: usize = 0x0;
const JOY_ASSIGNMENT_MODE: usize = 0x4;
const FULL_KEY_COLOR: usize = 0x8;
const FULL_KEY_LIFO: usize = 0x28;
const HANDHELD_LIFO: usize = 0x378;
const DEVICE_TYPE: usize = 0x4188;
const SYSTEM_PROPERTIES: usize = 0x4190;
const BATTERY_LEVEL: usize = 0x419c;
const APPLET_FOOTER_UI_TYPE: usize = 0x41ac;

const LIFO_HEADER: usize = 0x20;
pub const LIFO_ENTRIES: u64 = 17;
/// {u64 sampling number, HidNpadCommonState {u64 sampling number, u64 buttons, stick L, stick R, u32 attributes,
/// u32 reserved}}.
const LIFO_ENTRY: usize = 0x30;

/// `HidNpadAttribute`: connected, and both Joy-Con (or the controller's two halves) connected.
const ATTRIBUTES_CONNECTED: u32 = 1 << 0 | 1 << 2 | 1 << 4;
/// `HidDeviceTypeBits`.
const DEVICE_FULL_KEY: u32 = 1 << 0;
const DEVICE_HANDHELD: u32 = 1 << 2 | 1 << 3;
/// `HidNpadSystemProperties`: powered (bits 3-5, one per controller half), ABXY oriented (11), plus and minus
/// available (13, 14), directional buttons available (15).
const SYSTEM_PROPERTIES_VALUE: u64 = 0b111 << 3 | 1 << 11 | 1 << 13 | 1 << 14 | 1 << 15;
/// `HidAppletFooterUiType`: HandheldJoyConLeftJoyConRight and SwitchProController.
const FOOTER_HANDHELD: u8 = 4;
const FOOTER_PRO_CONTROLLER: u8 = 12;
/// `HidColorAttribute_ReadError`: Tandem has no controller colours to report.
const COLOR_READ_ERROR: u32 = 1;
/// The console's battery levels run 0 to 4.
const BATTERY_FULL: u32 = 4;

/// `HidNpadIdType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NpadId {
    No1,
    No2,
    No3,
    No4,
    No5,
    No6,
    No7,
    No8,
    Other,
    Handheld,
}

impl NpadId {
    pub fn from_u32(id: u32) -> Option<NpadId> {
        use NpadId::*;
        Some(match id {
            0..=7 => [No1, No2, No3, No4, No5, No6, No7, No8][id as usize],
            0x10 => Other,
            0x20 => Handheld,
            _ => return None,
        })
    }

    /// The npad section's entry: No1-No8 first, then Handheld, then Other.
    fn entry(self) -> usize {
        use NpadId::*;
        match self {
            No1 => 0,
            No2 => 1,
            No3 => 2,
            No4 => 3,
            No5 => 4,
            No6 => 5,
            No7 => 6,
            No8 => 7,
            Handheld => 8,
            Other => 9,
        }
    }

    fn base(self) -> usize {
        NPAD_SECTION + self.entry() * NPAD_ENTRY
    }
}

/// Where the npads' and the touch screen's next samples go.
#[derive(Default)]
pub struct SharedMemoryWriter {
    /// The last sampling number written (the first sample is 1).
    sampling_number: u64,
    /// Where the finger was at the last touch sample.
    last_touch: Option<(u32, u32)>,
}

impl SharedMemoryWriter {
    /// Writes who is connected: each npad's style set, assignment mode, colours, device type, power and footer;
    /// the npads not in `connected` are cleared.
    pub fn connect(&mut self, memory: &ServiceSharedMemory, connected: &[(NpadId, u32)]) {
        for id in [NpadId::No1, NpadId::Handheld] {
            let base = id.base();
            let style = connected.iter().find(|&&(c, _)| c == id).map(|&(_, style)| style);
            let Some(style) = style else {
                memory.write(base + STYLE_SET, &0u32.to_le_bytes());
                memory.write(base + DEVICE_TYPE, &0u32.to_le_bytes());
                continue;
            };
            let handheld = style == STYLE_HANDHELD;
            memory.write(base + STYLE_SET, &style.to_le_bytes());
            // Dual: the two Joy-Con act as one controller.
            memory.write(base + JOY_ASSIGNMENT_MODE, &0u32.to_le_bytes());
            // HidNpadFullKeyColorState {attribute, main, sub} and HidNpadJoyColorState {attribute, left, right}.
            let mut colors = [0u8; 32];
            colors[..4].copy_from_slice(&COLOR_READ_ERROR.to_le_bytes());
            colors[12..16].copy_from_slice(&COLOR_READ_ERROR.to_le_bytes());
            memory.write(base + FULL_KEY_COLOR, &colors);
            let device = if handheld { DEVICE_HANDHELD } else { DEVICE_FULL_KEY };
            memory.write(base + DEVICE_TYPE, &device.to_le_bytes());
            memory.write(base + SYSTEM_PROPERTIES, &SYSTEM_PROPERTIES_VALUE.to_le_bytes());
            for half in 0..3 {
                memory.write(base + BATTERY_LEVEL + 4 * half, &BATTERY_FULL.to_le_bytes());
            }
            let footer = if handheld { FOOTER_HANDHELD } else { FOOTER_PRO_CONTROLLER };
            memory.write(base + APPLET_FOOTER_UI_TYPE, &[footer]);
        }
    }

    /// The lifo headers and sampling number as `samples` samples of `input` would leave them, without their
    /// entries: the next `LIFO_ENTRIES` samples overwrite every entry anyway (for idle jumps of more frames than
    /// that).
    pub fn skip(
        &mut self,
        memory: &ServiceSharedMemory,
        connected: &[(NpadId, u32)],
        touch: bool,
        input: &InputState,
        samples: u64,
    ) {
        if samples == 0 {
            return;
        }
        self.sampling_number += samples;
        self.last_touch = input.touch;
        for &(id, style) in connected {
            advance_lifo(memory, lifo(id, style), samples);
        }
        if touch {
            advance_lifo(memory, TOUCH_SECTION, samples);
        }
    }

    /// One new entry in the lifo of each connected npad's style, and of the touch screen when `touch`, holding
    /// `input`.
    pub fn sample(
        &mut self,
        memory: &ServiceSharedMemory,
        connected: &[(NpadId, u32)],
        touch: bool,
        input: &InputState,
    ) {
        self.sampling_number += 1;
        let number = self.sampling_number;
        for &(id, style) in connected {
            let lifo = lifo(id, style);
            let tail = advance_lifo(memory, lifo, 1);
            let mut entry = [0u8; LIFO_ENTRY];
            entry[..8].copy_from_slice(&number.to_le_bytes());
            entry[8..16].copy_from_slice(&number.to_le_bytes());
            entry[16..24].copy_from_slice(&(input.buttons | stick_buttons(input)).to_le_bytes());
            for (at, value) in
                [(24, input.stick_l.0), (28, input.stick_l.1), (32, input.stick_r.0), (36, input.stick_r.1)]
            {
                entry[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
            entry[40..44].copy_from_slice(&ATTRIBUTES_CONNECTED.to_le_bytes());
            memory.write(lifo + LIFO_HEADER + tail as usize * LIFO_ENTRY, &entry);
        }
        if touch {
            self.sample_touch(memory, input.touch);
        }
    }

    /// The touch screen's entry: the finger where it is (Start at the sample it came down), or where it was with
    /// End at the sample after it went up, or no finger.
    fn sample_touch(&mut self, memory: &ServiceSharedMemory, touch: Option<(u32, u32)>) {
        let number = self.sampling_number;
        let tail = advance_lifo(memory, TOUCH_SECTION, 1);
        let mut entry = [0u8; TOUCH_ENTRY];
        entry[..8].copy_from_slice(&number.to_le_bytes());
        entry[8..16].copy_from_slice(&number.to_le_bytes());
        let finger = match (touch, self.last_touch) {
            (Some(at), None) => Some((at, TOUCH_START, 0)),
            (Some(at), Some(_)) => Some((at, 0, SAMPLE_INTERVAL_NS)),
            (None, Some(at)) => Some((at, TOUCH_END, SAMPLE_INTERVAL_NS)),
            (None, None) => None,
        };
        if let Some(((x, y), attributes, delta_time)) = finger {
            entry[16..20].copy_from_slice(&1u32.to_le_bytes());
            let state = &mut entry[TOUCH_STATE..TOUCH_STATE + 0x28];
            state[..8].copy_from_slice(&delta_time.to_le_bytes());
            for (at, value) in [(8, attributes), (12, 0), (16, x), (20, y), (24, TOUCH_DIAMETER), (28, TOUCH_DIAMETER)]
            {
                state[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
        }
        memory.write(TOUCH_SECTION + LIFO_HEADER + tail as usize * TOUCH_ENTRY, &entry);
        self.last_touch = touch;
    }
}

/// Where the lifo of an npad's style lies.
fn lifo(id: NpadId, style: u32) -> usize {
    id.base() + if style == STYLE_HANDHELD { HANDHELD_LIFO } else { FULL_KEY_LIFO }
}

/// Moves a lifo's header on by `samples` (at least one) samples: the first goes to entry 0, each later one to the
/// next, and the count stops one short of the entries. The entry the last one goes to.
fn advance_lifo(memory: &ServiceSharedMemory, lifo: usize, samples: u64) -> u64 {
    let mut header = [0u8; LIFO_HEADER];
    memory.read(lifo, &mut header);
    let word = |at: usize| u64::from_le_bytes(header[at..at + 8].try_into().expect("eight bytes"));
    let (tail, count) = (word(16), word(24));
    let tail = if count == 0 { (samples - 1) % LIFO_ENTRIES } else { (tail + samples) % LIFO_ENTRIES };
    header[8..16].copy_from_slice(&LIFO_ENTRIES.to_le_bytes());
    header[16..24].copy_from_slice(&tail.to_le_bytes());
    header[24..].copy_from_slice(&count.saturating_add(samples).min(LIFO_ENTRIES - 1).to_le_bytes());
    memory.write(lifo, &header);
    tail
}

/// The stick pseudo-buttons (`HidNpadButton_StickLLeft` at bit 16 ...): a stick past half way in a direction
/// presses that direction's, as the console sets them.
fn stick_buttons(input: &InputState) -> u64 {
    const HALF: i32 = 0x7fff / 2;
    let directions = |(x, y): (i32, i32)| -> u64 {
        u64::from(x < -HALF) | u64::from(y > HALF) << 1 | u64::from(x > HALF) << 2 | u64::from(y < -HALF) << 3
    };
    directions(input.stick_l) << 16 | directions(input.stick_r) << 20
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skipping k samples and then taking a lifo's worth leaves the shared memory exactly as taking all k + 17
    /// would: every entry is overwritten, and the headers and sampling numbers agree.
    #[test]
    fn skipped_samples_leave_what_sampling_them_would() {
        let connected = [(NpadId::Handheld, STYLE_HANDHELD), (NpadId::No1, STYLE_FULL_KEY)];
        let input = |i: u64| InputState {
            buttons: i,
            stick_l: (i as i32, -(i as i32)),
            stick_r: (0, 1),
            touch: (i % 3 != 0).then_some((i as u32, 7)),
        };
        for (before, skipped) in [(0, 1), (0, 40), (3, 17), (5, 1_000_003)] {
            let sampled = ServiceSharedMemory::new(0x40000);
            let mut all = SharedMemoryWriter::default();
            let jumped = ServiceSharedMemory::new(0x40000);
            let mut skipping = SharedMemoryWriter::default();
            for (memory, writer) in [(&sampled, &mut all), (&jumped, &mut skipping)] {
                writer.connect(memory, &connected);
                for i in 0..before {
                    writer.sample(memory, &connected, true, &input(i));
                }
            }
            // Sampling a million frames one by one is what the skip avoids. The skipped frames all see one input
            // (an idle jump's), whose finger the samples after them continue or lift.
            let held = input(7);
            for _ in 0..skipped.min(40) {
                all.sample(&sampled, &connected, true, &held);
            }
            if skipped > 40 {
                all.skip(&sampled, &connected, true, &held, skipped - 40);
            }
            skipping.skip(&jumped, &connected, true, &held, skipped);
            for i in 0..LIFO_ENTRIES {
                all.sample(&sampled, &connected, true, &input(1000 + i));
                skipping.sample(&jumped, &connected, true, &input(1000 + i));
            }
            assert_eq!(sampled.state().bytes, jumped.state().bytes, "{before} then {skipped} skipped");
        }
    }
}
