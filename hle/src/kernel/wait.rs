//! Waiting and waking: how a thread blocks in an SVC, how its wait ends (signal, timeout, cancellation), how
//! synchronisation objects wake their waiters, and how threads and events go away.

use super::svc::KernelResult;
use super::thread::{SyncObject, ThreadState, Wait};
use super::{Kernel, ThreadId};

impl Kernel {
    /// Blocks `id` on `wait` until its end or the tick `deadline` (`None`: no timeout).
    pub(super) fn begin_wait(&mut self, id: ThreadId, wait: Wait, deadline: Option<u64>) {
        let sequence = self.next_timer_sequence;
        let thread = self.thread_mut(id);
        thread.state = ThreadState::Waiting;
        thread.wait = Some(wait);
        if let Some(tick) = deadline {
            thread.timer = Some((tick, sequence));
            self.timers.insert((tick, sequence, id));
            self.next_timer_sequence += 1;
        }
        self.scheduler.set_queued(id, false);
    }

    /// Ends the wait of `id`: detaches it from whatever it waited on, writes `result` into its X0 (`None`: SleepThread,
    /// which returns nothing) and makes it runnable. Nothing happens if it is not waiting.
    pub(super) fn end_wait(&mut self, id: ThreadId, result: Option<KernelResult>) {
        let thread = self.thread_mut(id);
        if thread.state != ThreadState::Waiting {
            return;
        }
        let wait = thread.wait.take();
        let timer = thread.timer.take();
        if let Some(result) = result {
            thread.cpu.x[0] = result as u64;
        }
        if let Some((tick, sequence)) = timer {
            self.timers.remove(&(tick, sequence, id));
        }
        match wait {
            Some(Wait::Synchronization(objects)) => {
                for object in objects {
                    if let Some(waiters) = self.waiters_of(object) {
                        waiters.retain(|&waiter| waiter != id);
                    }
                    self.release_wait_reference(object);
                }
            }
            Some(Wait::Lock) => {
                if let Some(owner) = self.threads[&id].lock_owner {
                    self.remove_lock_waiter(owner, id);
                }
            }
            Some(Wait::ConditionVariable) => self.condition_waiters.retain(|&waiter| waiter != id),
            Some(Wait::Address) => self.address_waiters.retain(|&waiter| waiter != id),
            Some(Wait::IpcReply(_) | Wait::Sleep) | None => {}
        }
        self.thread_mut(id).receiving = false;
        let thread = self.thread_mut(id);
        thread.state = ThreadState::Runnable;
        let schedulable = thread.is_schedulable();
        self.scheduler.set_queued(id, schedulable);
    }

    /// The timer of a wait went off.
    pub(super) fn time_out(&mut self, id: ThreadId) {
        match self.threads[&id].wait {
            Some(Wait::Sleep) => self.end_wait(id, None),
            _ => self.end_wait(id, Some(KernelResult::TimedOut)),
        }
    }

    /// Whether a synchronisation object is signalled.
    pub(super) fn is_signaled(&self, object: SyncObject) -> bool {
        match object {
            SyncObject::Event(event) => self.events.get(&event).is_some_and(|event| event.signaled),
            SyncObject::Thread(thread) => {
                self.threads.get(&thread).is_some_and(|thread| thread.state == ThreadState::Terminated)
            }
            SyncObject::ServerPort(port) => self.ports.get(&port).is_some_and(|port| !port.pending.is_empty()),
            // A session with a request received and not yet answered has nothing more to give until the reply
            // (mesosphère's KServerSession::IsSignaledImpl).
            SyncObject::ServerSession(session) => self.guest_sessions.get(&session).is_some_and(|session| {
                session.client_references == 0 || (!session.requests.is_empty() && session.received.is_none())
            }),
        }
    }

    fn waiters_of(&mut self, object: SyncObject) -> Option<&mut Vec<ThreadId>> {
        match object {
            SyncObject::Event(event) => self.events.get_mut(&event).map(|event| &mut event.waiters),
            SyncObject::Thread(thread) => self.threads.get_mut(&thread).map(|thread| &mut thread.exit_waiters),
            SyncObject::ServerPort(port) => self.ports.get_mut(&port).map(|port| &mut port.waiters),
            SyncObject::ServerSession(session) => {
                self.guest_sessions.get_mut(&session).map(|session| &mut session.waiters)
            }
        }
    }

    /// Links `id` to each object's waiters and holds a reference to each for the wait.
    pub(super) fn wait_on(&mut self, id: ThreadId, objects: &[SyncObject]) {
        for &object in objects {
            match object {
                SyncObject::Event(event) => {
                    if let Some(event) = self.events.get_mut(&event) {
                        event.readable_references += 1;
                        event.waiters.push(id);
                    }
                }
                SyncObject::Thread(thread) => {
                    let thread = self.thread_mut(thread);
                    thread.references += 1;
                    thread.exit_waiters.push(id);
                }
                SyncObject::ServerPort(port) => {
                    let port = self.ports.get_mut(&port).expect("a handle keeps its port");
                    port.references += 1;
                    port.waiters.push(id);
                }
                SyncObject::ServerSession(session) => {
                    let session = self.guest_sessions.get_mut(&session).expect("a handle keeps its session");
                    session.server_references += 1;
                    session.waiters.push(id);
                }
            }
        }
    }

    /// A signalled object wakes every thread waiting on it, in the order they started waiting; each learns the
    /// index of the first of its handles that names the object.
    pub(super) fn notify(&mut self, object: SyncObject) {
        if !self.is_signaled(object) {
            return;
        }
        let waiters = self.waiters_of(object).map(|waiters| waiters.clone()).unwrap_or_default();
        for waiter in waiters {
            // A request goes to one server: the first waiter takes it, and the session may be quiet again.
            if !self.is_signaled(object) {
                break;
            }
            let index = match &self.threads[&waiter].wait {
                Some(Wait::Synchronization(objects)) => objects.iter().position(|&o| o == object),
                _ => None,
            };
            let Some(index) = index else { continue };
            let result = match object {
                SyncObject::ServerSession(session) if self.is_receiving(waiter) => {
                    self.receive_request(waiter, session).err().unwrap_or(KernelResult::Success)
                }
                _ => KernelResult::Success,
            };
            // NotFound: the request failed for its client and the server goes on waiting.
            if result != KernelResult::NotFound {
                self.thread_mut(waiter).cpu.x[1] = index as u64;
                self.end_wait(waiter, Some(result));
            }
        }
    }

    fn release_wait_reference(&mut self, object: SyncObject) {
        match object {
            SyncObject::Event(event) => self.release_event(event, false),
            SyncObject::Thread(thread) => self.release_thread(thread),
            SyncObject::ServerPort(port) => self.release_port(port),
            SyncObject::ServerSession(session) => self.release_server_session(session),
        }
    }

    /// Drops one reference to an event (readable or writable side); the event goes with the last.
    pub(super) fn release_event(&mut self, id: u64, writable: bool) {
        let Some(event) = self.events.get_mut(&id) else { return };
        if writable {
            event.writable_references -= 1;
        } else {
            event.readable_references -= 1;
        }
        if event.readable_references == 0 && event.writable_references == 0 {
            self.events.remove(&id);
        }
    }

    /// Drops one reference to a thread object; an exited (or never started) thread goes with the last.
    pub(super) fn release_thread(&mut self, id: ThreadId) {
        let thread = self.thread_mut(id);
        thread.references -= 1;
        if thread.references == 0 && !thread.is_alive() {
            self.destroy_thread(id);
        }
    }

    /// ExitThread: the thread stops, wakes the threads waiting for its exit, and keeps its object (and the mutexes
    /// it owns) while handles name it. `true` when it was the process's last running thread.
    pub(super) fn exit_thread(&mut self, id: ThreadId) -> bool {
        self.thread_mut(id).state = ThreadState::Terminated;
        self.scheduler.set_queued(id, false);
        // Waking its waiters drops their references: that may already destroy the object.
        self.notify(SyncObject::Thread(id));
        if self.threads.get(&id).is_some_and(|thread| thread.references == 0) {
            self.destroy_thread(id);
        }
        !self.threads.values().any(|thread| thread.is_alive())
    }

    /// The thread object goes: threads still waiting for a mutex it owned get InvalidState (as in Horizon, where
    /// they are released only when the owner's object is destroyed), and its thread-local region is freed.
    fn destroy_thread(&mut self, id: ThreadId) {
        let Some(thread) = self.threads.remove(&id) else { return };
        for lock in thread.held_locks {
            for waiter in lock.waiters {
                self.thread_mut(waiter).lock_owner = None;
                self.end_wait(waiter, Some(KernelResult::InvalidState));
            }
        }
        self.scheduler.forget(id);
        self.free_tls(thread.tls);
    }
}
