//! Inter-process communication as Horizon's programs speak it: the kernel's HIPC message format ([`hipc`]) and,
//! inside its raw data, the service framework's CMIF and TIPC layers ([`cmif`]).
//!
//! Both parsers take the message buffer as bytes and check every length, count and offset against it, so that a
//! malformed or hostile message becomes an error result for the guest, never a read outside the buffer.

pub mod cmif;
pub mod hipc;

#[cfg(test)]
mod tests;

use std::fmt;

/// A Horizon result code: module in bits 0-8, description in bits 9-21; 0 is success.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug)]
pub struct ResultCode(pub u32);

impl ResultCode {
    pub const SUCCESS: ResultCode = ResultCode(0);

    pub const fn new(module: u32, description: u32) -> ResultCode {
        ResultCode(module & 0x1ff | (description & 0x1fff) << 9)
    }

    pub fn module(self) -> u32 {
        self.0 & 0x1ff
    }

    pub fn description(self) -> u32 {
        self.0 >> 9 & 0x1fff
    }
}

/// Nintendo's spelling, as error screens show it: `2MMM-DDDD`, then the raw value.
impl fmt::Display for ResultCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:04} ({:#x})", 2000 + self.module(), self.description(), self.0)
    }
}

/// The service framework's results (module 10, `sf`).
pub mod sf {
    use super::ResultCode;
    pub const NOT_SUPPORTED: ResultCode = ResultCode::new(10, 1);
    pub const INVALID_HEADER_SIZE: ResultCode = ResultCode::new(10, 202);
    pub const INVALID_IN_HEADER: ResultCode = ResultCode::new(10, 211);
    pub const UNKNOWN_COMMAND_ID: ResultCode = ResultCode::new(10, 221);
    pub const INVALID_NUM_IN_OBJECTS: ResultCode = ResultCode::new(10, 235);
    pub const INVALID_IN_OBJECT: ResultCode = ResultCode::new(10, 239);
    pub const TARGET_NOT_FOUND: ResultCode = ResultCode::new(10, 261);
    pub const OUT_OF_DOMAIN_ENTRIES: ResultCode = ResultCode::new(10, 301);
}

/// The server side's HIPC results (module 11).
pub mod hipc_result {
    use super::ResultCode;
    pub const POINTER_BUFFER_TOO_SMALL: ResultCode = ResultCode::new(11, 141);
    pub const OUT_OF_DOMAINS: ResultCode = ResultCode::new(11, 200);
    pub const INVALID_REQUEST_SIZE: ResultCode = ResultCode::new(11, 402);
    pub const UNKNOWN_COMMAND_TYPE: ResultCode = ResultCode::new(11, 403);
    pub const INVALID_CMIF_REQUEST: ResultCode = ResultCode::new(11, 420);
    pub const TARGET_NOT_DOMAIN: ResultCode = ResultCode::new(11, 491);
    pub const DOMAIN_OBJECT_NOT_FOUND: ResultCode = ResultCode::new(11, 492);
}
