//! `lm`, the log manager (switchbrew "Log services"): the SDK's logging reaches it as packets, which Tandem turns
//! into `tracing` events with the target `guest::lm`.

use super::{BufferKind, Call, Command, Failure, Interface};
use std::cell::RefCell;
use std::rc::Rc;

/// ILogService.
pub struct LogService;

impl LogService {
    /// OpenLogger(pid, u64 reserved) -> ILogger.
    fn open_logger(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.new_objects.push(Rc::new(RefCell::new(Logger { process_id: call.pid, text: String::new() })));
        Ok(())
    }
}

impl Interface for LogService {
    const NAME: &'static str = "lm";
    const COMMANDS: &'static [Command<Self>] = &[Command::new(0, "OpenLogger", Self::open_logger).input(8).pid()];
}

/// ILogger: one program's log. A message may span packets (head flag on the first, tail on the last).
pub struct Logger {
    process_id: u64,
    /// Text of a message whose tail packet has not come yet.
    text: String,
}

/// Bytes of a packet's header: u64 process id, u64 thread id, u8 flags, u8 padding, u8 severity, u8 verbosity, u32
/// payload size (Atmosphère's and Ryujinx's `LogPacketHeader`).
const PACKET_HEADER_SIZE: usize = 0x18;
const FLAG_TAIL: u8 = 1 << 1;
/// The most of a packet read: the SDK sends packets of a few hundred bytes.
const MAX_PACKET_SIZE: usize = 0x10000;
/// The most of one message's text kept (its packets' text chunks together).
const MAX_MESSAGE_SIZE: usize = 0x10000;
/// The chunk holding the message text.
const CHUNK_TEXT: u8 = 2;

/// A log packet, taken apart.
#[derive(Debug, PartialEq, Eq)]
struct Packet<'p> {
    flags: u8,
    severity: u8,
    /// (key, data) in order.
    chunks: Vec<(u8, &'p [u8])>,
}

/// A packet's header and its chunks, or why it is malformed.
fn parse_packet(packet: &[u8]) -> Result<Packet<'_>, &'static str> {
    let header = packet.get(..PACKET_HEADER_SIZE).ok_or("shorter than its header")?;
    let (flags, severity) = (header[0x10], header[0x12]);
    let payload_size = u32::from_le_bytes(header[0x14..0x18].try_into().expect("4 bytes")) as usize;
    let mut payload = packet[PACKET_HEADER_SIZE..].get(..payload_size).ok_or("payload past the buffer")?;
    let mut chunks = Vec::new();
    while let Some((&key, rest)) = payload.split_first() {
        // The size is a ULEB128 (one byte for sizes below 0x80).
        let (mut size, mut used) = (0usize, 0);
        loop {
            let &byte = rest.get(used).ok_or("chunk size past the payload")?;
            size |= usize::from(byte & 0x7f) << (7 * used);
            used += 1;
            if byte & 0x80 == 0 {
                break;
            }
            if used == 4 {
                return Err("chunk size longer than 4 bytes");
            }
        }
        let data = rest[used..].get(..size).ok_or("chunk past the payload")?;
        chunks.push((key, data));
        payload = &rest[used + size..];
    }
    Ok(Packet { flags, severity, chunks })
}

impl Logger {
    /// Log(in auto-select buffer: a packet).
    fn log(&mut self, call: &mut Call) -> Result<(), Failure> {
        let packet = call.read_buffer(0, MAX_PACKET_SIZE)?;
        match parse_packet(&packet) {
            Ok(Packet { flags, severity, chunks }) => {
                for (_, text) in chunks.iter().filter(|(key, _)| *key == CHUNK_TEXT) {
                    // A message that never ends is cut, not kept growing.
                    let room = MAX_MESSAGE_SIZE.saturating_sub(self.text.len());
                    self.text.push_str(&String::from_utf8_lossy(&text[..text.len().min(room)]));
                }
                if flags & FLAG_TAIL != 0 {
                    let text = std::mem::take(&mut self.text);
                    let (pid, text) = (self.process_id, text.trim_end());
                    match severity {
                        0 => tracing::trace!(target: "guest::lm", pid, "{text}"),
                        1 => tracing::info!(target: "guest::lm", pid, "{text}"),
                        2 => tracing::warn!(target: "guest::lm", pid, "{text}"),
                        _ => tracing::error!(target: "guest::lm", pid, severity, "{text}"),
                    }
                }
            }
            Err(why) => tracing::warn!(target: "guest::lm", "a malformed log packet ({why}) was dropped"),
        }
        Ok(())
    }

    /// SetDestination(u32 destination mask): where the system would send logs; Tandem always traces them.
    fn set_destination(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Ok(())
    }
}

impl Interface for Logger {
    const NAME: &'static str = "lm::ILogger";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "Log", Self::log).buffers(&[BufferKind::InAutoSelect]),
        Command::new(1, "SetDestination", Self::set_destination).input(4),
    ];
}

#[cfg(test)]
mod tests {
    use super::{Packet, parse_packet};

    fn packet(flags: u8, payload: &[u8]) -> Vec<u8> {
        let mut packet = vec![0u8; 0x18];
        packet[0x10] = flags;
        packet[0x11] = 0xee; // padding
        packet[0x12] = 1;
        packet[0x14..0x18].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        packet.extend_from_slice(payload);
        packet
    }

    #[test]
    fn packets_are_chunks_with_leb128_sizes() {
        let long = vec![b'x'; 200];
        let mut payload = vec![2, 5];
        payload.extend_from_slice(b"hello");
        payload.extend_from_slice(&[4, 0xc8, 0x01]);
        payload.extend_from_slice(&long);
        let packet = packet(3, &payload);
        let parsed = parse_packet(&packet).unwrap();
        assert_eq!(parsed, Packet { flags: 3, severity: 1, chunks: vec![(2, &b"hello"[..]), (4, &long[..])] });
    }

    #[test]
    fn malformed_packets_are_refused() {
        assert!(parse_packet(&[0; 0x10]).is_err());
        let mut short = packet(3, &[2, 5, b'h']);
        assert!(parse_packet(&short).is_err());
        short[0x14] = 100;
        assert!(parse_packet(&short).is_err());
        assert!(parse_packet(&packet(3, &[2, 0x80, 0x80, 0x80, 0x80, 1])).is_err());
    }
}
