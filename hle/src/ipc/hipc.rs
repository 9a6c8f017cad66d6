//! HIPC, the kernel's message format (switchbrew "IPC Marshalling"): two header words, an optional special header
//! (process id, copied and moved handles), the buffer descriptors, the raw data words and the receive list.
//!
//! Every field is read through [`Words`], which checks it against the message buffer's size: a hostile message
//! gets a [`HipcError`] naming the part that does not fit, never a read past the buffer.

use std::ops::Range;

/// Size of the message buffer at the start of a thread's thread-local region.
pub const MESSAGE_BUFFER_SIZE: usize = 0x100;

/// A pointer ("X", send static) descriptor: data the kernel copies into the server's receive buffer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Static {
    pub index: u8,
    pub address: u64,
    pub size: u16,
}

/// A map-alias descriptor: a send ("A"), receive ("B") or exchange ("W") buffer the server reads or writes in place.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Buffer {
    pub address: u64,
    pub size: u64,
    /// The transfer attribute: 0 normal, 1 non-secure, 3 non-device.
    pub mode: u8,
}

/// A receive-list ("C") entry: where the client takes the server's pointer replies.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ReceiveEntry {
    pub address: u64,
    pub size: u16,
}

/// Where pointer data sent to this message's owner goes (the header's receive-static mode).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ReceiveList {
    /// Mode 0: nowhere (only empty pointers can be received).
    None,
    /// Mode 1: into the message buffer itself, after the message.
    MessageBuffer,
    /// Mode 2: one buffer that the pointers fill one after another.
    Single(ReceiveEntry),
    /// Modes 3 and up: `mode - 2` buffers, one per pointer index.
    Indexed(Vec<ReceiveEntry>),
}

impl ReceiveList {
    /// The receive-list entries (host services take the n-th as the n-th output pointer buffer).
    pub fn entries(&self) -> &[ReceiveEntry] {
        match self {
            ReceiveList::Single(entry) => std::slice::from_ref(entry),
            ReceiveList::Indexed(entries) => entries,
            ReceiveList::None | ReceiveList::MessageBuffer => &[],
        }
    }
}

/// A parsed message: what the header says and where everything lies.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Message {
    /// The header's type: the CMIF command kind, or a TIPC command id plus 16.
    pub message_type: u16,
    pub pid: Option<u64>,
    pub copy_handles: Vec<u32>,
    pub move_handles: Vec<u32>,
    pub statics: Vec<Static>,
    pub sends: Vec<Buffer>,
    pub receives: Vec<Buffer>,
    pub exchanges: Vec<Buffer>,
    /// The raw data words, as a byte range of the message buffer.
    pub data: Range<usize>,
    pub receive_list: ReceiveList,
}

#[derive(Clone, PartialEq, Eq, Debug, thiserror::Error)]
pub enum HipcError {
    #[error("the message's {part} (bytes {start:#x}..{end:#x}) runs past the {size:#x}-byte message buffer")]
    Truncated { part: &'static str, start: usize, end: usize, size: usize },
    #[error("the special header asks for {count} {kind} handles; a message holds at most 15 of each")]
    TooManyHandles { kind: &'static str, count: u32 },
}

/// The message buffer, read as little-endian words with bounds checks.
struct Words<'m> {
    bytes: &'m [u8],
}

impl Words<'_> {
    fn range(&self, part: &'static str, start: usize, len: usize) -> Result<Range<usize>, HipcError> {
        let end = start.checked_add(len).filter(|&end| end <= self.bytes.len());
        end.map(|end| start..end).ok_or(HipcError::Truncated {
            part,
            start,
            end: start.saturating_add(len),
            size: self.bytes.len(),
        })
    }

    fn u32(&self, part: &'static str, offset: usize) -> Result<u32, HipcError> {
        let range = self.range(part, offset, 4)?;
        Ok(u32::from_le_bytes(self.bytes[range].try_into().expect("a 4-byte range")))
    }

    fn u64(&self, part: &'static str, offset: usize) -> Result<u64, HipcError> {
        Ok(u64::from(self.u32(part, offset)?) | u64::from(self.u32(part, offset + 4)?) << 32)
    }
}

/// Bits `lsb..lsb + width` of `word`.
fn field(word: u32, lsb: u32, width: u32) -> u32 {
    word >> lsb & ((1 << width) - 1)
}

impl Message {
    /// Parses the message at the start of `buffer` (the thread's message buffer, or a user buffer).
    pub fn parse(buffer: &[u8]) -> Result<Message, HipcError> {
        let words = Words { bytes: buffer };
        let (header, layout) = (words.u32("header", 0)?, words.u32("header", 4)?);
        let count = |lsb| field(header, lsb, 4) as usize;
        let (static_count, send_count, receive_count, exchange_count) = (count(16), count(20), count(24), count(28));
        let data_words = field(layout, 0, 10) as usize;
        let receive_mode = field(layout, 10, 4);
        let receive_list_offset = field(layout, 20, 11) as usize * 4;
        let mut at = 8;

        let (mut pid, mut copy_handles, mut move_handles) = (None, Vec::new(), Vec::new());
        if layout >> 31 != 0 {
            let special = words.u32("special header", at)?;
            at += 4;
            if special & 1 != 0 {
                pid = Some(words.u64("process id", at)?);
                at += 8;
            }
            for (kind, lsb, handles) in [("copy", 1, &mut copy_handles), ("move", 5, &mut move_handles)] {
                let count = field(special, lsb, 4);
                for _ in 0..count {
                    handles.push(words.u32(if kind == "copy" { "copied handles" } else { "moved handles" }, at)?);
                    at += 4;
                }
            }
        }

        let mut statics = Vec::with_capacity(static_count);
        for _ in 0..static_count {
            let (word, address_low) = (words.u32("pointer descriptor", at)?, words.u32("pointer descriptor", at + 4)?);
            let address =
                u64::from(address_low) | u64::from(field(word, 12, 4)) << 32 | u64::from(field(word, 6, 6)) << 36;
            statics.push(Static { index: field(word, 0, 6) as u8, address, size: (word >> 16) as u16 });
            at += 8;
        }

        let mut buffers = |count: usize, part: &'static str| -> Result<Vec<Buffer>, HipcError> {
            (0..count)
                .map(|_| {
                    let (size_low, address_low, word) =
                        (words.u32(part, at)?, words.u32(part, at + 4)?, words.u32(part, at + 8)?);
                    at += 12;
                    let address = u64::from(address_low)
                        | u64::from(field(word, 28, 4)) << 32
                        | u64::from(field(word, 2, 22)) << 36;
                    let size = u64::from(size_low) | u64::from(field(word, 24, 4)) << 32;
                    Ok(Buffer { address, size, mode: field(word, 0, 2) as u8 })
                })
                .collect()
        };
        let sends = buffers(send_count, "send buffer descriptor")?;
        let receives = buffers(receive_count, "receive buffer descriptor")?;
        let exchanges = buffers(exchange_count, "exchange buffer descriptor")?;

        let data = words.range("raw data", at, data_words * 4)?;
        let receive_list = match receive_mode {
            0 => ReceiveList::None,
            1 => ReceiveList::MessageBuffer,
            mode => {
                // Mode 2 is one entry; 3 and up are `mode - 2` entries.
                let entries = if mode == 2 { 1 } else { mode as usize - 2 };
                let start = if receive_list_offset != 0 { receive_list_offset } else { data.end };
                let list = words.range("receive list", start, entries * 8)?;
                let entries = (0..entries)
                    .map(|i| {
                        let (low, word) = (
                            words.u32("receive list", list.start + i * 8)?,
                            words.u32("receive list", list.start + i * 8 + 4)?,
                        );
                        Ok(ReceiveEntry {
                            address: u64::from(low) | u64::from(word & 0xffff) << 32,
                            size: (word >> 16) as u16,
                        })
                    })
                    .collect::<Result<Vec<_>, HipcError>>()?;
                match entries.as_slice() {
                    [single] if mode == 2 => ReceiveList::Single(*single),
                    _ => ReceiveList::Indexed(entries),
                }
            }
        };
        Ok(Message {
            message_type: header as u16,
            pid,
            copy_handles,
            move_handles,
            statics,
            sends,
            receives,
            exchanges,
            data,
            receive_list,
        })
    }
}

/// A message to write: a reply (or, in tests, a request). Buffers and receive lists are requests' only.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Builder {
    pub message_type: u16,
    pub pid: Option<u64>,
    pub copy_handles: Vec<u32>,
    pub move_handles: Vec<u32>,
    pub statics: Vec<Static>,
    pub sends: Vec<Buffer>,
    pub receives: Vec<Buffer>,
    pub exchanges: Vec<Buffer>,
    /// Mode 0 (none), 1 (message buffer) or 2 and up as in the header; the entries follow the data words.
    pub receive_mode: u8,
    pub receive_entries: Vec<ReceiveEntry>,
}

impl Builder {
    /// The byte offset where the raw data words start (after the headers and descriptors).
    pub fn data_offset(&self) -> usize {
        let special = self.pid.is_some() || !self.copy_handles.is_empty() || !self.move_handles.is_empty();
        let special_size = if special {
            4 + if self.pid.is_some() { 8 } else { 0 } + 4 * (self.copy_handles.len() + self.move_handles.len())
        } else {
            0
        };
        8 + special_size + 8 * self.statics.len() + 12 * (self.sends.len() + self.receives.len() + self.exchanges.len())
    }

    /// Writes the message with `data` (a whole number of words, laid out by the caller from [`data_offset`]) into
    /// `buffer`.
    ///
    /// [`data_offset`]: Builder::data_offset
    ///
    /// Returns the message's length in bytes.
    pub fn write(&self, data: &[u8], buffer: &mut [u8]) -> Result<usize, HipcError> {
        let counts = [self.statics.len(), self.sends.len(), self.receives.len(), self.exchanges.len()];
        let size = self.data_offset() + data.len().next_multiple_of(4) + 8 * self.receive_entries.len();
        if size > buffer.len() || counts.iter().any(|&count| count > 15) {
            return Err(HipcError::Truncated { part: "reply", start: 0, end: size, size: buffer.len() });
        }
        for (kind, handles) in [("copy", &self.copy_handles), ("move", &self.move_handles)] {
            if handles.len() > 15 {
                return Err(HipcError::TooManyHandles { kind, count: handles.len() as u32 });
            }
        }
        let mut out = Vec::with_capacity(size);
        let push = |out: &mut Vec<u8>, word: u32| out.extend_from_slice(&word.to_le_bytes());
        let header = u32::from(self.message_type)
            | (counts[0] as u32) << 16
            | (counts[1] as u32) << 20
            | (counts[2] as u32) << 24
            | (counts[3] as u32) << 28;
        let special = self.pid.is_some() || !self.copy_handles.is_empty() || !self.move_handles.is_empty();
        let layout =
            (data.len().div_ceil(4) as u32) | u32::from(self.receive_mode & 0xf) << 10 | u32::from(special) << 31;
        push(&mut out, header);
        push(&mut out, layout);
        if special {
            let pid = u32::from(self.pid.is_some());
            push(&mut out, pid | (self.copy_handles.len() as u32) << 1 | (self.move_handles.len() as u32) << 5);
            if let Some(pid) = self.pid {
                out.extend_from_slice(&pid.to_le_bytes());
            }
            for &handle in self.copy_handles.iter().chain(&self.move_handles) {
                push(&mut out, handle);
            }
        }
        for s in &self.statics {
            let address = s.address;
            push(
                &mut out,
                u32::from(s.index & 0x3f)
                    | ((address >> 36) as u32 & 0x3f) << 6
                    | ((address >> 32) as u32 & 0xf) << 12
                    | u32::from(s.size) << 16,
            );
            push(&mut out, address as u32);
        }
        for b in self.sends.iter().chain(&self.receives).chain(&self.exchanges) {
            push(&mut out, b.size as u32);
            push(&mut out, b.address as u32);
            push(
                &mut out,
                u32::from(b.mode & 3)
                    | ((b.address >> 36) as u32 & 0x3f_ffff) << 2
                    | ((b.size >> 32) as u32 & 0xf) << 24
                    | ((b.address >> 32) as u32 & 0xf) << 28,
            );
        }
        out.extend_from_slice(data);
        out.resize(out.len().next_multiple_of(4), 0);
        for entry in &self.receive_entries {
            push(&mut out, entry.address as u32);
            push(&mut out, (entry.address >> 32) as u32 & 0xffff | u32::from(entry.size) << 16);
        }
        buffer[..out.len()].copy_from_slice(&out);
        Ok(out.len())
    }
}
