//! CMIF and TIPC, the service framework's layers inside a HIPC message's raw data (switchbrew "IPC Marshalling").
//!
//! CMIF raw data starts at the first 16-byte boundary of the data words: an optional domain header (which object of
//! a domain session the message is for, and the object ids it passes), then the `SFCI` header with the command id,
//! then the arguments. Replies mirror it with `SFCO` and the result. TIPC (firmware 12+, `sm:` among others) has no
//! headers: the command id is the message type minus 16, the arguments start right at the data words, and a reply's
//! data starts with the result.

use super::hipc::{Builder, HipcError, Message, Static};
use super::{ResultCode, hipc_result, sf};

/// "SFCI": the magic of a request's CMIF header.
pub const IN_MAGIC: u32 = u32::from_le_bytes(*b"SFCI");
/// "SFCO": the magic of a reply's CMIF header.
pub const OUT_MAGIC: u32 = u32::from_le_bytes(*b"SFCO");
/// Bytes of the CMIF in/out headers and of the domain headers.
const HEADER_SIZE: usize = 16;
/// The first TIPC message type (command 0).
pub const TIPC_FIRST_TYPE: u16 = 16;
/// TIPC's close message.
pub const TIPC_CLOSE_TYPE: u16 = 15;

/// What kind of message a HIPC message type makes it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A command of the session's object (types 4 and 6, "with context").
    Request,
    /// A command of the session itself: domains, cloning, the pointer buffer size (types 5 and 7).
    Control,
    /// The client closes the session (type 2; TIPC 15).
    Close,
    /// A TIPC command.
    Tipc,
}

impl Kind {
    pub fn of(message_type: u16) -> Result<Kind, ResultCode> {
        match message_type {
            2 | TIPC_CLOSE_TYPE => Ok(Kind::Close),
            4 | 6 => Ok(Kind::Request),
            5 | 7 => Ok(Kind::Control),
            t if t >= TIPC_FIRST_TYPE => Ok(Kind::Tipc),
            _ => Err(hipc_result::UNKNOWN_COMMAND_TYPE),
        }
    }
}

/// What a message to a domain session does.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DomainAction {
    /// A command for this object of the domain.
    Send(u32),
    /// Close this object of the domain.
    Close(u32),
}

/// A request, taken apart.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Request<'m> {
    pub kind: Kind,
    pub command_id: u32,
    /// Set for requests to a domain session.
    pub domain: Option<DomainAction>,
    /// The command's arguments (after the CMIF header).
    pub arguments: &'m [u8],
    /// Domain object ids passed in.
    pub in_objects: Vec<u32>,
}

fn u32_at(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(bytes[offset..offset + 4].try_into().expect("callers check the length"))
}

/// Takes apart the raw data of `message` (parsed from `buffer`), sent to a session that is a domain or not.
pub fn parse<'m>(buffer: &'m [u8], message: &Message, is_domain: bool) -> Result<Request<'m>, ResultCode> {
    let kind = Kind::of(message.message_type)?;
    let data = &buffer[message.data.clone()];
    match kind {
        Kind::Close => {
            return Ok(Request { kind, command_id: 0, domain: None, arguments: &[], in_objects: Vec::new() });
        }
        Kind::Tipc => {
            let command_id = u32::from(message.message_type - TIPC_FIRST_TYPE);
            return Ok(Request { kind, command_id, domain: None, arguments: data, in_objects: Vec::new() });
        }
        Kind::Request | Kind::Control => {}
    }
    // The CMIF data starts at the first 16-byte boundary (the buffer itself is 16-byte aligned in guest memory).
    let start = message.data.start.next_multiple_of(16);
    let mut raw = buffer.get(start..message.data.end).ok_or(sf::INVALID_HEADER_SIZE)?;
    let (mut domain, mut in_objects) = (None, Vec::new());
    if is_domain && kind == Kind::Request {
        if raw.len() < HEADER_SIZE {
            return Err(sf::INVALID_HEADER_SIZE);
        }
        let (action, object_count, payload_size) =
            (raw[0], usize::from(raw[1]), usize::from(raw[2]) | usize::from(raw[3]) << 8);
        let object = u32_at(raw, 4);
        match action {
            1 => {}
            2 => {
                return Ok(Request {
                    kind,
                    command_id: 0,
                    domain: Some(DomainAction::Close(object)),
                    arguments: &[],
                    in_objects,
                });
            }
            _ => return Err(sf::INVALID_IN_HEADER),
        }
        let payload_end = HEADER_SIZE + payload_size;
        let objects_end = payload_end + 4 * object_count;
        if objects_end > raw.len() {
            return Err(sf::INVALID_HEADER_SIZE);
        }
        in_objects = (0..object_count).map(|i| u32_at(raw, payload_end + 4 * i)).collect();
        domain = Some(DomainAction::Send(object));
        raw = &raw[HEADER_SIZE..payload_end];
    }
    if raw.len() < HEADER_SIZE {
        return Err(sf::INVALID_HEADER_SIZE);
    }
    if u32_at(raw, 0) != IN_MAGIC {
        return Err(sf::INVALID_IN_HEADER);
    }
    Ok(Request { kind, command_id: u32_at(raw, 8), domain, arguments: &raw[HEADER_SIZE..], in_objects })
}

/// A reply to write.
#[derive(Clone, Default, PartialEq, Eq, Debug)]
pub struct Reply {
    pub result: ResultCode,
    /// The command's outputs (written only when the result is success).
    pub raw: Vec<u8>,
    /// Domain object ids of objects the command made (replies on a domain session).
    pub out_objects: Vec<u32>,
    pub copy_handles: Vec<u32>,
    pub move_handles: Vec<u32>,
    /// Pointer replies: where in the client's receive list the server wrote, and how much.
    pub statics: Vec<Static>,
}

/// Writes `reply` to a request of `kind` and HIPC type `request_type` (on a domain session or not) into `buffer`;
/// returns its length in bytes. A TIPC reply carries the request's type, as Horizon's TIPC servers write it.
pub fn write_reply(
    kind: Kind,
    request_type: u16,
    is_domain: bool,
    reply: &Reply,
    buffer: &mut [u8],
) -> Result<usize, HipcError> {
    let failed = reply.result != ResultCode::SUCCESS;
    let message = Builder {
        message_type: if kind == Kind::Tipc { request_type } else { 0 },
        copy_handles: if failed { Vec::new() } else { reply.copy_handles.clone() },
        move_handles: if failed { Vec::new() } else { reply.move_handles.clone() },
        statics: if failed { Vec::new() } else { reply.statics.clone() },
        ..Builder::default()
    };
    let raw: &[u8] = if failed { &[] } else { &reply.raw };
    let mut data = Vec::new();
    let push = |data: &mut Vec<u8>, word: u32| data.extend_from_slice(&word.to_le_bytes());
    if kind == Kind::Tipc {
        push(&mut data, reply.result.0);
        data.extend_from_slice(raw);
    } else {
        // As Horizon's framework does: 16 bytes of slack for the alignment, whatever the padding turns out to be.
        let offset = message.data_offset();
        let padding = offset.next_multiple_of(16) - offset;
        data.resize(padding, 0);
        let objects: &[u32] = if failed { &[] } else { &reply.out_objects };
        if is_domain && kind == Kind::Request {
            push(&mut data, objects.len() as u32);
            data.resize(data.len() + 12, 0);
        }
        for word in [OUT_MAGIC, 0, reply.result.0, 0] {
            push(&mut data, word);
        }
        data.extend_from_slice(raw);
        for &object in objects {
            push(&mut data, object);
        }
        data.resize(data.len() + 16 - padding, 0);
    }
    message.write(&data, buffer)
}
