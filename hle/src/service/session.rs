//! Sessions to host services: each one serves an object, or (once converted) a domain of objects addressed by id.
//! Control messages (domains, clones, the pointer buffer size) are answered here; requests go to the object.

use super::{Call, Failure, ServiceEvent, ServiceSharedMemory, SharedObject};
use crate::ipc::cmif::{self, DomainAction, Kind, Reply};
use crate::ipc::hipc::Message;
use crate::ipc::{ResultCode, hipc_result, sf};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use tandem_reference::memory::GuestMemory;

/// Objects all domains together may hold, as a Horizon server's pool does (Atmosphère's fs server: 0x4000).
const MAX_DOMAIN_OBJECTS: usize = 0x4000;
/// The id ConvertCurrentObjectToDomain gives the session's own object.
const FIRST_DOMAIN_OBJECT: u32 = 1;

enum Session {
    Object(SharedObject),
    /// A domain; sessions cloned from it share it (their object ids are the same objects).
    Domain(Rc<RefCell<Domain>>),
    /// The client sent Close; its handle stays until CloseHandle, but serves nothing.
    Closed,
}

struct Domain {
    objects: BTreeMap<u32, SharedObject>,
    next_id: u32,
    /// The server's, from the object the session served before it became a domain.
    pointer_buffer_size: u16,
    /// Objects held by every domain, this one's included.
    pool: Rc<Cell<usize>>,
}

impl Domain {
    fn new(object: SharedObject, pool: Rc<Cell<usize>>) -> Result<Domain, ResultCode> {
        let pointer_buffer_size = object.borrow().pointer_buffer_size();
        let mut domain = Domain { objects: BTreeMap::new(), next_id: FIRST_DOMAIN_OBJECT, pointer_buffer_size, pool };
        domain.add(vec![object])?;
        Ok(domain)
    }

    /// Adds `objects` (all of them, or none when the pool has no room); their ids.
    fn add(&mut self, objects: Vec<SharedObject>) -> Result<Vec<u32>, ResultCode> {
        if self.pool.get() + objects.len() > MAX_DOMAIN_OBJECTS {
            return Err(sf::OUT_OF_DOMAIN_ENTRIES);
        }
        self.pool.set(self.pool.get() + objects.len());
        let first = self.next_id;
        self.next_id += objects.len() as u32;
        self.objects.extend((first..).zip(objects));
        Ok((first..self.next_id).collect())
    }

    fn remove(&mut self, id: u32) -> Option<SharedObject> {
        let object = self.objects.remove(&id)?;
        self.pool.set(self.pool.get() - 1);
        Some(object)
    }
}

impl Drop for Domain {
    fn drop(&mut self) {
        self.pool.set(self.pool.get() - self.objects.len());
    }
}

/// What a message did, for the kernel to finish: the reply to write (none after Close), and the new sessions to
/// give the client as moved handles, in order.
pub struct Dispatched {
    pub kind: Kind,
    pub is_domain: bool,
    pub reply: Option<Reply>,
    pub new_sessions: Vec<u64>,
    /// Events to give the client as copied handles, in order, then shared memory.
    pub copy_events: Vec<ServiceEvent>,
    pub copy_shared_memories: Vec<ServiceSharedMemory>,
    /// Services the program serves, to connect to, register or unregister ([`Call::connect_service`],
    /// [`Call::register_service`], [`Call::unregister_service`]).
    pub connect_service: Option<String>,
    pub register_service: Option<(String, u32)>,
    pub unregister_service: Option<String>,
}

impl Dispatched {
    fn empty(kind: Kind, is_domain: bool) -> Dispatched {
        Dispatched {
            kind,
            is_domain,
            reply: None,
            new_sessions: Vec::new(),
            copy_events: Vec::new(),
            copy_shared_memories: Vec::new(),
            connect_service: None,
            register_service: None,
            unregister_service: None,
        }
    }
}

/// All sessions to host services, by id (the kernel's handles name these ids).
#[derive(Default)]
pub struct Sessions {
    sessions: BTreeMap<u64, Session>,
    next_id: u64,
    /// Objects held by all domains.
    domain_objects: Rc<Cell<usize>>,
}

impl Sessions {
    /// A new session serving `object`.
    pub fn open(&mut self, object: SharedObject) -> u64 {
        self.insert(Session::Object(object))
    }

    fn insert(&mut self, session: Session) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.sessions.insert(id, session);
        id
    }

    /// The client's handle is gone.
    pub fn close(&mut self, id: u64) {
        self.sessions.remove(&id);
    }

    /// The client sent Close on this session.
    pub fn is_closed(&self, id: u64) -> bool {
        matches!(self.sessions.get(&id), Some(Session::Closed))
    }

    /// Handles the message `message` (parsed from `buffer`) sent on session `id` at guest time `ticks`.
    pub fn dispatch(
        &mut self,
        id: u64,
        buffer: &[u8],
        message: &Message,
        memory: &GuestMemory,
        ticks: u64,
    ) -> Result<Dispatched, Failure> {
        let session = self.sessions.get_mut(&id).expect("the kernel keeps ids of open sessions");
        let is_domain = matches!(session, Session::Domain(_));
        let kind = Kind::of(message.message_type).unwrap_or(Kind::Request);
        let done = |reply| Ok(Dispatched { reply: Some(reply), ..Dispatched::empty(kind, is_domain) });
        let failed = |result| done(Reply { result, ..Reply::default() });
        let request = match cmif::parse(buffer, message, is_domain) {
            Ok(request) => request,
            Err(result) => return failed(result),
        };
        let object = match (request.kind, &mut *session, request.domain) {
            (Kind::Close, ..) => {
                *session = Session::Closed;
                return Ok(Dispatched::empty(kind, is_domain));
            }
            (_, Session::Closed, _) => unreachable!("the kernel refuses requests on closed sessions"),
            (Kind::Control, ..) => return self.control(id, request.command_id, request.arguments),
            (_, Session::Object(object), _) => object.clone(),
            (_, Session::Domain(domain), Some(DomainAction::Close(object))) => {
                return match domain.borrow_mut().remove(object) {
                    Some(_) => done(Reply::default()),
                    None => failed(hipc_result::DOMAIN_OBJECT_NOT_FOUND),
                };
            }
            (_, Session::Domain(domain), Some(DomainAction::Send(object))) => {
                let domain = domain.borrow();
                if request.in_objects.iter().any(|id| !domain.objects.contains_key(id)) {
                    return failed(sf::INVALID_IN_OBJECT);
                }
                match domain.objects.get(&object) {
                    Some(object) => object.clone(),
                    None => return failed(hipc_result::DOMAIN_OBJECT_NOT_FOUND),
                }
            }
            (_, Session::Domain(_), None) => return failed(hipc_result::TARGET_NOT_DOMAIN),
        };

        let mut call = Call::new(memory, ticks, message, request.arguments);
        match object.borrow_mut().handle(request.command_id, &mut call) {
            Ok(()) => {}
            Err(Failure::Result(result)) => return failed(result),
            Err(unimplemented) => return Err(unimplemented),
        }
        let mut reply = Reply { raw: call.output, statics: call.statics, ..Reply::default() };
        let mut new_sessions = Vec::new();
        match self.sessions.get_mut(&id) {
            Some(Session::Domain(domain)) => match domain.borrow_mut().add(call.new_objects) {
                Ok(ids) => reply.out_objects = ids,
                Err(result) => return failed(result),
            },
            _ => new_sessions = call.new_objects.into_iter().map(|object| self.open(object)).collect(),
        }
        Ok(Dispatched {
            kind,
            is_domain,
            reply: Some(reply),
            new_sessions,
            copy_events: call.copy_events,
            copy_shared_memories: call.copy_shared_memories,
            connect_service: call.connect_service,
            register_service: call.register_service,
            unregister_service: call.unregister_service,
        })
    }

    /// A control command (switchbrew "IPC Marshalling", Control).
    fn control(&mut self, id: u64, command_id: u32, arguments: &[u8]) -> Result<Dispatched, Failure> {
        let session = self.sessions.get_mut(&id).expect("dispatch checked the session");
        let is_domain = matches!(session, Session::Domain(_));
        let mut reply = Reply::default();
        let mut new_session = None;
        match (command_id, &mut *session) {
            // ConvertCurrentObjectToDomain -> the object's id in the new domain.
            (0, Session::Object(object)) => match Domain::new(object.clone(), self.domain_objects.clone()) {
                Ok(domain) => {
                    *session = Session::Domain(Rc::new(RefCell::new(domain)));
                    reply.raw = FIRST_DOMAIN_OBJECT.to_le_bytes().to_vec();
                }
                Err(result) => reply.result = result,
            },
            (0, _) => reply.result = hipc_result::OUT_OF_DOMAINS,
            // CopyFromCurrentDomain(object id) -> a session to that object.
            (1, Session::Domain(domain)) => {
                let object = arguments.get(..4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
                match object.and_then(|object| domain.borrow().objects.get(&object).cloned()) {
                    Some(object) => new_session = Some(Session::Object(object)),
                    None if object.is_none() => reply.result = sf::INVALID_HEADER_SIZE,
                    None => reply.result = hipc_result::DOMAIN_OBJECT_NOT_FOUND,
                }
            }
            (1, _) => reply.result = hipc_result::TARGET_NOT_DOMAIN,
            // CloneCurrentObject, CloneCurrentObjectEx(tag) -> another session to the same object; a domain's clone
            // is a session to the same domain (Atmosphère's CloneCurrentObjectImpl clones the domain's holder).
            (2 | 4, Session::Object(object)) => new_session = Some(Session::Object(object.clone())),
            (2 | 4, Session::Domain(domain)) => new_session = Some(Session::Domain(domain.clone())),
            (2 | 4, Session::Closed) => unreachable!("the kernel refuses requests on closed sessions"),
            // QueryPointerBufferSize -> u16.
            (3, Session::Object(object)) => {
                reply.raw = u32::from(object.borrow().pointer_buffer_size()).to_le_bytes().to_vec();
            }
            (3, Session::Domain(domain)) => {
                reply.raw = u32::from(domain.borrow().pointer_buffer_size).to_le_bytes().to_vec()
            }
            _ => reply.result = sf::UNKNOWN_COMMAND_ID,
        }
        let new_sessions = new_session.map(|session| self.insert(session)).into_iter().collect();
        Ok(Dispatched { reply: Some(reply), new_sessions, ..Dispatched::empty(Kind::Control, is_domain) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object() -> SharedObject {
        Rc::new(RefCell::new(super::super::time::SteadyClock))
    }

    /// Domains share one pool of objects: a command whose objects do not all fit adds none, and objects closed
    /// or dropped with their domain give their room back.
    #[test]
    fn domains_draw_on_one_pool_of_objects() {
        let pool = Rc::new(Cell::new(MAX_DOMAIN_OBJECTS - 3));
        let mut domain = Domain::new(object(), pool.clone()).unwrap();
        assert_eq!(domain.add(vec![object(), object()]), Ok(vec![2, 3]));
        assert_eq!(pool.get(), MAX_DOMAIN_OBJECTS);
        assert_eq!(domain.add(vec![object()]), Err(sf::OUT_OF_DOMAIN_ENTRIES));
        assert_eq!(domain.objects.len(), 3, "nothing added");
        assert!(domain.remove(2).is_some());
        assert_eq!(domain.add(vec![object()]), Ok(vec![4]));
        assert!(Domain::new(object(), pool.clone()).is_err(), "the pool is full");
        drop(domain);
        assert_eq!(pool.get(), MAX_DOMAIN_OBJECTS - 3);
    }
}
