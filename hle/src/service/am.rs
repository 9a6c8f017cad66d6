//! `appletOE`, the applet manager's door for applications (switchbrew "Applet Manager services"): the proxy and
//! the state a program reads before it starts: its message queue (focus changes), focus state, operation and
//! performance modes, its applet resource user id, launch-time settings, and the account save data it ensures.

use super::fs::save::SaveData;
use super::fs::{SaveDataAttribute, save_folder_for};
use super::set::{LANGUAGES, language_code};
use super::{BufferKind, Call, Command, Failure, Interface, ServiceEvent, System};
use crate::ipc::ResultCode;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

/// A launch parameter channel with nothing in it (module 128, description 2).
pub const NO_DATA_IN_CHANNEL: ResultCode = ResultCode::new(128, 2);
/// ReceiveMessage with an empty queue (module 128, description 3).
pub const NO_MESSAGE: ResultCode = ResultCode::new(128, 3);
/// A storage read or write past its end.
pub const INVALID_OFFSET: ResultCode = ResultCode::new(128, 503);
/// LaunchParameterAccountPreselectedUser: its magic, and its size (magic, selected flag, user id, padding).
const PRESELECTED_USER_MAGIC: u32 = 0xc794_97ca;
const PRESELECTED_USER_SIZE: usize = 0x88;
/// AppletMessage FocusStateChanged: an application finds it in its queue at start.
const MESSAGE_FOCUS_STATE_CHANGED: u32 = 15;
/// FocusState InFocus.
const IN_FOCUS: u8 = 1;

/// What the application's objects share: its message queue and the event that says the queue is not empty.
struct AppletState {
    system: Rc<System>,
    messages: VecDeque<u32>,
    message_event: ServiceEvent,
    /// Signalled when the time the application spent suspended changes: never, as it is never suspended.
    suspended_tick_event: ServiceEvent,
    applet_resource_user_id: u64,
    /// The preselected user's launch parameter is still to be popped.
    preselected_user_pending: bool,
}

type Shared = Rc<RefCell<AppletState>>;

/// IApplicationProxyService.
pub struct ApplicationProxyService {
    system: Rc<System>,
}

impl ApplicationProxyService {
    pub fn new(system: Rc<System>) -> ApplicationProxyService {
        ApplicationProxyService { system }
    }

    /// OpenApplicationProxy(u64 reserved, pid, copied process handle) -> IApplicationProxy.
    fn open_application_proxy(&mut self, call: &mut Call) -> Result<(), Failure> {
        let message_event = ServiceEvent::default();
        message_event.signal();
        let state = AppletState {
            system: self.system.clone(),
            messages: VecDeque::from([MESSAGE_FOCUS_STATE_CHANGED]),
            message_event,
            suspended_tick_event: ServiceEvent::default(),
            applet_resource_user_id: call.pid,
            preselected_user_pending: true,
        };
        call.new_objects.push(Rc::new(RefCell::new(ApplicationProxy(Rc::new(RefCell::new(state))))));
        Ok(())
    }
}

impl Interface for ApplicationProxyService {
    const NAME: &'static str = "appletOE";
    const COMMANDS: &'static [Command<Self>] =
        &[Command::new(0, "OpenApplicationProxy", Self::open_application_proxy).input(8).pid()];
}

/// IApplicationProxy: the way to the application's other objects.
pub struct ApplicationProxy(Shared);

/// A proxy getter: a new object sharing the application's state.
fn hand_out<T: Interface>(call: &mut Call, object: T) -> Result<(), Failure> {
    call.new_objects.push(Rc::new(RefCell::new(object)));
    Ok(())
}

impl ApplicationProxy {
    fn get_common_state_getter(&mut self, call: &mut Call) -> Result<(), Failure> {
        hand_out(call, CommonStateGetter(self.0.clone()))
    }

    fn get_self_controller(&mut self, call: &mut Call) -> Result<(), Failure> {
        hand_out(call, SelfController(self.0.clone()))
    }

    fn get_window_controller(&mut self, call: &mut Call) -> Result<(), Failure> {
        hand_out(call, WindowController(self.0.clone()))
    }

    fn get_application_functions(&mut self, call: &mut Call) -> Result<(), Failure> {
        hand_out(call, ApplicationFunctions(self.0.clone()))
    }

    fn get_audio_controller(&mut self, call: &mut Call) -> Result<(), Failure> {
        hand_out(call, AudioController)
    }

    fn get_display_controller(&mut self, call: &mut Call) -> Result<(), Failure> {
        hand_out(call, DisplayController)
    }

    fn get_library_applet_creator(&mut self, call: &mut Call) -> Result<(), Failure> {
        hand_out(call, LibraryAppletCreator)
    }

    fn get_debug_functions(&mut self, call: &mut Call) -> Result<(), Failure> {
        hand_out(call, DebugFunctions)
    }
}

/// Objects libnx's appletInitialize gets and keeps, and whose commands Tandem has none of yet: each one called
/// stops the run naming it.
macro_rules! object_without_commands {
    ($($name:ident: $interface:literal),*) => {$(
        pub struct $name;

        impl Interface for $name {
            const NAME: &'static str = $interface;
            const COMMANDS: &'static [Command<Self>] = &[];
        }
    )*};
}

object_without_commands!(
    AudioController: "appletOE::IAudioController",
    DisplayController: "appletOE::IDisplayController",
    LibraryAppletCreator: "appletOE::ILibraryAppletCreator",
    DebugFunctions: "appletOE::IDebugFunctions"
);

impl Interface for ApplicationProxy {
    const NAME: &'static str = "appletOE::IApplicationProxy";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "GetCommonStateGetter", Self::get_common_state_getter),
        Command::new(1, "GetSelfController", Self::get_self_controller),
        Command::new(2, "GetWindowController", Self::get_window_controller),
        Command::new(3, "GetAudioController", Self::get_audio_controller),
        Command::new(4, "GetDisplayController", Self::get_display_controller),
        Command::new(11, "GetLibraryAppletCreator", Self::get_library_applet_creator),
        Command::new(20, "GetApplicationFunctions", Self::get_application_functions),
        Command::new(1000, "GetDebugFunctions", Self::get_debug_functions),
    ];
}

/// ICommonStateGetter.
pub struct CommonStateGetter(Shared);

impl CommonStateGetter {
    /// GetEventHandle() -> copied handle: signalled while messages wait.
    fn get_event_handle(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.copy_events.push(self.0.borrow().message_event.clone());
        Ok(())
    }

    /// ReceiveMessage() -> u32 message, or NoMessage; the event clears with the last message.
    fn receive_message(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mut state = self.0.borrow_mut();
        let message = state.messages.pop_front().ok_or(Failure::Result(NO_MESSAGE))?;
        if state.messages.is_empty() {
            state.message_event.clear();
        }
        call.push_u32(message);
        Ok(())
    }

    /// GetOperationMode() -> u8: 0 handheld, 1 docked.
    fn get_operation_mode(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(u32::from(self.0.borrow().system.docked));
        Ok(())
    }

    /// GetPerformanceMode() -> u32: 0 normal (handheld), 1 boost (docked).
    fn get_performance_mode(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(u32::from(self.0.borrow().system.docked));
        Ok(())
    }

    /// GetCurrentFocusState() -> u8: in focus.
    fn get_current_focus_state(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(u32::from(IN_FOCUS));
        Ok(())
    }
}

impl Interface for CommonStateGetter {
    const NAME: &'static str = "appletOE::ICommonStateGetter";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "GetEventHandle", Self::get_event_handle),
        Command::new(1, "ReceiveMessage", Self::receive_message),
        Command::new(5, "GetOperationMode", Self::get_operation_mode),
        Command::new(6, "GetPerformanceMode", Self::get_performance_mode),
        Command::new(9, "GetCurrentFocusState", Self::get_current_focus_state),
    ];
}

/// ISelfController: how the application wants focus changes and mode changes handled. Tandem keeps it in focus
/// in one mode, so the settings are logged and change nothing.
pub struct SelfController(Shared);

impl SelfController {
    /// CreateManagedDisplayLayer() -> u64 layer id: a layer of the default display for this application (libnx
    /// then opens it with vi's OpenLayer and its applet resource user id).
    fn create_managed_display_layer(&mut self, call: &mut Call) -> Result<(), Failure> {
        let state = self.0.borrow();
        let layer = state
            .system
            .display
            .borrow_mut()
            .create_layer(state.applet_resource_user_id)
            .ok_or(Failure::Result(super::vi::OPERATION_FAILED))?;
        call.push_u64(layer);
        Ok(())
    }

    /// GetAccumulatedSuspendedTickChangedEvent() -> event (never signalled: the application is never suspended).
    fn suspended_tick_changed_event(&mut self, call: &mut Call) -> Result<(), Failure> {
        let event = self.0.borrow().suspended_tick_event.clone();
        call.copy_events.push(event);
        Ok(())
    }

    fn setting(&mut self, call: &mut Call) -> Result<(), Failure> {
        let flags = call.argument_slice(0, 3.min(call.input_len()));
        tracing::debug!(target: "guest::am", ?flags, "ISelfController setting");
        Ok(())
    }
}

impl Interface for SelfController {
    const NAME: &'static str = "appletOE::ISelfController";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(11, "SetOperationModeChangedNotification", Self::setting).input(1),
        Command::new(12, "SetPerformanceModeChangedNotification", Self::setting).input(1),
        Command::new(13, "SetFocusHandlingMode", Self::setting).input(3),
        Command::new(16, "SetOutOfFocusSuspendingEnabled", Self::setting).input(1),
        Command::new(40, "CreateManagedDisplayLayer", Self::create_managed_display_layer),
        Command::new(91, "GetAccumulatedSuspendedTickChangedEvent", Self::suspended_tick_changed_event),
    ];
}

/// IWindowController.
pub struct WindowController(Shared);

impl WindowController {
    /// GetAppletResourceUserId() -> u64.
    fn get_applet_resource_user_id(&mut self, call: &mut Call) -> Result<(), Failure> {
        let id = self.0.borrow().applet_resource_user_id;
        call.push_u64(id);
        Ok(())
    }

    /// AcquireForegroundRights(): the application is the only one, in the foreground already.
    fn acquire_foreground_rights(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Ok(())
    }
}

impl Interface for WindowController {
    const NAME: &'static str = "appletOE::IWindowController";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(1, "GetAppletResourceUserId", Self::get_applet_resource_user_id),
        Command::new(10, "AcquireForegroundRights", Self::acquire_foreground_rights),
    ];
}

/// IApplicationFunctions.
pub struct ApplicationFunctions(Shared);

impl ApplicationFunctions {
    /// EnsureSaveData(AccountUid) -> u64 size still needed: the user's account save is made if missing.
    fn ensure_save_data(&mut self, call: &mut Call) -> Result<(), Failure> {
        let system = self.0.borrow().system.clone();
        let attribute = SaveDataAttribute { user: (call.u64(0), call.u64(8)), kind: 1, ..SaveDataAttribute::default() };
        let folder = save_folder_for(&system, Self::NAME, 20, &attribute)?;
        if !folder.is_dir() {
            SaveData::create(&folder).map_err(|error| {
                tracing::warn!(target: "tandem::fs", %error, folder = %folder.display(), "cannot create save data");
                Failure::Result(super::fs::results::UNEXPECTED)
            })?;
        }
        call.push_u64(0);
        Ok(())
    }

    /// GetDesiredLanguage() -> u64 language code: the system's.
    fn get_desired_language(&mut self, call: &mut Call) -> Result<(), Failure> {
        let language = self.0.borrow().system.language;
        call.push_u64(language_code(LANGUAGES[language]));
        Ok(())
    }

    /// PopLaunchParameter(u32 kind) -> IStorage: kind 2 once, the user the title was launched for (the console's
    /// user); kind 1, the caller's own channel, is empty.
    fn pop_launch_parameter(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mut state = self.0.borrow_mut();
        match call.u32(0) {
            1 => Err(NO_DATA_IN_CHANNEL.into()),
            2 if state.preselected_user_pending => {
                state.preselected_user_pending = false;
                let mut data = vec![0u8; PRESELECTED_USER_SIZE];
                data[..4].copy_from_slice(&PRESELECTED_USER_MAGIC.to_le_bytes());
                data[4] = 1;
                let (low, high) = state.system.user;
                data[8..16].copy_from_slice(&low.to_le_bytes());
                data[16..24].copy_from_slice(&high.to_le_bytes());
                hand_out(call, Storage(Rc::new(RefCell::new(data))))
            }
            2 => Err(NO_DATA_IN_CHANNEL.into()),
            kind => Err(Failure::Unimplemented {
                interface: Self::NAME,
                command_id: 1,
                what: Some(format!("PopLaunchParameter of kind {kind}")),
            }),
        }
    }

    /// NotifyRunning() -> bool: whether the application was restarted for a change it asked for (never).
    fn notify_running(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.push_u32(0);
        Ok(())
    }

    /// GetDisplayVersion() -> 16 bytes: the NACP's display version, NUL padded (all NUL for a program that came
    /// without control data).
    fn get_display_version(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mut version = [0u8; 16];
        let state = self.0.borrow();
        let text = state.system.display_version.as_bytes();
        // The loader read it from a 16-byte field that keeps a NUL.
        let length = text.len().min(15);
        version[..length].copy_from_slice(&text[..length]);
        call.push_bytes(&version);
        Ok(())
    }

    /// SetTerminateResult(u32 result): what the program ends with, for the log.
    fn set_terminate_result(&mut self, call: &mut Call) -> Result<(), Failure> {
        tracing::info!(target: "guest::am", result = %ResultCode(call.u32(0)), "terminate result set");
        Ok(())
    }
}

impl Interface for ApplicationFunctions {
    const NAME: &'static str = "appletOE::IApplicationFunctions";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(1, "PopLaunchParameter", Self::pop_launch_parameter).input(4),
        Command::new(20, "EnsureSaveData", Self::ensure_save_data).input(16),
        Command::new(21, "GetDesiredLanguage", Self::get_desired_language),
        Command::new(22, "SetTerminateResult", Self::set_terminate_result).input(4),
        Command::new(23, "GetDisplayVersion", Self::get_display_version),
        Command::new(40, "NotifyRunning", Self::notify_running),
    ];
}

/// IStorage: bytes an applet passes (here, launch parameters).
pub struct Storage(Rc<RefCell<Vec<u8>>>);

impl Storage {
    /// Open() -> IStorageAccessor.
    fn open(&mut self, call: &mut Call) -> Result<(), Failure> {
        hand_out(call, StorageAccessor(self.0.clone()))
    }
}

impl Interface for Storage {
    const NAME: &'static str = "appletOE::IStorage";
    const COMMANDS: &'static [Command<Self>] = &[Command::new(0, "Open", Self::open)];
}

/// IStorageAccessor.
pub struct StorageAccessor(Rc<RefCell<Vec<u8>>>);

impl StorageAccessor {
    /// GetSize() -> s64.
    fn get_size(&mut self, call: &mut Call) -> Result<(), Failure> {
        let size = self.0.borrow().len() as u64;
        call.push_u64(size);
        Ok(())
    }

    /// The offset argument, inside the storage.
    fn offset(&self, call: &Call) -> Result<usize, Failure> {
        let offset = call.u64(0);
        usize::try_from(offset).ok().filter(|&o| o <= self.0.borrow().len()).ok_or(Failure::Result(INVALID_OFFSET))
    }

    /// Write(s64 offset, in buffer): as much as fits.
    fn write(&mut self, call: &mut Call) -> Result<(), Failure> {
        let offset = self.offset(call)?;
        let room = self.0.borrow().len() - offset;
        let data = call.read_buffer(0, room)?;
        let mut storage = self.0.borrow_mut();
        storage[offset..offset + data.len()].copy_from_slice(&data);
        Ok(())
    }

    /// Read(s64 offset, out buffer): as much as there is.
    fn read(&mut self, call: &mut Call) -> Result<(), Failure> {
        let offset = self.offset(call)?;
        let data = self.0.borrow()[offset..].to_vec();
        call.write_buffer(0, &data)?;
        Ok(())
    }
}

impl Interface for StorageAccessor {
    const NAME: &'static str = "appletOE::IStorageAccessor";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "GetSize", Self::get_size),
        Command::new(10, "Write", Self::write).input(8).buffers(&[BufferKind::InAutoSelect]),
        Command::new(11, "Read", Self::read).input(8).buffers(&[BufferKind::OutAutoSelect]),
    ];
}
