//! `hid`: controllers as a program sees them (switchbrew "HID services"). IHidServer's commands configure the
//! npads (the supported styles and ids, hold type, assignment modes) and IAppletResource gives out the shared
//! memory (`shared_memory`) where the controllers' states appear, a new sample at every vertical blank.
//!
//! The console Tandem models is a handheld Switch with its Joy-Con attached: the Handheld npad is connected, and
//! so is No1 as a Pro Controller (FullKey) when the program supports that style, both fed by the same input. The
//! input is Tandem's `InputState` (the window's keys, and the mouse as a finger on the touch screen), so runs
//! repeat as their input log says.

pub mod shared_memory;

use super::{BufferKind, Call, Command, Failure, Interface, ServiceEvent, ServiceSharedMemory, System};
use crate::ipc::ResultCode;
use shared_memory::{NpadId, SharedMemoryWriter};
use std::cell::RefCell;
use std::rc::Rc;

/// hid's InvalidNpadIdType (the value Ryujinx's `ResultCode.InvalidNpadIdType` records).
const INVALID_NPAD_ID: ResultCode = ResultCode::new(202, 123);
/// More npad ids than there are (yuzu's `ResultInvalidArraySize`).
const INVALID_ARRAY_SIZE: ResultCode = ResultCode::new(202, 715);
/// The npad ids: No1-No8, Other, Handheld.
const NPAD_IDS: u64 = 10;

/// What the controllers and the touch screen report at one sample: buttons (`HidNpadButton` bits), the two sticks
/// (-0x7fff..=0x7fff), and a finger on the touch screen, if one is there (x, y in the screen's 1280x720 pixels).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputState {
    pub buttons: u64,
    pub stick_l: (i32, i32),
    pub stick_r: (i32, i32),
    pub touch: Option<(u32, u32)>,
}

/// The hid state every session shares: the configuration programs set and the shared memory.
pub struct Hid {
    pub shared_memory: ServiceSharedMemory,
    /// `HidNpadStyleTag` bits the program handles (SetSupportedNpadStyleSet).
    supported_styles: u32,
    /// Npad ids the program handles (SetSupportedNpadIdType).
    supported_ids: Vec<NpadId>,
    /// ActivateNpad came: samples are written from now on.
    npad_active: bool,
    /// ActivateTouchScreen came: touch samples are written from now on.
    touch_active: bool,
    hold_type: u64,
    handheld_activation_mode: u64,
    /// Signalled when a controller's style changes (the connections are made once, at activation).
    style_set_update: ServiceEvent,
    writer: SharedMemoryWriter,
    /// What the controllers report now (set by the host between samples).
    pub input: InputState,
}

impl Default for Hid {
    fn default() -> Hid {
        Hid {
            shared_memory: ServiceSharedMemory::new(shared_memory::SIZE),
            supported_styles: 0,
            supported_ids: Vec::new(),
            npad_active: false,
            touch_active: false,
            hold_type: 0,
            handheld_activation_mode: 0,
            style_set_update: ServiceEvent::default(),
            writer: SharedMemoryWriter::default(),
            input: InputState::default(),
        }
    }
}

impl Hid {
    /// The npads connected, with the style each has: Handheld, and No1 as a Pro Controller, where the program
    /// supports them.
    fn connected(&self) -> Vec<(NpadId, u32)> {
        let supports = |id: NpadId, style: u32| self.supported_ids.contains(&id) && self.supported_styles & style != 0;
        [(NpadId::Handheld, shared_memory::STYLE_HANDHELD), (NpadId::No1, shared_memory::STYLE_FULL_KEY)]
            .into_iter()
            .filter(|&(id, style)| supports(id, style))
            .collect()
    }

    /// The connections, written when the configuration changes.
    fn reconnect(&mut self) {
        if !self.npad_active {
            return;
        }
        let connected = self.connected();
        self.writer.connect(&self.shared_memory, &connected);
        self.style_set_update.signal();
    }

    /// What `samples` samples of the input as it is now leave besides their entries (an idle jump's frames before its last
    /// [`shared_memory::LIFO_ENTRIES`], whose samples overwrite every entry).
    pub fn skip(&mut self, samples: u64) {
        let connected = if self.npad_active { self.connected() } else { Vec::new() };
        self.writer.skip(&self.shared_memory, &connected, self.touch_active, &self.input, samples);
    }

    /// One sample (at each vertical blank): every connected npad's lifo, and the touch screen's once activated,
    /// get the input as it is now.
    pub fn sample(&mut self) {
        let connected = if self.npad_active { self.connected() } else { Vec::new() };
        self.writer.sample(&self.shared_memory, &connected, self.touch_active, &self.input);
    }
}

/// IHidServer.
pub struct HidServer {
    system: Rc<System>,
}

impl HidServer {
    pub fn new(system: Rc<System>) -> HidServer {
        HidServer { system }
    }

    fn hid(&self) -> std::cell::RefMut<'_, Hid> {
        self.system.hid.borrow_mut()
    }

    /// CreateAppletResource(u64 aruid, pid) -> IAppletResource.
    fn create_applet_resource(&mut self, call: &mut Call) -> Result<(), Failure> {
        call.new_objects.push(Rc::new(RefCell::new(AppletResource { system: self.system.clone() })));
        Ok(())
    }

    /// Activate{DebugPad,Mouse,Keyboard}(u64 aruid, pid): those devices' sections stay empty (none is attached).
    fn activate_device(&mut self, _call: &mut Call) -> Result<(), Failure> {
        Ok(())
    }

    /// ActivateTouchScreen(u64 aruid, pid): the touch screen's lifo gets a sample at every vertical blank.
    fn activate_touch_screen(&mut self, _call: &mut Call) -> Result<(), Failure> {
        self.hid().touch_active = true;
        Ok(())
    }

    /// SetSupportedNpadStyleSet(u32 style set, u64 aruid, pid).
    fn set_supported_style_set(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mut hid = self.hid();
        hid.supported_styles = call.u32(0);
        hid.reconnect();
        Ok(())
    }

    /// GetSupportedNpadStyleSet(u64 aruid, pid) -> u32.
    fn get_supported_style_set(&mut self, call: &mut Call) -> Result<(), Failure> {
        let styles = self.hid().supported_styles;
        call.push_u32(styles);
        Ok(())
    }

    /// SetSupportedNpadIdType(u64 aruid, pid, in u32 ids[]): every id must be one of No1-No8, Other, Handheld.
    fn set_supported_ids(&mut self, call: &mut Call) -> Result<(), Failure> {
        if call.buffer(0).size > 4 * NPAD_IDS {
            return Err(INVALID_ARRAY_SIZE.into());
        }
        let bytes = call.read_buffer(0, 4 * NPAD_IDS as usize)?;
        let ids = bytes
            .chunks_exact(4)
            .map(|id| NpadId::from_u32(u32::from_le_bytes(id.try_into().expect("four bytes"))))
            .collect::<Option<Vec<NpadId>>>()
            .ok_or(Failure::Result(INVALID_NPAD_ID))?;
        let mut hid = self.hid();
        hid.supported_ids = ids;
        hid.reconnect();
        Ok(())
    }

    /// ActivateNpad(u64 aruid, pid) and ActivateNpadWithRevision(s32 revision, u64 aruid, pid).
    fn activate_npad(&mut self, _call: &mut Call) -> Result<(), Failure> {
        let mut hid = self.hid();
        hid.npad_active = true;
        hid.reconnect();
        Ok(())
    }

    /// DeactivateNpad(u64 aruid, pid): samples stop; the shared memory keeps the last ones.
    fn deactivate_npad(&mut self, _call: &mut Call) -> Result<(), Failure> {
        self.hid().npad_active = false;
        Ok(())
    }

    /// AcquireNpadStyleSetUpdateEventHandle(u32 npad id, u64 aruid, u64 event pointer, pid) -> event.
    fn style_set_update_event(&mut self, call: &mut Call) -> Result<(), Failure> {
        NpadId::from_u32(call.u32(0)).ok_or(Failure::Result(INVALID_NPAD_ID))?;
        let event = self.hid().style_set_update.clone();
        call.copy_events.push(event);
        Ok(())
    }

    /// SetNpadJoyHoldType(u64 aruid, u64 hold type, pid).
    fn set_hold_type(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.hid().hold_type = call.u64(8);
        Ok(())
    }

    /// GetNpadJoyHoldType(u64 aruid, pid) -> u64.
    fn get_hold_type(&mut self, call: &mut Call) -> Result<(), Failure> {
        let hold_type = self.hid().hold_type;
        call.push_u64(hold_type);
        Ok(())
    }

    /// SetNpadJoyAssignmentMode{SingleByDefault,Single,Dual}(u32 npad id, u64 aruid, ...): the attached Joy-Con
    /// stay a pair in handheld mode whatever the mode, so only the id is checked.
    fn set_assignment_mode(&mut self, call: &mut Call) -> Result<(), Failure> {
        NpadId::from_u32(call.u32(0)).ok_or(Failure::Result(INVALID_NPAD_ID))?;
        Ok(())
    }

    /// SetNpadHandheldActivationMode(u64 aruid, u64 mode, pid).
    fn set_handheld_activation_mode(&mut self, call: &mut Call) -> Result<(), Failure> {
        self.hid().handheld_activation_mode = call.u64(8);
        Ok(())
    }

    /// GetNpadHandheldActivationMode(u64 aruid, pid) -> u64.
    fn get_handheld_activation_mode(&mut self, call: &mut Call) -> Result<(), Failure> {
        let mode = self.hid().handheld_activation_mode;
        call.push_u64(mode);
        Ok(())
    }
}

impl Interface for HidServer {
    const NAME: &'static str = "hid";
    const COMMANDS: &'static [Command<Self>] = &[
        Command::new(0, "CreateAppletResource", Self::create_applet_resource).input(8).pid(),
        Command::new(1, "ActivateDebugPad", Self::activate_device).input(8).pid(),
        Command::new(11, "ActivateTouchScreen", Self::activate_touch_screen).input(8).pid(),
        Command::new(21, "ActivateMouse", Self::activate_device).input(8).pid(),
        Command::new(31, "ActivateKeyboard", Self::activate_device).input(8).pid(),
        Command::new(100, "SetSupportedNpadStyleSet", Self::set_supported_style_set).input(16).pid(),
        Command::new(101, "GetSupportedNpadStyleSet", Self::get_supported_style_set).input(8).pid(),
        Command::new(102, "SetSupportedNpadIdType", Self::set_supported_ids)
            .input(8)
            .pid()
            .buffers(&[BufferKind::InPointer]),
        Command::new(103, "ActivateNpad", Self::activate_npad).input(8).pid(),
        Command::new(104, "DeactivateNpad", Self::deactivate_npad).input(8).pid(),
        Command::new(106, "AcquireNpadStyleSetUpdateEventHandle", Self::style_set_update_event).input(24).pid(),
        Command::new(109, "ActivateNpadWithRevision", Self::activate_npad).input(16).pid(),
        Command::new(120, "SetNpadJoyHoldType", Self::set_hold_type).input(16).pid(),
        Command::new(121, "GetNpadJoyHoldType", Self::get_hold_type).input(8).pid(),
        Command::new(122, "SetNpadJoyAssignmentModeSingleByDefault", Self::set_assignment_mode).input(16).pid(),
        Command::new(123, "SetNpadJoyAssignmentModeSingle", Self::set_assignment_mode).input(24).pid(),
        Command::new(124, "SetNpadJoyAssignmentModeDual", Self::set_assignment_mode).input(16).pid(),
        Command::new(128, "SetNpadHandheldActivationMode", Self::set_handheld_activation_mode).input(16).pid(),
        Command::new(129, "GetNpadHandheldActivationMode", Self::get_handheld_activation_mode).input(8).pid(),
    ];
}

/// IAppletResource.
pub struct AppletResource {
    system: Rc<System>,
}

impl AppletResource {
    /// GetSharedMemoryHandle() -> copied shared memory handle (0x40000 bytes, mapped read-only).
    fn shared_memory_handle(&mut self, call: &mut Call) -> Result<(), Failure> {
        let memory = self.system.hid.borrow().shared_memory.clone();
        call.copy_shared_memories.push(memory);
        Ok(())
    }
}

impl Interface for AppletResource {
    const NAME: &'static str = "hid IAppletResource";
    const COMMANDS: &'static [Command<Self>] = &[Command::new(0, "GetSharedMemoryHandle", Self::shared_memory_handle)];
}
