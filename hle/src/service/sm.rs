//! `sm:`, the service manager (switchbrew "Services API"): the named port every program connects to first, and
//! the way to every other service. Answers both CMIF and TIPC requests (the same command ids).

use super::{Call, Command, Failure, Interface, System, open_service};
use crate::ipc::ResultCode;
use std::rc::Rc;

/// sm's results (module 21).
pub const INVALID_CLIENT: ResultCode = ResultCode::new(21, 2);
pub const OUT_OF_SESSIONS: ResultCode = ResultCode::new(21, 3);
pub const ALREADY_REGISTERED: ResultCode = ResultCode::new(21, 4);
pub const INVALID_SERVICE_NAME: ResultCode = ResultCode::new(21, 6);
pub const NOT_REGISTERED: ResultCode = ResultCode::new(21, 7);
/// The kernel's OutOfRange, which sm passes on from CreatePort for a session limit below 1.
const OUT_OF_RANGE: ResultCode = ResultCode::new(1, 119);

pub struct ServiceManager {
    system: Rc<System>,
    /// RegisterClient was called on this session.
    registered: bool,
}

impl ServiceManager {
    pub fn new(system: Rc<System>) -> ServiceManager {
        ServiceManager { system, registered: false }
    }

    /// RegisterClient(pid): CMIF adds a reserved u64, TIPC sends no data at all (libnx's `_smTipcCmdInPid`).
    fn register_client(&mut self, _call: &mut Call) -> Result<(), Failure> {
        self.registered = true;
        Ok(())
    }

    /// GetServiceHandle(u64 name) -> moved session handle: to a host service, or (through the kernel) to one the
    /// program serves.
    fn get_service_handle(&mut self, call: &mut Call) -> Result<(), Failure> {
        if !self.registered {
            return Err(INVALID_CLIENT.into());
        }
        let name = service_name(call.u64(0)).ok_or(Failure::Result(INVALID_SERVICE_NAME))?;
        match open_service(&name, &self.system) {
            Some(object) => call.new_objects.push(object),
            None => call.connect_service = Some(name),
        }
        Ok(())
    }

    /// RegisterService -> server port handle (made by the kernel). CMIF's arguments are {u64 name, bool is_light,
    /// s32 max_sessions}, TIPC's {u64 name, s32 max_sessions, bool is_light} (libnx's `smRegisterService`).
    fn register_service(&mut self, call: &mut Call) -> Result<(), Failure> {
        if !self.registered {
            return Err(INVALID_CLIENT.into());
        }
        let name = service_name(call.u64(0)).ok_or(Failure::Result(INVALID_SERVICE_NAME))?;
        if open_service(&name, &self.system).is_some() {
            return Err(ALREADY_REGISTERED.into());
        }
        let max_sessions = call.u32(if call.is_tipc() { 8 } else { 12 }) as i32;
        if max_sessions <= 0 {
            return Err(OUT_OF_RANGE.into());
        }
        call.register_service = Some((name, max_sessions as u32));
        Ok(())
    }
}

impl ServiceManager {
    /// UnregisterService(u64 name): the name goes (the kernel answers NotRegistered when the program serves no such
    /// service); the server's port stays open until its handle closes.
    fn unregister_service(&mut self, call: &mut Call) -> Result<(), Failure> {
        if !self.registered {
            return Err(INVALID_CLIENT.into());
        }
        let name = service_name(call.u64(0)).ok_or(Failure::Result(INVALID_SERVICE_NAME))?;
        call.unregister_service = Some(name);
        Ok(())
    }
}

/// A service name as sm reads it: up to eight characters, NUL-padded; empty, or a character after a NUL, is
/// invalid.
fn service_name(raw: u64) -> Option<String> {
    let bytes = raw.to_le_bytes();
    let length = bytes.iter().position(|&b| b == 0).unwrap_or(8);
    if length == 0 || bytes[length..].iter().any(|&b| b != 0) {
        return None;
    }
    Some(bytes[..length].iter().map(|&b| b.escape_ascii().to_string()).collect())
}

impl Interface for ServiceManager {
    const NAME: &'static str = "sm:";
    const POINTER_BUFFER_SIZE: u16 = 0;
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "RegisterClient", Self::register_client).pid(),
        Command::new(1, "GetServiceHandle", Self::get_service_handle).input(8),
        Command::new(2, "RegisterService", Self::register_service).input(16),
        Command::new(3, "UnregisterService", Self::unregister_service).input(8),
    ];
}

#[cfg(test)]
mod tests {
    use super::service_name;

    #[test]
    fn service_names_are_nul_padded_and_never_empty_or_broken() {
        assert_eq!(service_name(u64::from_le_bytes(*b"set:sys\0")).as_deref(), Some("set:sys"));
        assert_eq!(service_name(u64::from_le_bytes(*b"fsp-srv\0")).as_deref(), Some("fsp-srv"));
        assert_eq!(service_name(u64::from_le_bytes(*b"appletOE")).as_deref(), Some("appletOE"));
        assert_eq!(service_name(0), None);
        assert_eq!(service_name(u64::from_le_bytes(*b"lm\0x\0\0\0\0")), None);
    }
}
