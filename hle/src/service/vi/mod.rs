//! Display services (switchbrew "Display services", "Nvnflinger services"): `vi:u`, `vi:s` and `vi:m` hand out an
//! IApplicationDisplayService, which opens displays and layers and gives the relay (IHOSBinderDriver) that carries
//! IGraphicBufferProducer transactions to a layer's buffer queue ([`display`]). Command ids and argument layouts
//! are libnx's (`services/vi.c`, `display/binder.c`).

pub mod display;
pub mod parcel;

use super::{BufferKind, Call, Command, Failure, Interface, System};
use crate::ipc::ResultCode;
use std::rc::Rc;

/// VI's result codes (module 114, as yuzu's `vi_results.h` lists them).
pub(crate) const OPERATION_FAILED: ResultCode = ResultCode::new(114, 1);
const PERMISSION_DENIED: ResultCode = ResultCode::new(114, 5);
const NOT_FOUND: ResultCode = ResultCode::new(114, 7);

/// The one display a program sees, its name and size.
const DEFAULT_DISPLAY: &[u8] = b"Default";
const DISPLAY_ID: u64 = 0;
const DISPLAY_SIZE: (u64, u64) = (1280, 720);

/// The native window parcel OpenLayer and CreateStrayLayer write: a flat binder object naming the layer's
/// producer, on the "dispdrv" driver (0x3c bytes, as the console's).
fn native_window(binder: u32) -> Vec<u8> {
    let mut parcel = Vec::with_capacity(0x3c);
    for word in [0x28u32, 0x10, 4, 0x38, 2, 0] {
        parcel.extend_from_slice(&word.to_le_bytes());
    }
    parcel.extend_from_slice(&u64::from(binder).to_le_bytes());
    parcel.extend_from_slice(&0u64.to_le_bytes());
    parcel.extend_from_slice(b"dispdrv\0");
    parcel.extend_from_slice(&[0; 12]);
    parcel
}

/// A root service (`vi:u` 0, `vi:s` 1, `vi:m` 2): GetDisplayService(u32 policy) -> IApplicationDisplayService.
pub struct RootService {
    system: Rc<System>,
    name: &'static str,
}

impl RootService {
    pub fn new(system: Rc<System>, name: &'static str) -> RootService {
        RootService { system, name }
    }

    /// GetDisplayService is command 0 of `vi:u`, 1 of `vi:s`, 2 of `vi:m`; the others' ids are other commands
    /// (vi:u's 1 is GetDisplayServiceWithProxyNameExchange) or none.
    fn get_display_service_as(&mut self, command_id: u32, call: &mut Call) -> Result<(), Failure> {
        let own = match self.name {
            "vi:u" => 0,
            "vi:s" => 1,
            _ => 2,
        };
        if command_id != own {
            let what = match (self.name, command_id) {
                ("vi:u", 1) => "GetDisplayServiceWithProxyNameExchange".to_string(),
                (name, id) => format!("{name} command {id}"),
            };
            return Err(Failure::Unimplemented { interface: Self::NAME, command_id, what: Some(what) });
        }
        self.get_display_service(call)
    }

    /// The policy: 0 user, 1 compositor; `vi:u` takes only the user's.
    fn get_display_service(&mut self, call: &mut Call) -> Result<(), Failure> {
        if call.u32(0) > 1 || (self.name == "vi:u" && call.u32(0) != 0) {
            return Err(Failure::Result(PERMISSION_DENIED));
        }
        call.new_objects.push(Rc::new(std::cell::RefCell::new(ApplicationDisplayService {
            system: self.system.clone(),
            vsync_given: false,
        })));
        Ok(())
    }
}

impl Interface for RootService {
    const NAME: &'static str = "vi";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "GetDisplayService", |root: &mut Self, call| root.get_display_service_as(0, call)).input(4),
        Command::new(1, "GetDisplayService", |root: &mut Self, call| root.get_display_service_as(1, call)).input(4),
        Command::new(2, "GetDisplayService", |root: &mut Self, call| root.get_display_service_as(2, call)).input(4),
    ];
}

/// IApplicationDisplayService.
pub struct ApplicationDisplayService {
    system: Rc<System>,
    vsync_given: bool,
}

/// The display a name in a request's first 0x40 bytes opens: only "Default".
fn display_named(call: &Call) -> Result<u64, Failure> {
    let name = call.argument_slice(0, 0x40);
    let name = name.split(|&b| b == 0).next().unwrap_or_default();
    if name == DEFAULT_DISPLAY { Ok(DISPLAY_ID) } else { Err(Failure::Result(NOT_FOUND)) }
}

impl ApplicationDisplayService {
    fn get_relay_service(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.new_objects.push(Rc::new(std::cell::RefCell::new(Relay { system: self.system.clone() })));
        Ok(())
    }

    fn get_system_display_service(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.new_objects.push(Rc::new(std::cell::RefCell::new(SystemDisplayService)));
        Ok(())
    }

    fn get_manager_display_service(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.new_objects.push(Rc::new(std::cell::RefCell::new(ManagerDisplayService { system: self.system.clone() })));
        Ok(())
    }

    /// OpenDisplay(char[0x40] name) -> u64 display id.
    fn open_display(&mut self, call: &mut Call) -> Result<(), Failure> {
        let id = display_named(call)?;
        call.push_u64(id);
        Ok(())
    }

    fn open_default_display(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u64(DISPLAY_ID);
        Ok(())
    }

    /// CloseDisplay(u64 id), and other commands that only need the display to exist.
    fn check_display(&mut self, call: &mut Call) -> Result<(), Failure> {
        if call.u64(0) != DISPLAY_ID {
            return Err(Failure::Result(NOT_FOUND));
        }
        Ok(())
    }

    /// GetDisplayResolution(u64 id) -> s64 width, s64 height.
    fn get_display_resolution(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.check_display(call)?;
        call.push_u64(DISPLAY_SIZE.0);
        call.push_u64(DISPLAY_SIZE.1);
        Ok(())
    }

    /// OpenLayer(char[0x40] display, u64 layer id, u64 aruid, pid) -> u64 size; native window in the out buffer.
    fn open_layer(&mut self, call: &mut Call) -> Result<(), Failure> {
        display_named(call)?;
        let (layer, aruid) = (call.u64(0x40), call.u64(0x48));
        let binder =
            self.system.display.borrow_mut().open_layer(layer, aruid).ok_or(Failure::Result(PERMISSION_DENIED))?;
        let written = call.write_buffer(0, &native_window(binder))?;
        call.push_u64(written as u64);
        Ok(())
    }

    /// CloseLayer(u64 layer id).
    fn close_layer(&mut self, call: &mut Call) -> Result<(), Failure> {
        if !self.system.display.borrow_mut().close_layer(call.u64(0)) {
            return Err(Failure::Result(NOT_FOUND));
        }
        Ok(())
    }

    /// CreateStrayLayer(u32 flags, u64 display id) -> u64 layer id, u64 size; native window in the out buffer.
    fn create_stray_layer(&mut self, call: &mut Call) -> Result<(), Failure> {
        if call.u64(8) != DISPLAY_ID {
            return Err(Failure::Result(NOT_FOUND));
        }
        let mut display = self.system.display.borrow_mut();
        let layer = display.create_layer(0).ok_or(Failure::Result(OPERATION_FAILED))?;
        let binder = display.open_layer(layer, 0).expect("a new layer opens");
        drop(display);
        let written = call.write_buffer(0, &native_window(binder))?;
        call.push_u64(layer);
        call.push_u64(written as u64);
        Ok(())
    }

    /// DestroyStrayLayer(u64 layer id).
    fn destroy_stray_layer(&mut self, call: &mut Call) -> Result<(), Failure> {
        if !self.system.display.borrow_mut().destroy_layer(call.u64(0)) {
            return Err(Failure::Result(NOT_FOUND));
        }
        Ok(())
    }

    /// SetLayerScalingMode(u32 mode, u64 layer): Nintendo's modes 0-4; the frames are written as rendered.
    fn set_layer_scaling_mode(&mut self, call: &mut Call) -> Result<(), Failure> {
        if call.u32(0) > 4 {
            return Err(Failure::Result(OPERATION_FAILED));
        }
        Ok(())
    }

    /// GetDisplayVsyncEvent(u64 display) -> copied event (once per service), signalled at each vertical blank (60 Hz
    /// of guest time).
    fn get_display_vsync_event(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.check_display(call)?;
        if std::mem::replace(&mut self.vsync_given, true) {
            return Err(Failure::Result(PERMISSION_DENIED));
        }
        call.copy_events.push(self.system.display.borrow().vsync.clone());
        Ok(())
    }
}

impl Interface for ApplicationDisplayService {
    const NAME: &'static str = "vi::IApplicationDisplayService";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(100, "GetRelayService", Self::get_relay_service),
        Command::new(101, "GetSystemDisplayService", Self::get_system_display_service),
        Command::new(102, "GetManagerDisplayService", Self::get_manager_display_service),
        Command::new(103, "GetIndirectDisplayTransactionService", Self::get_relay_service),
        Command::new(1010, "OpenDisplay", Self::open_display).input(0x40),
        Command::new(1011, "OpenDefaultDisplay", Self::open_default_display),
        Command::new(1020, "CloseDisplay", Self::check_display).input(8),
        Command::new(1102, "GetDisplayResolution", Self::get_display_resolution).input(8),
        Command::new(2020, "OpenLayer", Self::open_layer).input(0x50).pid().buffers(&[BufferKind::OutMapAlias]),
        Command::new(2021, "CloseLayer", Self::close_layer).input(8),
        Command::new(2030, "CreateStrayLayer", Self::create_stray_layer)
            .input(0x10)
            .buffers(&[BufferKind::OutMapAlias]),
        Command::new(2031, "DestroyStrayLayer", Self::destroy_stray_layer).input(8),
        Command::new(2101, "SetLayerScalingMode", Self::set_layer_scaling_mode).input(0x10),
        Command::new(5202, "GetDisplayVsyncEvent", Self::get_display_vsync_event).input(8),
    ];
}

/// ISystemDisplayService: nothing a program needs to show frames (its commands stop the run, naming them).
pub struct SystemDisplayService;

impl Interface for SystemDisplayService {
    const NAME: &'static str = "vi::ISystemDisplayService";
    const COMMANDS: &'static [Command<Self>] = &[];
}

/// IManagerDisplayService.
pub struct ManagerDisplayService {
    system: Rc<System>,
}

impl ManagerDisplayService {
    /// CreateManagedLayer(u32 flags, u64 display, u64 aruid) -> u64 layer id.
    fn create_managed_layer(&mut self, call: &mut Call) -> Result<(), Failure> {
        if call.u64(8) != DISPLAY_ID {
            return Err(Failure::Result(NOT_FOUND));
        }
        let layer =
            self.system.display.borrow_mut().create_layer(call.u64(0x10)).ok_or(Failure::Result(OPERATION_FAILED))?;
        call.push_u64(layer);
        Ok(())
    }

    /// DestroyManagedLayer(u64 layer id).
    fn destroy_managed_layer(&mut self, call: &mut Call) -> Result<(), Failure> {
        if !self.system.display.borrow_mut().destroy_layer(call.u64(0)) {
            return Err(Failure::Result(NOT_FOUND));
        }
        Ok(())
    }
}

impl Interface for ManagerDisplayService {
    const NAME: &'static str = "vi::IManagerDisplayService";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(2010, "CreateManagedLayer", Self::create_managed_layer).input(0x18),
        Command::new(2011, "DestroyManagedLayer", Self::destroy_managed_layer).input(8),
    ];
}

/// IHOSBinderDriver ("dispdrv"): transactions to binder objects (the layers' producers).
pub struct Relay {
    system: Rc<System>,
}

/// The largest parcel read.
const MAX_PARCEL: usize = 0x10000;

impl Relay {
    /// TransactParcel(s32 id, u32 code, u32 flags, in parcel, out parcel) and TransactParcelAuto (the same with
    /// auto-select buffers).
    fn transact_parcel(&mut self, call: &mut Call) -> Result<(), Failure> {
        let (binder, code) = (call.u32(0), call.u32(4));
        let request = call.read_buffer(0, MAX_PARCEL)?;
        let mut gpu = self.system.gpu.borrow_mut();
        let reply = self
            .system
            .display
            .borrow_mut()
            .transact(binder, code, &request, call.memory, &mut gpu, call.ticks)
            .map_err(|problem| Failure::Unimplemented { interface: Self::NAME, command_id: 0, what: Some(problem) })?;
        drop(gpu);
        call.write_buffer(1, &reply)?;
        Ok(())
    }

    /// AdjustRefcount(s32 id, s32 add, s32 type): binder objects live as long as their layer here.
    fn adjust_refcount(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Ok(())
    }

    /// GetNativeHandle(s32 id, u32 which) -> copied event: the producer's buffer-free event.
    fn get_native_handle(&mut self, call: &mut Call) -> Result<(), Failure> {
        let event = self.system.display.borrow().buffer_free_event(call.u32(0)).ok_or(Failure::Result(NOT_FOUND))?;
        call.copy_events.push(event);
        Ok(())
    }
}

impl Interface for Relay {
    const NAME: &'static str = "vi::IHOSBinderDriver";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "TransactParcel", Self::transact_parcel)
            .input(12)
            .buffers(&[BufferKind::InMapAlias, BufferKind::OutMapAlias]),
        Command::new(1, "AdjustRefcount", Self::adjust_refcount).input(12),
        Command::new(2, "GetNativeHandle", Self::get_native_handle).input(8),
        Command::new(3, "TransactParcelAuto", Self::transact_parcel)
            .input(12)
            .buffers(&[BufferKind::InAutoSelect, BufferKind::OutAutoSelect]),
    ];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipc::hipc::{Builder, Message};
    use crate::service::Object;
    use tandem_reference::memory::GuestMemory;

    /// Each root service has GetDisplayService at its own id only: vi:u's command 1 is another command, which
    /// stops the run naming it.
    #[test]
    fn root_services_answer_only_their_own_get_display_service() {
        let memory = GuestMemory::new().unwrap();
        let mut buffer = vec![0u8; 0x100];
        Builder { message_type: 4, ..Builder::default() }.write(&[0; 32], &mut buffer).unwrap();
        let message = Message::parse(&buffer).unwrap();
        let policy = [0u8; 4];
        let system = Rc::new(System::default());
        let run = |name, command_id| {
            let mut call = Call::new(&memory, 0, &message, &policy);
            RootService::new(system.clone(), name).handle(command_id, &mut call).map(|()| call.new_objects.len())
        };
        assert_eq!(run("vi:u", 0), Ok(1));
        assert_eq!(run("vi:s", 1), Ok(1));
        assert_eq!(run("vi:m", 2), Ok(1));
        let Err(Failure::Unimplemented { what, .. }) = run("vi:u", 1) else { panic!("vi:u command 1 ran") };
        assert_eq!(what.as_deref(), Some("GetDisplayServiceWithProxyNameExchange"));
        assert!(run("vi:s", 0).is_err() && run("vi:m", 1).is_err());
    }
}
