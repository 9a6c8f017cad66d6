//! What a channel is fed: GPFIFO entries, each naming a run of pushbuffer words in GPU memory, and the method
//! headers in those words (NVIDIA open-gpu-doc `classes/host/clb06f.h`, `NVB06F_GP_ENTRY*` and `NVB06F_DMA_*`).
//!
//! Invariant: the decoder keeps its state between segments, as the hardware does — a method header's data may
//! continue in the next GPFIFO entry's words.

/// A GPFIFO entry: 8 bytes, `ENTRY0` then `ENTRY1`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GpEntry {
    /// GPU address of the first pushbuffer word (`GET` 31:2 and `GET_HI` 7:0: 40 bits, word-aligned).
    pub address: u64,
    /// Pushbuffer words (`LENGTH` 30:10); 0 makes the entry a control entry.
    pub words: u32,
    /// `LEVEL`: a subroutine segment rather than the main stream (same decoding; no return stack on this host).
    pub subroutine: bool,
    /// `SYNC`: wait for the pushbuffer before to be done before fetching this one.
    pub sync: bool,
    /// `FETCH`: conditional fetch (only when the hardware's reference count allows).
    pub conditional: bool,
    /// For a control entry (`words` 0): `OPCODE` 7:0 (0 NOP, 1 ILLEGAL, 2 GP_CRC, 3 PB_CRC).
    pub opcode: u8,
}

impl GpEntry {
    pub fn decode(raw: u64) -> GpEntry {
        let (entry0, entry1) = (raw as u32, (raw >> 32) as u32);
        GpEntry {
            address: u64::from(entry0 & !3) | u64::from(entry1 & 0xff) << 32,
            words: entry1 >> 10 & 0x1f_ffff,
            subroutine: entry1 >> 9 & 1 != 0,
            sync: entry1 >> 31 != 0,
            conditional: entry0 & 1 != 0,
            opcode: entry1 as u8,
        }
    }

    /// The raw entry for `words` words at `address` (main level, unconditional, no sync).
    pub fn encode(address: u64, words: u32) -> u64 {
        GpEntry { address, words, subroutine: false, sync: false, conditional: false, opcode: (address >> 32) as u8 }
            .raw()
    }

    /// The raw entry with every field `decode` reads (a control entry's OPCODE shares bits 7:0 of ENTRY1 with
    /// GET_HI: `address` holds it there, as `decode` leaves it).
    pub fn raw(&self) -> u64 {
        let entry0 = (self.address as u32 & !3) | u32::from(self.conditional);
        let entry1 = (self.address >> 32) as u32 & 0xff
            | u32::from(self.subroutine) << 9
            | (self.words & 0x1f_ffff) << 10
            | u32::from(self.sync) << 31;
        u64::from(entry1) << 32 | u64::from(entry0)
    }
}

/// One method a pushbuffer calls: `argument` written to `method` (a word index in the class's method space) of the
/// object bound to `subchannel`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MethodCall {
    pub subchannel: u8,
    pub method: u32,
    pub argument: u32,
    /// More data of the same header follows (a macro keeps collecting parameters while this holds).
    pub more: bool,
    /// GPU address of the pushbuffer word that carried the argument.
    pub address: u64,
}

/// `SEC_OP` 31:29 of a method header.
mod sec_op {
    pub const GRP0_USE_TERT: u32 = 0;
    pub const INC_METHOD: u32 = 1;
    pub const GRP2_USE_TERT: u32 = 2;
    pub const NON_INC_METHOD: u32 = 3;
    pub const IMMD_DATA_METHOD: u32 = 4;
    pub const ONE_INC: u32 = 5;
    pub const RESERVED6: u32 = 6;
    pub const END_PB_SEGMENT: u32 = 7;
}

/// `TERT_OP` 17:16 of the group-0 headers.
mod tert_op {
    pub const GRP0_INC_METHOD: u32 = 0;
    pub const GRP0_SET_SUB_DEV_MASK: u32 = 1;
    pub const GRP0_STORE_SUB_DEV_MASK: u32 = 2;
    pub const GRP0_USE_SUB_DEV_MASK: u32 = 3;
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, thiserror::Error)]
pub enum PushbufferError {
    #[error("pushbuffer word {word:#010x} at GPU address {address:#x} is a header of the reserved type 6")]
    ReservedHeader { word: u32, address: u64 },
    #[error("pushbuffer word {word:#010x} at GPU address {address:#x}: group-2 tertiary op {tert} does not exist")]
    UnknownGroup2 { word: u32, address: u64, tert: u32 },
    #[error(
        "pushbuffer data word at GPU address {address:#x} would go to method {method:#x}, past the 12-bit method \
         addresses (dev_ram.ref's METHOD_ADDRESS 11:0): its header counts too many words"
    )]
    MethodPastTheEnd { address: u64, method: u32 },
}

/// How the data words after a header address methods.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Addressing {
    Incrementing,
    NonIncrementing,
    /// The first word goes to the header's method, the rest to the next one.
    IncrementOnce,
}

/// A header whose data words are still to come.
#[derive(Clone, Copy, Debug)]
struct Pending {
    addressing: Addressing,
    subchannel: u8,
    method: u32,
    remaining: u32,
}

/// The pushbuffer decoder of one channel.
#[derive(Default, Debug)]
pub struct PushbufferDecoder {
    pending: Option<Pending>,
    /// The sub-device mask kept by `STORE_SUB_DEV_MASK` (bit 0 is this GPU, the only one).
    subdevice_mask: u32,
    /// Whether methods apply to this GPU (`SET_SUB_DEV_MASK`, or `USE_SUB_DEV_MASK` of the kept mask, with bit 0
    /// clear turns them off).
    subdevice_enabled: bool,
}

impl PushbufferDecoder {
    pub fn new() -> PushbufferDecoder {
        PushbufferDecoder { pending: None, subdevice_mask: 0xfff, subdevice_enabled: true }
    }

    /// Whether a header's data is still expected.
    pub fn is_mid_method(&self) -> bool {
        self.pending.is_some()
    }

    /// Takes the next pushbuffer word, read from GPU address `address`: a method call, nothing (a header, or data
    /// for another GPU), or the end of the segment.
    pub fn step(&mut self, word: u32, address: u64) -> Result<Step, PushbufferError> {
        if let Some(pending) = &mut self.pending {
            if pending.method > 0xfff {
                return Err(PushbufferError::MethodPastTheEnd { address, method: pending.method });
            }
            pending.remaining -= 1;
            let method_call = MethodCall {
                subchannel: pending.subchannel,
                method: pending.method,
                argument: word,
                more: pending.remaining != 0,
                address,
            };
            match pending.addressing {
                Addressing::Incrementing => pending.method += 1,
                Addressing::NonIncrementing => {}
                Addressing::IncrementOnce => {
                    pending.method += 1;
                    pending.addressing = Addressing::NonIncrementing;
                }
            }
            if pending.remaining == 0 {
                self.pending = None;
            }
            return Ok(if self.subdevice_enabled { Step::Call(method_call) } else { Step::Nothing });
        }
        let subchannel = (word >> 13 & 7) as u8;
        let count = word >> 16 & 0x1fff;
        let mut start = |addressing, method, count| {
            if count > 0 {
                self.pending = Some(Pending { addressing, subchannel, method, remaining: count });
            }
            Ok(Step::Nothing)
        };
        match word >> 29 {
            sec_op::GRP0_USE_TERT if word == 0 => Ok(Step::Nothing),
            sec_op::GRP0_USE_TERT => match word >> 16 & 3 {
                // The old format: a byte address in 12:2 and an 11-bit count in 28:18.
                tert_op::GRP0_INC_METHOD => start(Addressing::Incrementing, word >> 2 & 0x7ff, word >> 18 & 0x7ff),
                // dev_ram.ref: SET applies its mask at once, STORE keeps one that USE applies later. This GPU is
                // subdevice 1 (the mask's bit 0).
                tert_op::GRP0_SET_SUB_DEV_MASK => {
                    self.subdevice_enabled = word >> 4 & 1 != 0;
                    Ok(Step::Nothing)
                }
                tert_op::GRP0_STORE_SUB_DEV_MASK => {
                    self.subdevice_mask = word >> 4 & 0xfff;
                    Ok(Step::Nothing)
                }
                tert_op::GRP0_USE_SUB_DEV_MASK => {
                    self.subdevice_enabled = self.subdevice_mask & 1 != 0;
                    Ok(Step::Nothing)
                }
                _ => unreachable!("two bits"),
            },
            sec_op::GRP2_USE_TERT => match word >> 16 & 3 {
                0 => start(Addressing::NonIncrementing, word >> 2 & 0x7ff, word >> 18 & 0x7ff),
                tert => Err(PushbufferError::UnknownGroup2 { word, address, tert }),
            },
            sec_op::INC_METHOD => start(Addressing::Incrementing, word & 0xfff, count),
            sec_op::NON_INC_METHOD => start(Addressing::NonIncrementing, word & 0xfff, count),
            sec_op::ONE_INC => start(Addressing::IncrementOnce, word & 0xfff, count),
            sec_op::IMMD_DATA_METHOD if self.subdevice_enabled => {
                Ok(Step::Call(MethodCall { subchannel, method: word & 0xfff, argument: count, more: false, address }))
            }
            sec_op::IMMD_DATA_METHOD => Ok(Step::Nothing),
            sec_op::RESERVED6 => Err(PushbufferError::ReservedHeader { word, address }),
            sec_op::END_PB_SEGMENT => Ok(Step::EndSegment),
            _ => unreachable!("three bits"),
        }
    }
}

/// What one pushbuffer word amounts to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Step {
    Nothing,
    Call(MethodCall),
    EndSegment,
}

/// Method headers, for building pushbuffers (tests, the embedded demo, the runtime's C twin).
pub mod header {
    /// Incrementing: `count` words to `method`, `method + 1`, ...
    pub fn incrementing(subchannel: u8, method: u32, count: u32) -> u32 {
        1 << 29 | (count & 0x1fff) << 16 | u32::from(subchannel & 7) << 13 | method & 0xfff
    }

    /// Non-incrementing: `count` words all to `method`.
    pub fn non_incrementing(subchannel: u8, method: u32, count: u32) -> u32 {
        3 << 29 | (count & 0x1fff) << 16 | u32::from(subchannel & 7) << 13 | method & 0xfff
    }

    /// Increment-once: the first word to `method`, the others to `method + 1`.
    pub fn increment_once(subchannel: u8, method: u32, count: u32) -> u32 {
        5 << 29 | (count & 0x1fff) << 16 | u32::from(subchannel & 7) << 13 | method & 0xfff
    }

    /// Immediate: `value` (13 bits) to `method`, no data word.
    pub fn immediate(subchannel: u8, method: u32, value: u32) -> u32 {
        4 << 29 | (value & 0x1fff) << 16 | u32::from(subchannel & 7) << 13 | method & 0xfff
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (subchannel, method, argument, more) of a call.
    type Call = (u8, u32, u32, bool);

    /// The calls `words` (read from GPU address 0x1000 on) make, up to an END_PB_SEGMENT header.
    fn decode_all(decoder: &mut PushbufferDecoder, words: &[u32]) -> Result<Vec<Call>, PushbufferError> {
        let mut calls = Vec::new();
        for (index, &word) in words.iter().enumerate() {
            match decoder.step(word, 0x1000 + 4 * index as u64)? {
                Step::Call(c) => calls.push((c.subchannel, c.method, c.argument, c.more)),
                Step::Nothing => {}
                Step::EndSegment => break,
            }
        }
        Ok(calls)
    }

    /// GP_ENTRY fields at the bit positions clb06f.h gives them.
    #[test]
    fn gp_entries_decode_by_the_class_header_bit_positions() {
        // ENTRY0: GET = 0x4567_89ab >> 2, FETCH conditional; ENTRY1: GET_HI 0x12, PRIV, LEVEL subroutine,
        // LENGTH 0x1234, SYNC wait.
        let entry0 = 0x4567_89a8u32 | 1;
        let entry1: u32 = 0x12 | 1 << 8 | 1 << 9 | 0x1234 << 10 | 1 << 31;
        let entry = GpEntry::decode(u64::from(entry1) << 32 | u64::from(entry0));
        assert_eq!(entry.address, 0x12_4567_89a8);
        assert_eq!(entry.words, 0x1234);
        assert!(entry.subroutine && entry.sync && entry.conditional);
        assert_eq!(GpEntry::decode(GpEntry::encode(0xab_cdef_0004, 77)).address, 0xab_cdef_0004);
        assert_eq!(GpEntry::decode(GpEntry::encode(0xab_cdef_0004, 77)).words, 77);
        // Every field `decode` reads comes back from `raw` (PRIV, bit 8 of ENTRY1, and bit 1 of ENTRY0 are not
        // read); a control entry keeps its OPCODE.
        let raw = u64::from(entry1) << 32 | u64::from(entry0);
        assert_eq!(entry.raw(), raw & !(1 << 40));
        let control = GpEntry::decode(u64::from(1u32 << 31 | 3) << 32);
        assert_eq!((control.words, control.opcode, GpEntry::decode(control.raw())), (0, 3, control));
    }

    /// Each header type addresses its data as clb06f.h describes, on the subchannel in 15:13.
    #[test]
    fn each_header_type_addresses_its_data_words() {
        let mut decoder = PushbufferDecoder::new();
        let words = [
            0x2003_a100, // INC_METHOD: subchannel 5, method 0x100, 3 words
            1,
            2,
            3,
            0x6002_0200, // NON_INC_METHOD: subchannel 0, method 0x200, 2 words
            4,
            5,
            0xa003_2300, // ONE_INC: subchannel 1, method 0x300, 3 words
            6,
            7,
            8,
            0x8abc_4400, // IMMD_DATA_METHOD: subchannel 2, method 0x400, value 0xabc
            0x0000_0000, // NOP
        ];
        assert_eq!(
            decode_all(&mut decoder, &words).unwrap(),
            vec![
                (5, 0x100, 1, true),
                (5, 0x101, 2, true),
                (5, 0x102, 3, false),
                (0, 0x200, 4, true),
                (0, 0x200, 5, false),
                (1, 0x300, 6, true),
                (1, 0x301, 7, true),
                (1, 0x301, 8, false),
                (2, 0x400, 0xabc, false),
            ]
        );
        assert!(!decoder.is_mid_method());
    }

    /// The group-0 and group-2 "old" formats: a byte address in 12:2, an 11-bit count in 28:18.
    #[test]
    fn old_formats_take_a_byte_address_and_an_eleven_bit_count() {
        let mut decoder = PushbufferDecoder::new();
        // GRP0 INC: count 2 (28:18), subchannel 3 (15:13), byte address 0x40 (12:2 = 0x10 words).
        let grp0 = 2 << 18 | 3 << 13 | 0x40;
        // GRP2 NON_INC: count 2, subchannel 0, byte address 0x80.
        let grp2 = 2 << 29 | 2 << 18 | 0x80;
        assert_eq!(
            decode_all(&mut decoder, &[grp0, 10, 11, grp2, 12, 13]).unwrap(),
            vec![(3, 0x10, 10, true), (3, 0x11, 11, false), (0, 0x20, 12, true), (0, 0x20, 13, false)]
        );
    }

    /// A method's data may continue in the next segment.
    #[test]
    fn data_continues_across_segments() {
        let mut decoder = PushbufferDecoder::new();
        let first = decode_all(&mut decoder, &[header::incrementing(0, 0x50, 3), 1]).unwrap();
        assert!(decoder.is_mid_method());
        let second = decode_all(&mut decoder, &[2, 3, header::immediate(0, 0x60, 9)]).unwrap();
        assert_eq!(first, vec![(0, 0x50, 1, true)]);
        assert_eq!(second, vec![(0, 0x51, 2, true), (0, 0x52, 3, false), (0, 0x60, 9, false)]);
    }

    #[test]
    fn end_segment_stops_and_reserved_headers_are_errors() {
        let mut decoder = PushbufferDecoder::new();
        let calls = decode_all(&mut decoder, &[header::immediate(0, 1, 1), 7 << 29, header::immediate(0, 2, 2)]);
        assert_eq!(calls, Ok(vec![(0, 1, 1, false)]));
        assert_eq!(
            decode_all(&mut decoder, &[header::immediate(0, 1, 1), 6 << 29 | 5]),
            Err(PushbufferError::ReservedHeader { word: 6 << 29 | 5, address: 0x1004 })
        );
    }

    /// An incrementing header may not count past method 0xfff (a 12-bit method address).
    #[test]
    fn methods_stop_at_the_last_method_address() {
        let mut decoder = PushbufferDecoder::new();
        let words = [header::incrementing(0, 0xffe, 3), 1, 2, 3];
        assert_eq!(
            decode_all(&mut decoder, &words),
            Err(PushbufferError::MethodPastTheEnd { address: 0x100c, method: 0x1000 })
        );
    }

    /// dev_ram.ref's sub-device masks: SET_SUBDEVICE_MASK without this GPU's bit skips the methods after it at
    /// once, STORE_SUBDEVICE_MASK only keeps a mask, USE_SUBDEVICE_MASK applies the kept one.
    #[test]
    fn sub_device_masks_skip_methods_for_other_gpus() {
        let mut decoder = PushbufferDecoder::new();
        let (set_mask, store_mask) = (|mask: u32| 1 << 16 | mask << 4, |mask: u32| 2 << 16 | mask << 4);
        let use_mask = 3 << 16;
        let calls = decode_all(
            &mut decoder,
            &[
                set_mask(0b10),
                header::immediate(0, 1, 1),
                store_mask(0b10),
                header::immediate(0, 2, 2),
                set_mask(0b01),
                header::immediate(0, 3, 3),
                use_mask,
                header::immediate(0, 4, 4),
                store_mask(0b11),
                use_mask,
                header::immediate(0, 5, 5),
            ],
        )
        .unwrap();
        assert_eq!(calls, vec![(0, 3, 3, false), (0, 5, 5, false)]);
    }
}
