//! Handles, events and waits: CloseHandle, CreateEvent, SignalEvent, ClearEvent, ResetSignal, WaitSynchronization,
//! CancelSynchronization.

use super::super::thread::{SyncObject, Wait};
use super::super::{Event, Kernel, KernelObject};
use super::{KernelResult, Svc};

/// WaitSynchronization takes at most this many handles.
const MAX_WAIT_HANDLES: i32 = 0x40;

impl Kernel {
    /// CloseHandle(handle). Pseudo-handles cannot be closed.
    pub(super) fn close_handle(&mut self) -> Result<(), KernelResult> {
        let object = self.handles.remove(self.arg32(0)).ok_or(KernelResult::InvalidHandle)?;
        self.release(object);
        Ok(())
    }

    /// A handle to `object` is gone (closed, or moved to a server that drops it).
    pub(in crate::kernel) fn release(&mut self, object: KernelObject) {
        match object {
            KernelObject::Thread(id) => self.release_thread(id),
            KernelObject::WritableEvent(id) => self.release_event(id, true),
            KernelObject::ReadableEvent(id) => self.release_event(id, false),
            KernelObject::Session(id) => self.sessions.close(id),
            KernelObject::SharedMemory(id) => self.release_shared_memory(id),
            KernelObject::TransferMemory(id) => self.release_transfer_memory(id),
            KernelObject::CodeMemory(id) => self.release_code_memory(id),
            KernelObject::ServerPort(id) => self.release_port(id),
            KernelObject::ClientSession(id) => self.release_client_session(id),
            KernelObject::ServerSession(id) => self.release_server_session(id),
        }
    }

    /// CreateEvent() -> (result, writable handle, readable handle).
    pub(super) fn create_event(&mut self) -> Result<(), KernelResult> {
        let id = self.next_event_id;
        let writable = self.handles.add(KernelObject::WritableEvent(id)).ok_or(KernelResult::OutOfHandles)?;
        let Some(readable) = self.handles.add(KernelObject::ReadableEvent(id)) else {
            self.handles.remove(writable);
            return Err(KernelResult::OutOfHandles);
        };
        self.next_event_id += 1;
        self.events.insert(id, Event { readable_references: 1, writable_references: 1, ..Event::default() });
        self.set_output(1, u64::from(writable));
        self.set_output(2, u64::from(readable));
        Ok(())
    }

    /// SignalEvent(writable handle): signalled until cleared; wakes every waiter. Once every readable handle is
    /// closed, signalling does nothing.
    pub(super) fn signal_event(&mut self) -> Result<(), KernelResult> {
        let Some(KernelObject::WritableEvent(id)) = self.handles.get(self.arg32(0)) else {
            return Err(KernelResult::InvalidHandle);
        };
        let event = self.events.get_mut(&id).expect("a handle keeps its event");
        if event.readable_references > 0 && !event.signaled {
            event.signaled = true;
            self.notify(SyncObject::Event(id));
        }
        Ok(())
    }

    /// ClearEvent(writable or readable handle).
    pub(super) fn clear_event(&mut self) -> Result<(), KernelResult> {
        match self.handles.get(self.arg32(0)) {
            Some(KernelObject::WritableEvent(id) | KernelObject::ReadableEvent(id)) => {
                self.events.get_mut(&id).expect("a handle keeps its event").signaled = false;
                Ok(())
            }
            _ => Err(KernelResult::InvalidHandle),
        }
    }

    /// ResetSignal(readable handle): like ClearEvent, but InvalidState when the event was not signalled.
    pub(super) fn reset_signal(&mut self) -> Result<(), KernelResult> {
        let Some(KernelObject::ReadableEvent(id)) = self.handles.get(self.arg32(0)) else {
            return Err(KernelResult::InvalidHandle);
        };
        let event = self.events.get_mut(&id).expect("a handle keeps its event");
        if !event.signaled {
            return Err(KernelResult::InvalidState);
        }
        event.signaled = false;
        Ok(())
    }

    /// The objects `count` handles at `address` name, for a wait: the readable side of an event, a thread, a server
    /// port or session (servers wait for a session to accept or a request to receive, as libstratosphere's wait
    /// lists do); any other handle is InvalidHandle.
    pub(super) fn sync_objects(&self, address: u64, count: usize) -> Result<Vec<SyncObject>, KernelResult> {
        let mut bytes = vec![0u8; count * 4];
        self.memory.read(address, &mut bytes).map_err(|_| KernelResult::InvalidPointer)?;
        bytes
            .chunks_exact(4)
            .map(|word| match self.handles.get(u32::from_le_bytes(word.try_into().expect("4 bytes"))) {
                Some(KernelObject::ReadableEvent(id)) => Ok(SyncObject::Event(id)),
                Some(KernelObject::Thread(id)) => Ok(SyncObject::Thread(id)),
                Some(KernelObject::ServerPort(id)) => Ok(SyncObject::ServerPort(id)),
                Some(KernelObject::ServerSession(id)) => Ok(SyncObject::ServerSession(id)),
                _ => Err(KernelResult::InvalidHandle),
            })
            .collect()
    }

    /// WaitSynchronization(-, handles, count, timeout ns) -> (result, index): waits until one of the objects (the
    /// readable side of an event, a thread, a server port or session) is signalled, and says which (the first handle that names it). Timeout
    /// 0 polls, a negative one waits forever; CancelSynchronization ends the wait with Cancelled.
    pub(super) fn wait_synchronization(&mut self) -> Result<Svc, KernelResult> {
        let (address, count, timeout) = (self.arg(1), self.arg32(2) as i32, self.arg(3) as i64);
        if !(0..=MAX_WAIT_HANDLES).contains(&count) {
            return Err(KernelResult::OutOfRange);
        }
        let objects = self.sync_objects(address, count as usize)?;
        if let Some(index) = objects.iter().position(|&object| self.is_signaled(object)) {
            self.set_output(1, index as u64);
            return Ok(Svc::Return(KernelResult::Success));
        }
        if timeout == 0 {
            return Err(KernelResult::TimedOut);
        }
        let id = self.current_thread();
        let thread = self.thread_mut(id);
        if thread.wait_cancelled {
            thread.wait_cancelled = false;
            return Err(KernelResult::Cancelled);
        }
        // The index stays -1 unless an object ends the wait.
        thread.cpu.x[1] = u64::from(u32::MAX);
        self.wait_on(id, &objects);
        let deadline = self.deadline(timeout);
        self.begin_wait(id, Wait::Synchronization(objects), deadline);
        Ok(Svc::Later)
    }

    /// CancelSynchronization(thread handle): ends the thread's WaitSynchronization with Cancelled, or, when it is
    /// not in one, makes its next one return Cancelled at once.
    pub(super) fn cancel_synchronization(&mut self) -> Result<(), KernelResult> {
        let id = self.thread_from_handle(self.arg32(0))?;
        let thread = self.thread_mut(id);
        if matches!(thread.wait, Some(Wait::Synchronization(_))) {
            thread.wait_cancelled = false;
            self.end_wait(id, Some(KernelResult::Cancelled));
        } else {
            thread.wait_cancelled = true;
        }
        Ok(())
    }
}
