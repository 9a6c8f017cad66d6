//! IPC SVCs: named ports, and synchronous requests on sessions to the host's services ([`crate::service`]).
//!
//! The kernel's part of a request is Horizon's: it reads the message (from the thread's message buffer or a user
//! buffer), refuses one whose parts do not fit (MessageTooLarge), checks that every buffer the message names is
//! mapped as its direction needs (InvalidCurrentMemory) and that every handle it passes is valid (InvalidHandle),
//! moves moved handles out of the client's table, then lets the session answer and writes the reply over the
//! request, with the new sessions the reply carries turned into handles.

use super::super::guest_ipc::PendingRequest;
use super::super::thread::Wait;
use super::super::{Event, Kernel, KernelObject, PROCESS_ID, StopReason, SyncObject};
use super::{KernelResult, Svc};
use crate::ipc::cmif;
use crate::ipc::hipc::{MESSAGE_BUFFER_SIZE, Message};
use crate::kernel::handle_table::{CURRENT_PROCESS, CURRENT_THREAD};
use crate::service::{Failure, ServiceEvent, open_named_port, sm};
use tandem_reference::memory::{Access, PAGE_SIZE};

/// ReplyAndReceive takes at most this many handles.
const MAX_RECEIVE_HANDLES: i32 = 0x40;
/// A port name: at most 11 characters and the NUL.
const PORT_NAME_SIZE: usize = 12;
/// The most of a user message buffer a message can reach: HIPC's counts and offsets stop below this.
pub(in crate::kernel) const MAX_MESSAGE_SIZE: u64 = 0x3000;

impl Kernel {
    /// ConnectToNamedPort(name) -> (result, session handle).
    pub(super) fn connect_to_named_port(&mut self) -> Result<(), KernelResult> {
        let name = self.read_port_name(self.arg(1))?;
        let Some(object) = open_named_port(&name, &self.system) else {
            // A port the program serves itself.
            let port = *self.port_names.get(&name).ok_or(KernelResult::NotFound)?;
            let session = self.connect_to_port(port).ok_or(KernelResult::OutOfSessions)?;
            let handle = self.handles.add(KernelObject::ClientSession(session));
            let handle = handle.ok_or_else(|| {
                self.release_client_session(session);
                KernelResult::OutOfHandles
            })?;
            self.set_output(1, u64::from(handle));
            return Ok(());
        };
        let session = self.sessions.open(object);
        let Some(handle) = self.handles.add(KernelObject::Session(session)) else {
            self.sessions.close(session);
            return Err(KernelResult::OutOfHandles);
        };
        tracing::debug!(target: "tandem::ipc", port = %name, handle = format_args!("{handle:#x}"), "connected");
        self.set_output(1, u64::from(handle));
        Ok(())
    }

    /// A port name at `address`: up to its NUL, which must come within 12 bytes.
    fn read_port_name(&self, address: u64) -> Result<String, KernelResult> {
        let mut name = Vec::with_capacity(PORT_NAME_SIZE);
        // Byte by byte up to the NUL, as Horizon copies the string: a short name at the end of a page is fine.
        for offset in 0..PORT_NAME_SIZE as u64 {
            let mut byte = [0u8];
            let at = address.checked_add(offset).ok_or(KernelResult::InvalidPointer)?;
            self.memory.read(at, &mut byte).map_err(|_| KernelResult::InvalidPointer)?;
            if byte[0] == 0 {
                break;
            }
            name.push(byte[0]);
        }
        if name.len() == PORT_NAME_SIZE {
            return Err(KernelResult::OutOfRange);
        }
        Ok(String::from_utf8_lossy(&name).into_owned())
    }

    /// ManageNamedPort(name, max sessions) -> (result, server port handle); max sessions 0 removes the name.
    pub(super) fn manage_named_port(&mut self) -> Result<(), KernelResult> {
        let (name, max_sessions) = (self.read_port_name(self.arg(1))?, self.arg32(2) as i32);
        if max_sessions < 0 {
            return Err(KernelResult::OutOfRange);
        }
        if max_sessions == 0 {
            return self.port_names.remove(&name).map(|_| ()).ok_or(KernelResult::NotFound);
        }
        if self.port_names.contains_key(&name) || open_named_port(&name, &self.system).is_some() {
            return Err(KernelResult::InvalidState);
        }
        let port = self.create_port(name.clone(), max_sessions as u32);
        let Some(handle) = self.handles.add(KernelObject::ServerPort(port)) else {
            self.release_port(port);
            return Err(KernelResult::OutOfHandles);
        };
        self.port_names.insert(name, port);
        self.set_output(1, u64::from(handle));
        Ok(())
    }

    /// AcceptSession(server port handle) -> (result, server session handle): the oldest session waiting.
    pub(super) fn accept_session(&mut self) -> Result<(), KernelResult> {
        let Some(KernelObject::ServerPort(port)) = self.handles.get(self.arg32(1)) else {
            return Err(KernelResult::InvalidHandle);
        };
        let session = *self.ports[&port].pending.front().ok_or(KernelResult::NotFound)?;
        let handle = self.handles.add(KernelObject::ServerSession(session)).ok_or(KernelResult::OutOfHandles)?;
        self.ports.get_mut(&port).expect("live").pending.pop_front();
        self.guest_sessions.get_mut(&session).expect("pending sessions live").server_references = 1;
        self.set_output(1, u64::from(handle));
        Ok(())
    }

    /// ReplyAndReceive(handles, count, reply target, timeout) -> (result, index): replies on the target session
    /// (if any), then waits like WaitSynchronization; a server session that ends the wait hands over its request.
    pub(super) fn reply_and_receive(&mut self) -> Result<Svc, KernelResult> {
        let (address, count, target, timeout) = (self.arg(1), self.arg32(2) as i32, self.arg32(3), self.arg(4) as i64);
        if !(0..=MAX_RECEIVE_HANDLES).contains(&count) {
            return Err(KernelResult::OutOfRange);
        }
        // The handles are checked before the reply goes (mesosphère's ReplyAndReceive): a bad list sends none.
        let objects = self.sync_objects(address, count as usize)?;
        let id = self.current_thread();
        if target != 0 {
            // A reply that fails leaves the index at -1.
            self.thread_mut(id).cpu.x[1] = u64::from(u32::MAX);
            let Some(KernelObject::ServerSession(session)) = self.handles.get(target) else {
                return Err(KernelResult::InvalidHandle);
            };
            let request = self.guest_sessions[&session].received.ok_or(KernelResult::InvalidState)?;
            let tls = self.threads[&id].tls;
            let mut reply = vec![0u8; MESSAGE_BUFFER_SIZE];
            self.memory.read(tls, &mut reply).map_err(|_| KernelResult::InvalidCurrentMemory)?;
            let message = Message::parse(&reply).map_err(|_| KernelResult::MessageTooLarge)?;
            if let Some(what) = self.unsupported_in_guest_message(&message) {
                return Ok(Svc::End(self.stop_at_svc(StopReason::Unsupported(what))));
            }
            self.guest_sessions.get_mut(&session).expect("live").received = None;
            let delivered = self.transfer_message(id, tls, MESSAGE_BUFFER_SIZE as u64, request.buffer, request.size);
            self.end_wait(request.client, Some(delivered.err().unwrap_or(KernelResult::Success)));
            // The next request, if one came meanwhile, goes to a server thread waiting on the session.
            self.notify(SyncObject::ServerSession(session));
        }
        // A request the server could not take failed for its client; the next one (or the wait) follows.
        while let Some(index) = objects.iter().position(|&object| self.is_signaled(object)) {
            let result = match objects[index] {
                SyncObject::ServerSession(session) => self.receive_request(id, session).err(),
                _ => None,
            };
            if result != Some(KernelResult::NotFound) {
                self.set_output(1, index as u64);
                return Ok(Svc::Return(result.unwrap_or(KernelResult::Success)));
            }
        }
        if timeout == 0 {
            return Err(KernelResult::TimedOut);
        }
        // The index stays -1 unless an object ends the wait.
        let thread = self.thread_mut(id);
        thread.cpu.x[1] = u64::from(u32::MAX);
        thread.receiving = true;
        self.wait_on(id, &objects);
        let deadline = self.deadline(timeout);
        self.begin_wait(id, Wait::Synchronization(objects), deadline);
        Ok(Svc::Later)
    }

    /// A request on a session the program serves: the client waits for the reply.
    fn guest_request(&mut self, session: u64, address: u64, size: u64) -> Svc {
        if self.guest_sessions[&session].server_references == 0 && !self.is_pending_anywhere(session) {
            return Svc::Return(KernelResult::SessionClosed);
        }
        let mut buffer = vec![0u8; size.min(MAX_MESSAGE_SIZE) as usize];
        if self.memory.read(address, &mut buffer).is_err() {
            return Svc::Return(KernelResult::InvalidCurrentMemory);
        }
        let Ok(message) = Message::parse(&buffer) else {
            return Svc::Return(KernelResult::MessageTooLarge);
        };
        let handles_valid = message
            .copy_handles
            .iter()
            .all(|&h| h == 0 || h == CURRENT_PROCESS || h == CURRENT_THREAD || self.handles.get(h).is_some());
        if let Err(result) = self.check_message_memory(&message) {
            return Svc::Return(result);
        }
        // A client cannot move handles to a server (mesosphère's ReceiveMessage).
        if !message.move_handles.is_empty() {
            return Svc::Return(KernelResult::InvalidCombination);
        }
        if !handles_valid {
            return Svc::Return(KernelResult::InvalidHandle);
        }
        if let Some(what) = self.unsupported_in_guest_message(&message) {
            return Svc::End(self.stop_at_svc(StopReason::Unsupported(what)));
        }
        let client = self.current_thread();
        let request = PendingRequest { client, buffer: address, size };
        self.guest_sessions.get_mut(&session).expect("live").requests.push_back(request);
        self.wait_for_reply(client, session);
        self.notify(SyncObject::ServerSession(session));
        Svc::Later
    }

    /// SendSyncRequest(session handle): the message in the thread's message buffer.
    pub(super) fn send_sync_request(&mut self) -> Svc {
        let tls = self.threads[&self.current_thread()].tls;
        self.request(self.arg32(0), tls, MESSAGE_BUFFER_SIZE as u64)
    }

    /// SendSyncRequestWithUserBuffer(buffer, size, session handle): the message in a page-aligned buffer of the
    /// program's.
    pub(super) fn send_sync_request_with_user_buffer(&mut self) -> Svc {
        let (address, size) = (self.arg(0), self.arg(1));
        if address % PAGE_SIZE != 0 {
            return Svc::Return(KernelResult::InvalidAddress);
        }
        if size == 0 || size % PAGE_SIZE != 0 {
            return Svc::Return(KernelResult::InvalidSize);
        }
        if address.checked_add(size).is_none() {
            return Svc::Return(KernelResult::InvalidCurrentMemory);
        }
        self.request(self.arg32(2), address, size)
    }

    fn request(&mut self, handle: u32, address: u64, size: u64) -> Svc {
        let session = match self.handles.get(handle) {
            Some(KernelObject::Session(session)) => session,
            Some(KernelObject::ClientSession(session)) => return self.guest_request(session, address, size),
            _ => return Svc::Return(KernelResult::InvalidHandle),
        };
        if self.sessions.is_closed(session) {
            return Svc::Return(KernelResult::SessionClosed);
        }
        let mut buffer = vec![0u8; size.min(MAX_MESSAGE_SIZE) as usize];
        if self.memory.read(address, &mut buffer).is_err() {
            return Svc::Return(KernelResult::InvalidCurrentMemory);
        }
        let mut message = match Message::parse(&buffer) {
            Ok(message) => message,
            Err(error) => {
                tracing::debug!(target: "tandem::ipc", %error, "message refused");
                return Svc::Return(KernelResult::MessageTooLarge);
            }
        };
        // The kernel, not the client, says who is calling.
        if message.pid.is_some() {
            message.pid = Some(PROCESS_ID);
        }
        // A message cannot move away the handle of the session it travels on.
        if message.move_handles.contains(&handle) {
            return Svc::Return(KernelResult::InvalidHandle);
        }
        if let Err(result) = self.check_message_memory(&message).and_then(|()| self.take_handles(&message)) {
            return Svc::Return(result);
        }
        let ticks = self.tick();
        let dispatched = match self.sessions.dispatch(session, &buffer, &message, &self.memory, ticks) {
            Ok(dispatched) => dispatched,
            Err(Failure::Result(result)) => unreachable!("sessions answer results in the reply ({result})"),
            Err(Failure::Unimplemented { interface, command_id, what }) => {
                return Svc::End(self.stop_at_svc(StopReason::UnimplementedService { interface, command_id, what }));
            }
            Err(Failure::Gpu(error)) => return Svc::End(self.stop_at_svc(StopReason::Gpu(error))),
        };
        let Some(mut reply) = dispatched.reply else {
            // Close: the session serves nothing more; there is no reply.
            return Svc::Return(KernelResult::Success);
        };
        for &session in &dispatched.new_sessions {
            match self.handles.add(KernelObject::Session(session)) {
                Some(handle) => reply.move_handles.push(handle),
                None => {
                    // The table is full: the new sessions die with the reply.
                    for &handle in &reply.move_handles {
                        self.handles.remove(handle);
                    }
                    for &session in &dispatched.new_sessions {
                        self.sessions.close(session);
                    }
                    return Svc::Return(KernelResult::OutOfHandles);
                }
            }
        }
        if let Some(name) = dispatched.connect_service {
            let Some(&port) = self.registered_services.get(&name) else {
                let what = Some(format!("GetServiceHandle(\"{name}\"): Tandem has no `{name}` service yet"));
                return Svc::End(self.stop_at_svc(StopReason::UnimplementedService {
                    interface: "sm:",
                    command_id: 1,
                    what,
                }));
            };
            match self.connect_to_port(port) {
                Some(session) => match self.handles.add(KernelObject::ClientSession(session)) {
                    Some(handle) => reply.move_handles.push(handle),
                    None => {
                        self.release_client_session(session);
                        return Svc::Return(KernelResult::OutOfHandles);
                    }
                },
                None => reply.result = sm::OUT_OF_SESSIONS,
            }
        }
        if let Some((name, max_sessions)) = dispatched.register_service {
            if self.registered_services.contains_key(&name) {
                reply.result = sm::ALREADY_REGISTERED;
            } else {
                let port = self.create_port(name.clone(), max_sessions);
                let Some(handle) = self.handles.add(KernelObject::ServerPort(port)) else {
                    self.release_port(port);
                    return Svc::Return(KernelResult::OutOfHandles);
                };
                self.registered_services.insert(name, port);
                reply.move_handles.push(handle);
            }
        }
        if let Some(name) = &dispatched.unregister_service
            && self.registered_services.remove(name).is_none()
        {
            reply.result = sm::NOT_REGISTERED;
        }
        for event in &dispatched.copy_events {
            let id = self.kernel_event_of(event);
            self.events.get_mut(&id).expect("service events live on").readable_references += 1;
            match self.handles.add(KernelObject::ReadableEvent(id)) {
                Some(handle) => reply.copy_handles.push(handle),
                None => {
                    self.release_event(id, false);
                    return Svc::Return(KernelResult::OutOfHandles);
                }
            }
        }
        for memory in &dispatched.copy_shared_memories {
            match self.service_shared_memory_handle(memory) {
                Some(handle) => reply.copy_handles.push(handle),
                None => return Svc::Return(KernelResult::OutOfHandles),
            }
        }
        self.carry_out_service_events();
        match cmif::write_reply(dispatched.kind, message.message_type, dispatched.is_domain, &reply, &mut buffer) {
            Ok(length) if self.memory.write(address, &buffer[..length]).is_ok() => Svc::Return(KernelResult::Success),
            Ok(_) => Svc::Return(KernelResult::InvalidCurrentMemory),
            Err(error) => {
                tracing::warn!(target: "tandem::ipc", %error, "a reply did not fit the client's message buffer");
                Svc::Return(KernelResult::MessageTooLarge)
            }
        }
    }

    /// The kernel event behind a service's event, made (with the service as its writer, for good) when first asked.
    fn kernel_event_of(&mut self, event: &ServiceEvent) -> u64 {
        if let Some(id) = event.state().kernel_event {
            return id;
        }
        let id = self.next_event_id;
        self.next_event_id += 1;
        self.events.insert(id, Event { writable_references: 1, ..Event::default() });
        event.state().kernel_event = Some(id);
        self.service_events.push((id, event.watch()));
        id
    }

    /// Carries the signals and clears services made into their kernel events (waking waiters); an event its
    /// service dropped loses its writer (and goes once its readable handles are closed).
    pub(crate) fn carry_out_service_events(&mut self) {
        self.sync_service_shared_memories();
        let mut index = 0;
        while index < self.service_events.len() {
            let (id, ref watched) = self.service_events[index];
            match watched.take_pending() {
                None => {
                    self.service_events.swap_remove(index);
                    self.release_event(id, true);
                    continue;
                }
                Some(Some(signaled)) => {
                    let event = self.events.get_mut(&id).expect("a service event has its writer");
                    event.signaled = signaled && event.readable_references > 0;
                    if event.signaled {
                        self.notify(SyncObject::Event(id));
                    }
                }
                Some(None) => {}
            }
            index += 1;
        }
    }

    /// Every buffer a message names must be mapped for its direction: sends and pointers readable, receives and
    /// receive-list entries writable, exchanges both.
    fn check_message_memory(&self, message: &Message) -> Result<(), KernelResult> {
        let receive_entries: Vec<(u64, u64)> =
            message.receive_list.entries().iter().map(|e| (e.address, u64::from(e.size))).collect();
        let regions = message
            .statics
            .iter()
            .map(|s| (s.address, u64::from(s.size), &[Access::Read][..]))
            .chain(message.sends.iter().map(|b| (b.address, b.size, &[Access::Read][..])))
            .chain(message.receives.iter().map(|b| (b.address, b.size, &[Access::Write][..])))
            .chain(message.exchanges.iter().map(|b| (b.address, b.size, &[Access::Read, Access::Write][..])))
            .chain(receive_entries.into_iter().map(|(address, size)| (address, size, &[Access::Write][..])));
        for (address, size, accesses) in regions {
            for &access in accesses {
                if size > 0 && self.memory.check(address, size, access).is_err() {
                    return Err(KernelResult::InvalidCurrentMemory);
                }
            }
        }
        Ok(())
    }

    /// Checks the handles a message passes; moved ones leave the client's table. (No host service takes handles
    /// yet, so the server side drops them.)
    fn take_handles(&mut self, message: &Message) -> Result<(), KernelResult> {
        // A client cannot move handles to a server (mesosphère's ReceiveMessage); no handle (0) copies as none.
        if !message.move_handles.is_empty() {
            return Err(KernelResult::InvalidCombination);
        }
        let valid = |handle: u32| handle == 0 || self.handles.get(handle).is_some();
        if !message.copy_handles.iter().all(|&h| h == CURRENT_PROCESS || h == CURRENT_THREAD || valid(h)) {
            return Err(KernelResult::InvalidHandle);
        }
        Ok(())
    }
}
