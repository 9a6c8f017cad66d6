//! A guest thread as the kernel keeps it: CPU state, thread-local region, priorities, and what it waits for.

use super::ThreadId;
use tandem_reference::state::CpuState;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ThreadState {
    /// Created, not started (CreateThread before StartThread).
    Initialized,
    Runnable,
    /// In a blocking SVC; [`Thread::wait`] says on what.
    Waiting,
    /// ExitThread; the thread object lives on while handles name it.
    Terminated,
}

/// A kernel object a thread can wait for in WaitSynchronization.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SyncObject {
    /// The readable side of an event: signalled until cleared.
    Event(u64),
    /// A thread: signalled once it has exited.
    Thread(ThreadId),
    /// A port the program serves: signalled while sessions wait to be accepted.
    ServerPort(u64),
    /// The server side of a session: signalled while requests wait, or once the client has closed.
    ServerSession(u64),
}

/// What a waiting thread waits for.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Wait {
    /// SleepThread.
    Sleep,
    /// WaitSynchronization on these objects (the order of the handles).
    Synchronization(Vec<SyncObject>),
    /// The mutex at [`Thread::address_key`], owned by [`Thread::lock_owner`] (ArbitrateLock, or a condition variable
    /// waiter signalled while the mutex was held).
    Lock,
    /// WaitProcessWideKeyAtomic: the condition variable [`Thread::cv_key`]; then the mutex.
    ConditionVariable,
    /// WaitForAddress on [`Thread::arbiter_address`].
    Address,
    /// SendSyncRequest to a session the program serves: until the server replies.
    IpcReply(u64),
}

/// A mutex some thread owns and others wait for (Horizon's lock with priority inheritance).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct HeldLock {
    pub address: u64,
    /// Highest priority first, first come first among equals.
    pub waiters: Vec<ThreadId>,
}

#[derive(Debug)]
pub struct Thread {
    pub id: ThreadId,
    pub cpu: CpuState,
    /// The thread-local region (TPIDRRO_EL0), 0x200 bytes.
    pub tls: u64,
    pub state: ThreadState,
    /// SetThreadActivity(Paused): not scheduled until resumed, whatever its state.
    pub paused: bool,
    /// The priority set by the program; the effective one (raised by priority inheritance) is the scheduler's.
    pub base_priority: u8,
    /// The ideal core (-1: none), as GetThreadCoreMask reports it.
    pub ideal_core: i32,
    pub affinity: u64,
    pub wait: Option<Wait>,
    /// When a timed wait ends: (tick, sequence number) of its timer.
    pub timer: Option<(u64, u64)>,
    /// CancelSynchronization came while the thread was not in WaitSynchronization: the next one returns at once.
    pub wait_cancelled: bool,
    /// In ReplyAndReceive: a server session that ends the wait hands the thread its request.
    pub receiving: bool,
    /// The mutex the thread waits for (or, in a condition variable, will take back), and its tag: the handle value
    /// the thread writes into a mutex it owns.
    pub address_key: u64,
    pub key_value: u32,
    pub lock_owner: Option<ThreadId>,
    /// Mutexes this thread owns that others wait for.
    pub held_locks: Vec<HeldLock>,
    pub cv_key: u64,
    pub arbiter_address: u64,
    /// Threads in WaitSynchronization on this one (once per handle given), in the order they started waiting.
    pub exit_waiters: Vec<ThreadId>,
    /// Handles naming the thread plus waits on it; the thread object goes when this is 0 and it is not alive.
    pub references: u32,
}

impl Thread {
    pub fn new(id: ThreadId, cpu: CpuState, tls: u64, priority: u8, core: usize) -> Thread {
        Thread {
            id,
            cpu,
            tls,
            state: ThreadState::Initialized,
            paused: false,
            base_priority: priority,
            ideal_core: core as i32,
            affinity: 1 << core,
            wait: None,
            timer: None,
            wait_cancelled: false,
            receiving: false,
            address_key: 0,
            key_value: 0,
            lock_owner: None,
            held_locks: Vec::new(),
            cv_key: 0,
            arbiter_address: 0,
            exit_waiters: Vec::new(),
            references: 0,
        }
    }

    /// Runnable or waiting: started and not exited.
    pub fn is_alive(&self) -> bool {
        matches!(self.state, ThreadState::Runnable | ThreadState::Waiting)
    }

    /// Whether the scheduler should consider it.
    pub fn is_schedulable(&self) -> bool {
        self.state == ThreadState::Runnable && !self.paused
    }
}
