//! IPC between threads of the program: ports it serves (ManageNamedPort, or `sm:`'s RegisterService), sessions
//! to them, and the kernel's copy of each request and reply between the two sides' message buffers.
//!
//! A request blocks its client (Wait::IpcReply) until the server's ReplyAndReceive names the session as its reply
//! target. The copy is Horizon's, simplified by there being one process: the process id is filled in, copied
//! handles become new handles to the same objects, moved handles keep their value (one handle table), map-alias
//! buffer descriptors pass unchanged (one address space), and pointer (X) data is copied into the receiver's receive
//! list.

use super::handle_table::{CURRENT_PROCESS, CURRENT_THREAD};
use super::svc::KernelResult;
use super::thread::{SyncObject, Wait};
use super::{Kernel, KernelObject, PROCESS_ID, ThreadId};
use crate::ipc::hipc::{Message, ReceiveList};
use std::collections::VecDeque;

/// A port served by the program.
#[derive(Debug)]
pub struct Port {
    /// The name clients connect by (a named port's, or the service's registered with `sm:`).
    pub name: String,
    pub max_sessions: u32,
    pub open_sessions: u32,
    /// Sessions clients opened that the server has not accepted yet.
    pub pending: VecDeque<u64>,
    /// Server port handles plus waits on it.
    pub references: u32,
    pub waiters: Vec<ThreadId>,
}

/// A request waiting for its server: the client thread and its message buffer.
#[derive(Clone, Copy, Debug)]
pub struct PendingRequest {
    pub client: ThreadId,
    pub buffer: u64,
    pub size: u64,
}

/// A session between two threads of the program.
#[derive(Debug)]
pub struct GuestSession {
    pub port: Option<u64>,
    /// Client handles; at 0 the client has closed.
    pub client_references: u32,
    /// Server handles plus waits on it; at 0 the server has closed.
    pub server_references: u32,
    /// Requests not received yet, in order.
    pub requests: VecDeque<PendingRequest>,
    /// The request the server received and has not replied to.
    pub received: Option<PendingRequest>,
    pub waiters: Vec<ThreadId>,
}

impl Kernel {
    /// Opens a session to `port` for a client: pending until accepted. `None` when the port is full.
    pub(super) fn connect_to_port(&mut self, port_id: u64) -> Option<u64> {
        let port = self.ports.get_mut(&port_id).expect("callers name live ports");
        if port.open_sessions >= port.max_sessions {
            return None;
        }
        port.open_sessions += 1;
        let id = self.next_ipc_object;
        self.next_ipc_object += 1;
        self.guest_sessions.insert(
            id,
            GuestSession {
                port: Some(port_id),
                client_references: 1,
                server_references: 0,
                requests: VecDeque::new(),
                received: None,
                waiters: Vec::new(),
            },
        );
        port.pending.push_back(id);
        self.notify(SyncObject::ServerPort(port_id));
        Some(id)
    }

    /// Makes a port named `name`, with one server reference (the handle the caller is about to make).
    pub(super) fn create_port(&mut self, name: String, max_sessions: u32) -> u64 {
        let id = self.next_ipc_object;
        self.next_ipc_object += 1;
        let port =
            Port { name, max_sessions, open_sessions: 0, pending: VecDeque::new(), references: 1, waiters: Vec::new() };
        self.ports.insert(id, port);
        id
    }

    /// What a message between threads of the program uses that Tandem cannot carry yet, if anything.
    pub(super) fn unsupported_in_guest_message(&self, message: &Message) -> Option<&'static str> {
        let copyable = |handle: &u32| !matches!(self.handles.get(*handle), Some(KernelObject::Session(_)));
        if !message.copy_handles.iter().all(copyable) {
            return Some("copying a handle to a host session between threads of the program");
        }
        None
    }

    /// Copies the message of `from_size` bytes at `from` into the message buffer at `to` (`to_size` bytes). The
    /// sender's SVC checked it with [`Kernel::unsupported_in_guest_message`].
    pub(super) fn transfer_message(
        &mut self,
        sender: ThreadId,
        from: u64,
        from_size: u64,
        to: u64,
        to_size: u64,
    ) -> Result<(), KernelResult> {
        let mut bytes = vec![0u8; from_size.min(to_size).min(super::svc::MAX_MESSAGE_SIZE) as usize];
        self.memory.read(from, &mut bytes).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        let message = Message::parse(&bytes).map_err(|_| KernelResult::MessageTooLarge)?;
        let mut at = 12;
        if message.pid.is_some() {
            bytes[at..at + 8].copy_from_slice(&PROCESS_ID.to_le_bytes());
            at += 8;
        }
        // The receiver's copies of the copied handles; closed again if the message does not arrive.
        let mut copies = Vec::with_capacity(message.copy_handles.len());
        let mut delivered = Ok(());
        for _ in &message.copy_handles {
            let handle = u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
            match self.duplicate_handle(handle, sender) {
                Ok(copy) => {
                    copies.push(copy);
                    bytes[at..at + 4].copy_from_slice(&copy.to_le_bytes());
                    at += 4;
                }
                Err(error) => {
                    delivered = Err(error);
                    break;
                }
            }
        }
        if delivered.is_ok() && !message.statics.is_empty() {
            let buffers = message.sends.len() + message.receives.len() + message.exchanges.len();
            let statics_at = message.data.start - 12 * buffers - 8 * message.statics.len();
            delivered = self.copy_pointer_data(&message, &mut bytes[statics_at..], to, to_size);
        }
        if delivered.is_ok() {
            // The receiver does not see the sender's receive list.
            let layout = u32::from_le_bytes(bytes[4..8].try_into().expect("4 bytes")) & !(0xf << 10 | 0x7ff << 20);
            bytes[4..8].copy_from_slice(&layout.to_le_bytes());
            delivered =
                self.memory.write(to, &bytes[..message.data.end]).map_err(|_| KernelResult::InvalidCurrentMemory);
        }
        if delivered.is_err() {
            // (No handle, and the process's pseudo-handle, copied as themselves, name no entry.)
            for copy in copies.into_iter().filter(|&copy| copy != 0 && copy != CURRENT_PROCESS) {
                if let Some(object) = self.handles.remove(copy) {
                    self.release(object);
                }
            }
        }
        delivered
    }

    /// Copies each pointer (X) buffer of `message` to where the receiver's receive list (in the message now at
    /// `to`: a server's last reply, or a client's request) says, and points its descriptor (in `descriptors`)
    /// there, as mesosphère does: mode 1 packs the buffers into the receiver's message buffer after the message,
    /// mode 2 into its one entry, each at the next 16-byte boundary; modes 3 and up put each at the start of the
    /// entry its index names. An empty pointer takes no room and lands at 0; one that finds no room is
    /// OutOfResource.
    fn copy_pointer_data(
        &self,
        message: &Message,
        descriptors: &mut [u8],
        to: u64,
        to_size: u64,
    ) -> Result<(), KernelResult> {
        let mut current = vec![0u8; to_size.min(super::svc::MAX_MESSAGE_SIZE) as usize];
        self.memory.read(to, &mut current).map_err(|_| KernelResult::InvalidCurrentMemory)?;
        let receive_list = Message::parse(&current).map_or(ReceiveList::None, |m| m.receive_list);
        let message_end = to + message.data.end as u64;
        // Bytes of the packed modes' buffer used so far.
        let mut used = 0;
        for (n, pointer) in message.statics.iter().enumerate() {
            let size = u64::from(pointer.size);
            let index = pointer.index & 0xf;
            let address = if size == 0 {
                0
            } else {
                let place = match &receive_list {
                    ReceiveList::None => None,
                    ReceiveList::MessageBuffer => pack(message_end, to + to_size, &mut used, size),
                    ReceiveList::Single(entry) => {
                        pack(entry.address, entry.address + u64::from(entry.size), &mut used, size)
                    }
                    ReceiveList::Indexed(entries) => entries
                        .get(usize::from(index))
                        .filter(|entry| u64::from(entry.size) >= size)
                        .map(|entry| entry.address),
                };
                let address = place.ok_or(KernelResult::OutOfResource)?;
                let mut data = vec![0u8; size as usize];
                self.memory.read(pointer.address, &mut data).map_err(|_| KernelResult::InvalidCurrentMemory)?;
                self.memory.write(address, &data).map_err(|_| KernelResult::InvalidCurrentMemory)?;
                address
            };
            let word = u32::from(index)
                | ((address >> 36) as u32 & 0x7) << 6
                | ((address >> 32) as u32 & 0xf) << 12
                | u32::from(pointer.size) << 16;
            descriptors[8 * n..8 * n + 4].copy_from_slice(&word.to_le_bytes());
            descriptors[8 * n + 4..8 * n + 8].copy_from_slice(&(address as u32).to_le_bytes());
        }
        Ok(())
    }

    /// A new handle to the object `handle` names in a message `sender` sent (the pseudo-handles name the
    /// sender's thread and process, whichever thread makes the copy).
    fn duplicate_handle(&mut self, handle: u32, sender: ThreadId) -> Result<u32, KernelResult> {
        let object = match handle {
            // No handle is passed as no handle (mesosphère's copy loop).
            0 => return Ok(0),
            CURRENT_PROCESS => return Ok(CURRENT_PROCESS),
            CURRENT_THREAD => KernelObject::Thread(sender),
            handle => self.handles.get(handle).ok_or(KernelResult::InvalidHandle)?,
        };
        match object {
            KernelObject::Thread(id) => self.thread_mut(id).references += 1,
            KernelObject::ReadableEvent(id) => self.events.get_mut(&id).expect("live").readable_references += 1,
            KernelObject::WritableEvent(id) => self.events.get_mut(&id).expect("live").writable_references += 1,
            KernelObject::ClientSession(id) => self.guest_sessions.get_mut(&id).expect("live").client_references += 1,
            KernelObject::ServerSession(id) => self.guest_sessions.get_mut(&id).expect("live").server_references += 1,
            KernelObject::ServerPort(id) => self.ports.get_mut(&id).expect("live").references += 1,
            KernelObject::SharedMemory(_) | KernelObject::TransferMemory(_) | KernelObject::CodeMemory(_) => {
                self.reference_memory_object(object)
            }
            // The sender's check refused these; a handle closed since then names nothing copyable.
            KernelObject::Session(_) => return Err(KernelResult::InvalidHandle),
        }
        match self.handles.add(object) {
            Some(copy) => Ok(copy),
            None => {
                self.release(object);
                Err(KernelResult::OutOfHandles)
            }
        }
    }

    /// Hands the session's next request to the server thread `server` (its message buffer), or SessionClosed when
    /// the client has gone and nothing waits. A request the server cannot take (its pointer data finds no room)
    /// fails for its client, and the server gets NotFound: as in mesosphère, it goes on waiting. So does a server
    /// thread when the session's last request has not been answered yet: one request at a time.
    pub(super) fn receive_request(&mut self, server: ThreadId, session: u64) -> Result<(), KernelResult> {
        let state = self.guest_sessions.get_mut(&session).expect("live");
        // A closed client comes first (mesosphère's ReceiveRequest): requests it left queued are not handed out.
        if state.client_references == 0 {
            return Err(KernelResult::SessionClosed);
        }
        if state.received.is_some() {
            return Err(KernelResult::NotFound);
        }
        let Some(request) = state.requests.pop_front() else {
            return Err(KernelResult::NotFound);
        };
        state.received = Some(request);
        let tls = self.threads[&server].tls;
        let copied = self.transfer_message(
            request.client,
            request.buffer,
            request.size,
            tls,
            crate::ipc::hipc::MESSAGE_BUFFER_SIZE as u64,
        );
        if let Err(result) = copied {
            // The client learns why its request went nowhere.
            self.guest_sessions.get_mut(&session).expect("live").received = None;
            self.end_wait(request.client, Some(result));
            return Err(KernelResult::NotFound);
        }
        Ok(())
    }

    /// The server's side of a session closed for good: every client request in it ends with SessionClosed.
    pub(super) fn fail_requests(&mut self, session: u64) {
        let state = self.guest_sessions.get_mut(&session).expect("live");
        let waiting: Vec<ThreadId> = state.requests.drain(..).chain(state.received.take()).map(|r| r.client).collect();
        for client in waiting {
            self.end_wait(client, Some(KernelResult::SessionClosed));
        }
    }

    /// Drops a client reference; with the last, the server sees the session closed.
    pub(super) fn release_client_session(&mut self, id: u64) {
        let state = self.guest_sessions.get_mut(&id).expect("a handle keeps its session");
        state.client_references -= 1;
        if state.client_references == 0 {
            self.notify(SyncObject::ServerSession(id));
            self.forget_session_if_unused(id);
        }
    }

    /// Drops a server reference (a handle or a wait); with the last, waiting clients get SessionClosed.
    pub(super) fn release_server_session(&mut self, id: u64) {
        let state = self.guest_sessions.get_mut(&id).expect("a handle keeps its session");
        state.server_references -= 1;
        if state.server_references == 0 {
            self.fail_requests(id);
            self.forget_session_if_unused(id);
        }
    }

    fn forget_session_if_unused(&mut self, id: u64) {
        let state = &self.guest_sessions[&id];
        if state.client_references == 0 && state.server_references == 0 && !self.is_pending_anywhere(id) {
            let port = self.guest_sessions.remove(&id).and_then(|session| session.port);
            if let Some(port) = port.and_then(|port| self.ports.get_mut(&port)) {
                port.open_sessions -= 1;
            }
        }
    }

    pub(super) fn is_pending_anywhere(&self, session: u64) -> bool {
        self.ports.values().any(|port| port.pending.contains(&session))
    }

    /// Drops a server port reference; with the last, the port's name goes and unaccepted sessions close.
    pub(super) fn release_port(&mut self, id: u64) {
        let port = self.ports.get_mut(&id).expect("a handle keeps its port");
        port.references -= 1;
        if port.references > 0 {
            return;
        }
        let port = self.ports.remove(&id).expect("present");
        self.port_names.retain(|_, &mut named| named != id);
        self.registered_services.retain(|_, &mut named| named != id);
        for session in port.pending {
            if let Some(state) = self.guest_sessions.get_mut(&session) {
                state.port = None;
                state.server_references = 1;
                self.release_server_session(session);
            }
        }
    }

    /// Whether a thread is in ReplyAndReceive (a server session that wakes it hands it a request).
    pub(super) fn is_receiving(&self, id: ThreadId) -> bool {
        self.threads[&id].receiving
    }

    /// What a waiting client waits for, for deadlock reports.
    pub(super) fn describe_ipc_wait(&self, session: u64) -> String {
        let name = self
            .guest_sessions
            .get(&session)
            .and_then(|state| state.port)
            .and_then(|port| self.ports.get(&port))
            .map_or("a session".to_string(), |port| format!("`{}`", port.name));
        format!("waits for the reply of {name} (session {session})")
    }

    /// The wait of a client blocked in SendSyncRequest.
    pub(super) fn wait_for_reply(&mut self, client: ThreadId, session: u64) {
        self.begin_wait(client, Wait::IpcReply(session), None);
    }
}

/// Places `size` bytes at the first 16-byte boundary at or after `start + *used` that leaves them inside
/// `start..end`, and counts them as used.
fn pack(start: u64, end: u64, used: &mut u64, size: u64) -> Option<u64> {
    let address = start.checked_add(*used)?.checked_next_multiple_of(16)?;
    let last = address.checked_add(size)?;
    (last <= end).then(|| {
        *used = last - start;
        address
    })
}
