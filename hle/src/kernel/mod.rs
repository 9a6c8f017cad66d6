//! The Horizon kernel: one process, its threads on N guest cores, handles, synchronisation and memory SVCs. It runs
//! threads on whichever `Engine` it is given, a quantum at a time, and never knows which CPU path that is.
//!
//! # Cores and guest time
//!
//! The platform says how many cores there are ([`Platform`]); the NPDM (or hbloader's defaults for a homebrew NRO)
//! says which of them the program may use. The cores are *interleaved*, never run in parallel: in a fixed order
//! (core 0, 1, 2, ...) each core runs the thread the scheduler gives it for up to [`QUANTUM`] retired instructions,
//! handling its SVCs as they come (an SVC that blocks or wakes a better thread changes the core's thread within
//! the quantum). Then the next core runs. That order is the only order, so two runs of a program are identical.
//!
//! Guest time is one clock for the whole machine: the sum over all cores of the instructions retired so far, plus
//! the time skipped while every core is idle (then the clock jumps to the next timer). A core's run starts at that
//! clock (`GuestClock`), so CNTVCT_EL0, GetSystemTick (clock / `INSTRUCTIONS_PER_TICK`), sleeps, timeouts and the
//! preemption timer all read the same, strictly increasing time; an event one thread causes is never seen by
//! another thread at an earlier time. The price: with three busy cores, each thread sees time pass three times as
//! fast as its own instructions. A core's run is cut short at the next timer, so timeouts fire on the tick.
//!
//! # Waiting
//!
//! A thread that blocks in an SVC keeps its registers as the SVC left them; whoever ends the wait writes the SVC's
//! results (X0, and X1 for WaitSynchronization's index) into them. When every thread waits for something only
//! another waiting thread could do, and no timer is pending, the run stops with a report of what each one waits for.

pub mod address_space;
mod guest_ipc;
mod handle_table;
mod locks;
mod scheduler;
mod svc;
mod thread;
mod wait;

pub use crate::report::{StopReason, StopReport};
pub use svc::svc_name;

use crate::hex;
use crate::loader::npdm::{Capability, SvcSet, ThreadInfo};
use crate::loader::{LoadError, Module};
use crate::placement::{Contents, map_module};
use crate::program::Program;
use crate::service::{Sessions, System, WatchedEvent};
use address_space::{Block, CODE_BASE, MemoryMap, MemoryState, STACK_REGION, TLS_AREA};
use handle_table::HandleTable;
use scheduler::Scheduler;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::rc::Rc;
use svc::KernelResult;
use tandem_reference::engine::{Engine, Exit, GuestClock, INSTRUCTIONS_PER_TICK};
use tandem_reference::memory::{GuestMemory, MapError, PAGE_SIZE, Perm};
use tandem_reference::state::CpuState;
use thread::{SyncObject, Thread, ThreadState, Wait};

/// Instructions a core runs before the next core's turn.
pub const QUANTUM: u64 = 100_000;
/// The main thread's stack when no NPDM says otherwise.
pub const DEFAULT_STACK_SIZE: u64 = 0x10_0000;
/// The process id: the first id Horizon gives a process that is not one of the kernel's initial processes.
pub const PROCESS_ID: u64 = 0x51;
/// Thread ids count up from here, in creation order.
const FIRST_THREAD_ID: u64 = 1;
/// Bytes of one thread-local region.
const TLS_SIZE: u64 = 0x200;
/// Where in its thread-local region a thread finds its own handle.
const TLS_THREAD_HANDLE: u64 = 0x110;
/// The display's refresh: 60 Hz of the 19.2 MHz counter.
const VSYNC_PERIOD_TICKS: u64 = 19_200_000 / 60;

/// The preemption timer's period: 10 ms of guest ticks.
const PREEMPTION_PERIOD_TICKS: u64 = tandem_reference::engine::COUNTER_FREQUENCY_HZ / 100;
/// What a homebrew NRO gets without an NPDM: hbloader's (priorities 28-59, cores 0-2, main thread at 44 on core 0,
/// 512 handles).
const HBLOADER_THREAD_INFO: ThreadInfo =
    ThreadInfo { highest_priority: 28, lowest_priority: 59, min_core: 0, max_core: 2 };
const HBLOADER_MAIN_PRIORITY: u8 = 44;
const HBLOADER_HANDLE_TABLE_SIZE: usize = 512;

/// The machine: its core count, and which core's preemption timer rotates which priority.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Platform {
    pub name: &'static str,
    pub cores: usize,
}

impl Platform {
    /// Four Cortex-A57 cores; applications get cores 0-2 (from their NPDM), core 3 is the system's.
    pub const SWITCH: Platform = Platform { name: "Switch", cores: 4 };
    /// Eight Cortex-A78C cores; applications get six.
    pub const SWITCH_2: Platform = Platform { name: "Switch 2", cores: 8 };

    /// The priority the preemption timer rotates on `core`: 63 on the last (system) core, 59 on the others.
    fn preemption_priority(self, core: usize) -> u8 {
        if core + 1 == self.cores { 63 } else { 59 }
    }
}

/// A module as placed in the address space.
#[derive(Clone, Debug)]
pub struct LoadedModule {
    pub name: String,
    pub base: u64,
    pub size: u64,
    pub build_id: [u8; 32],
}

/// Where guest text (OutputDebugString) goes.
pub type OutputSink = Box<dyn FnMut(&[u8])>;

/// The controllers' input at a hid sample (given its counter tick).
pub type PadSource = Box<dyn FnMut(u64) -> crate::service::hid::InputState>;

/// How a run ended.
#[derive(Debug)]
pub enum RunOutcome {
    /// The program called ExitProcess, or its last thread exited.
    Exited,
    /// The program stopped for a reason that needs a person's attention.
    Stopped(Box<StopReport>),
    /// The host asked the run to end (the person closed the window).
    Interrupted,
}

#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("cannot place module {module} at {base:#x}: {error}")]
    Placement { module: String, base: u64, error: MapError },
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("setting up the address space: {0}")]
    Memory(#[from] MapError),
    #[error("module {module} is linked at {base:#x}, outside the 39-bit address space")]
    OutOfAddressSpace { module: String, base: u64 },
    #[error("the NPDM gives the program no core of the {platform} ({min_core}-{max_core})")]
    NoCores { platform: &'static str, min_core: u8, max_core: u8 },
    #[error("the NPDM's main thread stack of {size:#x} bytes is larger than the stack region holds ({most:#x})")]
    StackTooLarge { size: u64, most: u64 },
}

/// A thread's id; also the kernel's key for it (ids are never reused).
pub type ThreadId = u64;

/// What a handle names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum KernelObject {
    Thread(ThreadId),
    /// The writable side of an event (SignalEvent, ClearEvent).
    WritableEvent(u64),
    /// The readable side (WaitSynchronization, ClearEvent, ResetSignal).
    ReadableEvent(u64),
    /// The client side of a session to a host service (SendSyncRequest).
    Session(u64),
    SharedMemory(u64),
    TransferMemory(u64),
    CodeMemory(u64),
    /// A port the program serves (ManageNamedPort, sm's RegisterService): AcceptSession, ReplyAndReceive.
    ServerPort(u64),
    /// The sides of a session between threads of the program.
    ClientSession(u64),
    ServerSession(u64),
}

/// An event (CreateEvent): one signalled flag, two kinds of handles.
#[derive(Debug, Default)]
struct Event {
    signaled: bool,
    /// Readable handles plus waits on the event; at 0 the readable side is gone and signalling does nothing.
    readable_references: u32,
    writable_references: u32,
    /// Threads in WaitSynchronization on it, in the order they started waiting (once per handle given).
    waiters: Vec<ThreadId>,
}

/// The process's limits, from its NPDM.
#[derive(Clone, Copy, Debug)]
struct Limits {
    program_id: u64,
    core_mask: u64,
    priority_mask: u64,
    /// The main thread's core, also what CreateThread's "process default" (-2) means.
    ideal_core: usize,
    /// The NPDM's system resource: memory for the process's own kernel use, which MapPhysicalMemory needs.
    system_resource_size: u64,
}

pub struct Kernel {
    pub memory: GuestMemory,
    map: MemoryMap,
    pub modules: Vec<LoadedModule>,
    platform: Platform,
    limits: Limits,
    allowed_svcs: Option<SvcSet>,
    threads: BTreeMap<ThreadId, Thread>,
    next_thread_id: ThreadId,
    handles: HandleTable<KernelObject>,
    events: BTreeMap<u64, Event>,
    next_event_id: u64,
    scheduler: Scheduler,
    /// Timed waits: (tick, sequence number, thread); the sequence orders equal ticks by when they were set.
    timers: BTreeSet<(u64, u64, ThreadId)>,
    next_timer_sequence: u64,
    next_preemption_tick: u64,
    /// The display's next vertical blank (every 1/60 s of guest time).
    next_vsync_tick: u64,
    /// WaitProcessWideKeyAtomic waiters and WaitForAddress waiters, in arrival order (signals take them by key, then
    /// priority, then this order).
    condition_waiters: Vec<ThreadId>,
    address_waiters: Vec<ThreadId>,
    /// MapMemory aliases: destination -> (size, source).
    aliases: BTreeMap<u64, (u64, u64)>,
    /// Thread-local regions in use, by slot.
    tls_slots: Vec<bool>,
    /// The process's own region in the thread-local area (Horizon's process local region, which GetInfo's
    /// UserExceptionContextAddress names): the first one, made before the main thread's.
    process_local_region: u64,
    heap_size: u64,
    /// Guest time in instructions (see the module documentation).
    now: u64,
    /// Instructions retired by all threads.
    retired: u64,
    max_instructions: Option<u64>,
    /// What the controllers report at the hid sample of a vertical blank (its counter tick); `None`: nothing pressed.
    pad_source: Option<PadSource>,
    /// Set by the host to end the run (`RunOutcome::Interrupted`) at the next round of the cores.
    interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The core running and the thread whose instructions or SVC are being handled.
    current: Option<(usize, ThreadId)>,
    output: OutputSink,
    /// Sessions to host services, by the id a [`KernelObject::Session`] holds.
    sessions: Sessions,
    /// What the services report about the console.
    system: Rc<System>,
    /// Events services have handed out (the kernel event, and the service's), whose signals the kernel carries out
    /// after each request; an event the service dropped loses its writer.
    service_events: Vec<(u64, WatchedEvent)>,
    /// Services' shared memory with kernel objects, kept in step by `sync_service_shared_memories`.
    service_shared_memories: Vec<crate::service::ServiceSharedMemory>,
    shared_memories: BTreeMap<u64, svc::SharedMemory>,
    transfer_memories: BTreeMap<u64, svc::TransferMemory>,
    code_memories: BTreeMap<u64, svc::CodeMemory>,
    /// The id the next shared or transfer memory object gets.
    next_memory_object: u64,
    ports: BTreeMap<u64, guest_ipc::Port>,
    guest_sessions: BTreeMap<u64, guest_ipc::GuestSession>,
    /// Named ports (ManageNamedPort), by name.
    port_names: BTreeMap<String, u64>,
    /// Services the program registered with `sm:`, by name.
    registered_services: BTreeMap<String, u64>,
    /// The id the next port or session between threads gets.
    next_ipc_object: u64,
}

impl Kernel {
    /// Creates the process on a Switch: see [`Kernel::with_platform`].
    pub fn new(program: &Program, output: OutputSink) -> Result<Kernel, KernelError> {
        Kernel::with_platform(program, Platform::SWITCH, output)
    }

    /// Creates the process: places the modules as Horizon's loader does (one after another from the code base,
    /// execution at the first), maps the main thread's stack and thread-local region, and makes the main thread
    /// runnable with its handle in X1.
    pub fn with_platform(program: &Program, platform: Platform, output: OutputSink) -> Result<Kernel, KernelError> {
        let mut memory = GuestMemory::new()?;
        let mut map = MemoryMap::default();
        let mut modules = Vec::new();
        let mut next_base = CODE_BASE;
        for module in &program.modules {
            let base = match module.link_base {
                Some(base) if base < CODE_BASE || base >= address_space::ASLR_REGION.end() => {
                    return Err(KernelError::OutOfAddressSpace { module: module.name.clone(), base });
                }
                Some(base) => base,
                None => next_base,
            };
            place_module(&mut memory, &mut map, module, base)?;
            next_base = base + module.image_size();
            modules.push(LoadedModule {
                name: module.name.clone(),
                base,
                size: module.image_size(),
                build_id: module.build_id,
            });
        }

        let npdm = program.npdm.as_ref();
        let thread_info = npdm.and_then(|npdm| npdm.aci.kernel.thread_info).unwrap_or(HBLOADER_THREAD_INFO);
        let platform_cores = (1u64 << platform.cores) - 1;
        let core_mask = range_mask(thread_info.min_core, thread_info.max_core) & platform_cores;
        if core_mask == 0 {
            let ThreadInfo { min_core, max_core, .. } = thread_info;
            return Err(KernelError::NoCores { platform: platform.name, min_core, max_core });
        }
        let priority_mask = range_mask(thread_info.highest_priority, thread_info.lowest_priority);
        let wanted_core = npdm.map_or(0, |npdm| u32::from(npdm.main_thread_core));
        let allowed = core_mask.checked_shr(wanted_core).is_some_and(|mask| mask & 1 != 0);
        let ideal_core = if allowed { wanted_core } else { core_mask.trailing_zeros() } as usize;
        let limits = Limits {
            program_id: npdm.map_or(0, |npdm| npdm.aci.program_id),
            core_mask,
            priority_mask,
            ideal_core,
            system_resource_size: npdm.map_or(0, |npdm| u64::from(npdm.system_resource_size)),
        };
        let handle_table_size = npdm
            .and_then(|npdm| {
                npdm.aci.kernel.other.iter().find_map(|capability| match capability {
                    Capability::HandleTableSize(size) => Some(usize::from(*size)),
                    _ => None,
                })
            })
            .unwrap_or(HBLOADER_HANDLE_TABLE_SIZE);

        let stack_size = npdm.map_or(DEFAULT_STACK_SIZE, |npdm| {
            u64::from(npdm.main_thread_stack_size).next_multiple_of(PAGE_SIZE).max(PAGE_SIZE)
        });
        // The stack lies below the thread-local area, in the stack region.
        let most = STACK_REGION.size - TLS_AREA.size;
        if stack_size > most {
            return Err(KernelError::StackTooLarge { size: stack_size, most });
        }
        let stack_base = STACK_REGION.base;
        memory.map(stack_base, stack_size, Perm::RW)?;
        map.insert(stack_base, stack_size, MemoryState::Stack, Perm::RW);

        let mut kernel = Kernel {
            memory,
            map,
            modules,
            platform,
            limits,
            allowed_svcs: npdm.map(|npdm| npdm.aci.kernel.allowed_svcs),
            threads: BTreeMap::new(),
            next_thread_id: FIRST_THREAD_ID,
            handles: HandleTable::new(handle_table_size),
            events: BTreeMap::new(),
            next_event_id: 1,
            scheduler: Scheduler::new(platform.cores),
            timers: BTreeSet::new(),
            next_timer_sequence: 0,
            next_preemption_tick: PREEMPTION_PERIOD_TICKS,
            next_vsync_tick: VSYNC_PERIOD_TICKS,
            condition_waiters: Vec::new(),
            address_waiters: Vec::new(),
            aliases: BTreeMap::new(),
            tls_slots: vec![false; (TLS_AREA.size / TLS_SIZE) as usize],
            process_local_region: 0,
            heap_size: 0,
            now: 0,
            retired: 0,
            max_instructions: None,
            interrupt: None,
            pad_source: None,
            current: None,
            output,
            sessions: Sessions::default(),
            service_events: Vec::new(),
            service_shared_memories: Vec::new(),
            shared_memories: BTreeMap::new(),
            transfer_memories: BTreeMap::new(),
            code_memories: BTreeMap::new(),
            next_memory_object: 1,
            ports: BTreeMap::new(),
            guest_sessions: BTreeMap::new(),
            port_names: BTreeMap::new(),
            registered_services: BTreeMap::new(),
            next_ipc_object: 1,
            system: Rc::new(System {
                program_id: limits.program_id,
                romfs: program.romfs.clone(),
                display_version: program.nacp.as_ref().map(|nacp| nacp.display_version.clone()).unwrap_or_default(),
                ..System::default()
            }),
        };
        kernel.process_local_region = kernel.allocate_tls().expect("a new process has thread-local room");
        let entry = kernel.modules.first().map_or(CODE_BASE, |m| m.base)
            + program.modules.first().map_or(0, Module::entry_offset);
        let priority =
            npdm.map_or(HBLOADER_MAIN_PRIORITY, |npdm| npdm.main_thread_priority.min(scheduler::LOWEST_PRIORITY));
        let (main, handle) = kernel
            .create_thread(entry, 0, stack_base + stack_size, priority, ideal_core, None)
            .expect("a new process has room for its main thread");
        kernel.thread_mut(main).cpu.x[1] = u64::from(handle);
        kernel.start_thread(main);
        tracing::debug!(entry = format_args!("{entry:#x}"), modules = kernel.modules.len(), "process created");
        Ok(kernel)
    }

    /// The system's settings, which are set up before the program runs (no service holds them yet).
    fn system_before_services(system: &mut Rc<System>) -> &mut System {
        Rc::get_mut(system).expect("system settings are set before any service is opened")
    }

    /// Records the GPU's command trace from now on.
    pub fn start_gpu_trace(&mut self, recorder: tandem_gpu::trace::Recorder) {
        self.system.gpu.borrow_mut().gpu.start_recording(recorder);
    }

    /// Writes out the rest of the GPU's command trace.
    pub fn finish_gpu_trace(&mut self) -> std::io::Result<()> {
        self.system.gpu.borrow_mut().gpu.flush_trace()
    }

    /// Where the frames the program shows go.
    pub fn set_frame_sink(&mut self, sink: crate::service::vi::display::FrameSink) {
        self.system.display.borrow_mut().set_frame_sink(sink);
    }

    /// Frames the program has shown.
    pub fn frames_shown(&self) -> u64 {
        self.system.display.borrow().frames()
    }

    /// Where save data lives on the host (a folder per title and user under it).
    pub fn set_save_folder(&mut self, folder: Option<PathBuf>) {
        Self::system_before_services(&mut self.system).save_folder = folder;
    }

    /// The host folder that is the SD card (`None`: no card inserted).
    pub fn set_sd_card_folder(&mut self, folder: Option<PathBuf>) {
        Self::system_before_services(&mut self.system).sd_card_folder = folder;
    }

    /// The system clocks' time at boot (POSIX seconds).
    pub fn set_clock_epoch(&mut self, seconds: u64) {
        Self::system_before_services(&mut self.system).clock_epoch = seconds;
    }

    /// Where the controllers' input comes from: asked at each vertical blank's hid sample with its counter tick
    /// (a replay answers from its input log, a live run from the window and records what it answered).
    pub fn set_pad_source(&mut self, source: PadSource) {
        self.pad_source = Some(source);
    }

    /// Ends the run with `RunOutcome::Interrupted` once `flag` is set (from any thread); checked between rounds
    /// of the cores, so the run ends between instructions, never inside an SVC.
    pub fn set_interrupt(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.interrupt = Some(flag);
    }

    /// Stops the run (with a report) once this many instructions have retired.
    pub fn set_max_instructions(&mut self, limit: Option<u64>) {
        self.max_instructions = limit;
    }

    /// Instructions the process has retired so far.
    pub fn retired(&self) -> u64 {
        self.retired
    }

    /// Where the main thread starts (its PC until the process runs).
    pub fn entry_point(&self) -> u64 {
        self.threads.get(&FIRST_THREAD_ID).map_or(CODE_BASE, |main| main.cpu.pc)
    }

    /// Guest time in counter ticks.
    fn tick(&self) -> u64 {
        self.now / INSTRUCTIONS_PER_TICK
    }

    fn thread_mut(&mut self, id: ThreadId) -> &mut Thread {
        self.threads.get_mut(&id).expect("the kernel only keeps ids of live thread objects")
    }

    /// The thread whose SVC is being handled.
    fn current_thread(&self) -> ThreadId {
        self.current.expect("SVCs come from a running thread").1
    }

    fn cpu(&mut self) -> &mut CpuState {
        let id = self.current_thread();
        &mut self.thread_mut(id).cpu
    }

    /// Runs the process on `engine` until it exits or stops.
    pub fn run(&mut self, engine: &mut dyn Engine) -> RunOutcome {
        loop {
            if self.interrupt.as_ref().is_some_and(|flag| flag.load(std::sync::atomic::Ordering::Relaxed)) {
                return RunOutcome::Interrupted;
            }
            let mut any_ran = false;
            for core in 0..self.platform.cores {
                match self.run_core(core, engine) {
                    Ok(ran) => any_ran |= ran,
                    Err(outcome) => return outcome,
                }
            }
            if let Err(outcome) = self.poll_gpu() {
                return outcome;
            }
            if !any_ran {
                // Every core is idle: jump to the next timer (or vertical blank someone waits for), or stop if nothing
                // can ever happen.
                let timer = self.timers.first().map(|&(tick, _, _)| tick);
                let vsync = self.vsync_awaited().then_some(self.next_vsync_tick);
                match timer.into_iter().chain(vsync).min().and_then(|tick| tick.checked_mul(INSTRUCTIONS_PER_TICK)) {
                    Some(due) => self.now = self.now.max(due),
                    None => return self.deadlock(),
                }
            }
        }
    }

    /// The GPU polls what holds its channels, as the hardware does: a semaphore the CPU writes, with no driver
    /// call after it, lets a channel go on within a round of the cores.
    fn poll_gpu(&mut self) -> Result<(), RunOutcome> {
        let mut host = self.system.gpu.borrow_mut();
        if !host.gpu.is_busy() {
            return Ok(());
        }
        let result = host.run(&self.memory, self.tick());
        drop(host);
        match result {
            Ok(()) => {
                self.carry_out_service_events();
                Ok(())
            }
            Err(error) => Err(self.stop(StopReason::Gpu(error), None)),
        }
    }

    /// One core's turn: up to a quantum of instructions, from whichever threads the scheduler gives it. `Ok(false)`
    /// when the core had nothing to run.
    fn run_core(&mut self, core: usize, engine: &mut dyn Engine) -> Result<bool, RunOutcome> {
        let mut left = QUANTUM;
        let mut ran = false;
        while left > 0 {
            self.fire_timers();
            if self.scheduler.needs_update() {
                self.scheduler.update(self.tick());
            }
            let Some(id) = self.scheduler.highest(core) else { break };
            let mut budget = left.min(self.instructions_to_next_timer());
            if let Some(limit) = self.max_instructions {
                if self.retired >= limit {
                    self.current = Some((core, id));
                    return Err(self.stop(StopReason::InstructionLimit(limit), None));
                }
                budget = budget.min(limit - self.retired);
            }
            ran = true;
            self.current = Some((core, id));
            let clock = GuestClock { instructions_before: self.now };
            let thread = self.threads.get_mut(&id).expect("the scheduler runs live threads");
            let result = engine.run(&mut thread.cpu, &self.memory, budget, clock);
            // Leaving the core is an exception return: the local exclusive monitor clears, so no other thread can
            // slip between this thread's load-exclusive and store-exclusive.
            thread.cpu.exclusive.clear();
            self.now += result.retired;
            self.retired += result.retired;
            left = left.saturating_sub(result.retired);
            match result.exit {
                Exit::BudgetSpent => {}
                Exit::Svc(number) => {
                    if let Some(outcome) = self.dispatch_svc(number) {
                        return Err(outcome);
                    }
                }
                Exit::Brk(immediate) => return Err(self.stop(StopReason::Brk(immediate), self.word_at_pc())),
                Exit::Undefined { word, reason } => return Err(self.stop(StopReason::Undefined(reason), Some(word))),
                Exit::MemoryFault(fault) => {
                    return Err(self.stop(StopReason::MemoryFault(fault), self.word_at_pc()));
                }
                Exit::EngineStopped => return Err(self.stop(StopReason::EngineStopped, self.word_at_pc())),
            }
        }
        self.current = None;
        Ok(ran)
    }

    /// The kernel event of the display's vsync, once a program has asked for it (GetDisplayVsyncEvent).
    fn vsync_event(&self) -> Option<u64> {
        self.system.display.borrow().vsync.state().kernel_event
    }

    /// Whether a thread waits on the vsync event (so the next vertical blank can wake it).
    fn vsync_awaited(&self) -> bool {
        let Some(event) = self.vsync_event() else { return false };
        self.events.get(&event).is_some_and(|event| !event.waiters.is_empty())
    }

    /// Instructions until the next timer, preemption tick or (once someone listens) vertical blank (at least 1).
    fn instructions_to_next_timer(&self) -> u64 {
        let next_tick = self.timers.first().map_or(self.next_preemption_tick, |&(tick, _, _)| tick);
        let next_tick = next_tick.min(self.next_preemption_tick);
        let next_tick = if self.vsync_event().is_some() { next_tick.min(self.next_vsync_tick) } else { next_tick };
        next_tick.saturating_mul(INSTRUCTIONS_PER_TICK).saturating_sub(self.now).max(1)
    }

    /// Ends the timed waits that are due, rotates the preemption priorities when their period has passed, and at
    /// each vertical blank samples the controllers and signals the display's vsync event.
    fn fire_timers(&mut self) {
        let tick = self.tick();
        if tick >= self.next_vsync_tick {
            // The controllers are sampled once a frame, every frame (an idle jump may pass several, or years of
            // them: those before the last lifo's worth only count).
            let frames = (tick - self.next_vsync_tick) / VSYNC_PERIOD_TICKS + 1;
            let skipped = frames.saturating_sub(crate::service::hid::shared_memory::LIFO_ENTRIES);
            if skipped > 0 {
                let mut hid = self.system.hid.borrow_mut();
                self.next_vsync_tick += skipped * VSYNC_PERIOD_TICKS;
                if let Some(source) = &mut self.pad_source {
                    hid.input = source(self.next_vsync_tick - VSYNC_PERIOD_TICKS);
                }
                hid.skip(skipped);
            }
            while tick >= self.next_vsync_tick {
                let mut hid = self.system.hid.borrow_mut();
                if let Some(source) = &mut self.pad_source {
                    hid.input = source(self.next_vsync_tick);
                }
                hid.sample();
                drop(hid);
                self.next_vsync_tick += VSYNC_PERIOD_TICKS;
            }
            if self.vsync_event().is_some() {
                self.system.display.borrow().vsync.signal();
            }
            self.carry_out_service_events();
        }
        if tick >= self.next_preemption_tick {
            for core in 0..self.platform.cores {
                self.scheduler.rotate(core, self.platform.preemption_priority(core));
            }
            self.next_preemption_tick = tick + PREEMPTION_PERIOD_TICKS;
        }
        while let Some(&(due, sequence, id)) = self.timers.first() {
            if due > tick {
                break;
            }
            self.timers.remove(&(due, sequence, id));
            self.thread_mut(id).timer = None;
            self.time_out(id);
        }
    }

    fn word_at(&self, pc: u64) -> Option<u32> {
        let mut word = [0; 4];
        self.memory.read_privileged(pc, &mut word).ok().map(|_| u32::from_le_bytes(word))
    }

    fn word_at_pc(&self) -> Option<u32> {
        self.current.and_then(|(_, id)| self.word_at(self.threads[&id].cpu.pc))
    }

    /// A report about the current thread.
    fn stop(&self, reason: StopReason, word: Option<u32>) -> RunOutcome {
        let id = self.current.map(|(_, id)| id).or_else(|| self.threads.keys().next().copied());
        let cpu = id.map(|id| self.threads[&id].cpu.clone()).unwrap_or_default();
        let pc = cpu.pc;
        let location = self.locate(pc);
        RunOutcome::Stopped(Box::new(StopReport { reason, pc, word, cpu, location, thread: id }))
    }

    /// Stops with the PC on the SVC instruction itself (the engine left it after the SVC).
    fn stop_at_svc(&mut self, reason: StopReason) -> RunOutcome {
        self.cpu().pc -= 4;
        let word = self.word_at_pc();
        self.stop(reason, word)
    }

    /// Every thread waits and no timer can wake one: a report naming each thread and what it waits for, at the
    /// SVC of the first.
    fn deadlock(&mut self) -> RunOutcome {
        let threads = self.threads.values().filter(|t| t.is_alive()).map(|t| self.describe_wait(t)).collect();
        let first = self.threads.values().find(|t| t.is_alive()).map(|t| t.id);
        self.current = first.map(|id| (0, id));
        match first {
            Some(_) => self.stop_at_svc(StopReason::AllThreadsBlocked(threads)),
            None => self.stop(StopReason::AllThreadsBlocked(threads), None),
        }
    }

    /// "thread 2 (priority 44, pc 0x...): waits for ..." for a deadlock report.
    fn describe_wait(&self, thread: &Thread) -> String {
        let what = match &thread.wait {
            _ if thread.paused => "is paused (SetThreadActivity) and nothing resumes it".to_string(),
            None => "is runnable".to_string(),
            Some(Wait::Sleep) => "sleeps".to_string(),
            Some(Wait::Synchronization(objects)) if objects.is_empty() => {
                "waits on no handles with no timeout (only CancelSynchronization ends that)".to_string()
            }
            Some(Wait::Synchronization(objects)) => {
                let names: Vec<String> = objects
                    .iter()
                    .map(|object| match object {
                        SyncObject::Event(id) => format!("event {id}"),
                        SyncObject::Thread(id) => format!("the exit of thread {id}"),
                        SyncObject::ServerPort(id) => format!("a client of port {id}"),
                        SyncObject::ServerSession(id) => format!("a request on session {id}"),
                    })
                    .collect();
                format!("waits for {}", names.join(" or "))
            }
            Some(Wait::Lock) => format!(
                "waits for the mutex at {:#x}, held by thread {}",
                thread.address_key,
                thread.lock_owner.map_or("?".to_string(), |owner| owner.to_string())
            ),
            Some(Wait::ConditionVariable) => {
                format!("waits on the condition variable at {:#x} (mutex {:#x})", thread.cv_key, thread.address_key)
            }
            Some(Wait::Address) => format!("waits for a signal to the address {:#x}", thread.arbiter_address),
            Some(Wait::IpcReply(session)) => self.describe_ipc_wait(*session),
        };
        let (priority, pc) = (self.scheduler.priority(thread.id), thread.cpu.pc.wrapping_sub(4));
        let location = self.locate(pc).map(|(module, offset)| format!(" {module}+{offset:#x}")).unwrap_or_default();
        format!("thread {} (priority {priority}, pc {pc:#x}{location}) {what}", thread.id)
    }

    /// The module and offset an address belongs to.
    pub fn locate(&self, address: u64) -> Option<(String, u64)> {
        self.modules
            .iter()
            .find(|m| (m.base..m.base + m.size).contains(&address))
            .map(|m| (m.name.clone(), address - m.base))
    }

    /// SHA-256 over every thread's CPU state (in id order) and all mapped guest memory, for comparing runs.
    pub fn state_hash(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        let mut sink = |bytes: &[u8]| hasher.update(bytes);
        for thread in self.threads.values() {
            sink(&thread.id.to_le_bytes());
            thread.cpu.hash_into(&mut sink);
        }
        self.memory.hash_into(&mut sink);
        hasher.finalize().into()
    }

    /// What `state_hash` covers, a line each, with its SHA-256: every thread's CPU state, then every mapped page.
    /// Two runs whose hashes differ diff to the threads and pages where they part.
    pub fn state_listing(&self) -> String {
        let mut listing = String::new();
        for thread in self.threads.values() {
            let mut hasher = Sha256::new();
            thread.cpu.hash_into(&mut |bytes: &[u8]| hasher.update(bytes));
            let digest: [u8; 32] = hasher.finalize().into();
            listing += &format!("thread {} pc {:#x} {}\n", thread.id, thread.cpu.pc, hex(&digest));
        }
        self.memory.visit_pages(|address, perm, bytes| {
            listing += &format!("page {address:#012x} {perm} {}\n", hex(&Sha256::digest(bytes)));
        });
        listing
    }

    /// Makes a thread (Initialized: StartThread runs it) and a handle to it; `creator` lends its FP control state.
    fn create_thread(
        &mut self,
        entry: u64,
        argument: u64,
        stack_top: u64,
        priority: u8,
        core: usize,
        creator: Option<ThreadId>,
    ) -> Result<(ThreadId, u32), KernelResult> {
        let tls = self.allocate_tls().ok_or(KernelResult::LimitReached)?;
        let id = self.next_thread_id;
        let mut cpu = CpuState::default();
        (cpu.pc, cpu.sp, cpu.tpidrro_el0, cpu.x[0]) = (entry, stack_top, tls, argument);
        // X18 holds a random value with bit 0 set (the kernel's shadow-stack seed); ours comes from the ids.
        cpu.x[18] = split_mix(self.limits.program_id ^ id) | 1;
        if let Some(creator) = creator {
            let creator = &self.threads[&creator].cpu;
            (cpu.fpcr, cpu.fpsr) = (creator.fpcr, creator.fpsr);
        }
        let Some(handle) = self.handles.add(KernelObject::Thread(id)) else {
            self.free_tls(tls);
            return Err(KernelResult::OutOfHandles);
        };
        self.next_thread_id += 1;
        let mut thread = Thread::new(id, cpu, tls, priority, core);
        thread.references = 1;
        self.threads.insert(id, thread);
        self.scheduler.add(id, priority, core, 1 << core);
        // Horizon tells each thread its own handle in its thread-local region.
        let written = self.memory.write_privileged(tls + TLS_THREAD_HANDLE, &handle.to_le_bytes());
        debug_assert!(written.is_ok(), "the thread-local region is mapped");
        Ok((id, handle))
    }

    /// StartThread: Initialized to Runnable.
    fn start_thread(&mut self, id: ThreadId) {
        let thread = self.thread_mut(id);
        thread.state = ThreadState::Runnable;
        let schedulable = thread.is_schedulable();
        self.scheduler.set_queued(id, schedulable);
    }

    /// A free thread-local region, zeroed, its page mapped. The area lies in the stack region, where the program
    /// may map its own memory (MapMemory, views) over pages no thread uses: those pages are skipped, as Horizon
    /// maps thread-local pages only where nothing is.
    fn allocate_tls(&mut self) -> Option<u64> {
        let page_of = |slot: usize| (TLS_AREA.base + slot as u64 * TLS_SIZE) & !(PAGE_SIZE - 1);
        let slot = (0..self.tls_slots.len()).find(|&slot| {
            !self.tls_slots[slot]
                && matches!(self.map.query(page_of(slot)).state, MemoryState::ThreadLocal | MemoryState::Free)
        })?;
        let (address, page) = (TLS_AREA.base + slot as u64 * TLS_SIZE, page_of(slot));
        if self.map.query(page).state == MemoryState::Free {
            self.memory.map(page, PAGE_SIZE, Perm::RW).ok()?;
            self.map.insert(page, PAGE_SIZE, MemoryState::ThreadLocal, Perm::RW);
        }
        self.memory.write_privileged(address, &[0; TLS_SIZE as usize]).ok()?;
        self.tls_slots[slot] = true;
        Some(address)
    }

    /// Gives a thread-local region back; a page with no region in use is unmapped.
    fn free_tls(&mut self, address: u64) {
        let slot = ((address - TLS_AREA.base) / TLS_SIZE) as usize;
        self.tls_slots[slot] = false;
        let per_page = (PAGE_SIZE / TLS_SIZE) as usize;
        let first = slot / per_page * per_page;
        let page = address & !(PAGE_SIZE - 1);
        let thread_local = self.map.query(page).state == MemoryState::ThreadLocal;
        if thread_local && self.tls_slots[first..first + per_page].iter().all(|used| !used) {
            if self.memory.unmap(page, PAGE_SIZE).is_ok() {
                self.map.remove(page, PAGE_SIZE);
            }
        }
    }
}

/// Bits `low..=high` set (empty when `low > high`).
fn range_mask(low: u8, high: u8) -> u64 {
    (u32::from(low)..=u32::from(high).min(63)).fold(0, |mask, bit| mask | 1 << bit)
}

/// SplitMix64: the kernel's deterministic "random" numbers (GetInfo's entropy, thread seeds).
fn split_mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Maps a module at `base` with its relocations applied, recording the memory states Horizon's loader sets.
fn place_module(memory: &mut GuestMemory, map: &mut MemoryMap, module: &Module, base: u64) -> Result<(), KernelError> {
    let image = (!module.relocations.is_empty())
        .then(|| {
            let mut image = module.image();
            module.relocate(&mut image, base).map(|()| image)
        })
        .transpose()?;
    let contents = image.as_deref().map_or(Contents::Segments, Contents::Image);
    let pages = map_module(memory, module, base, contents).map_err(|error| KernelError::Placement {
        module: module.name.clone(),
        base,
        error,
    })?;
    for (address, perm) in pages {
        let state = if perm.contains(Perm::WRITE) { MemoryState::CodeData } else { MemoryState::Code };
        map.set(address, PAGE_SIZE, Block::new(state, perm));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
