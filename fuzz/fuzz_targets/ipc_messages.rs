//! Hostile IPC messages: any bytes as a message buffer, parsed and then dispatched to every host service and to
//! sessions turned into domains. A typed error or a reply, never a panic or a read outside the buffer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::rc::Rc;
use tandem_hle::ipc::cmif;
use tandem_hle::ipc::hipc::Message;
use tandem_hle::service::{Sessions, System, open_named_port, open_service};
use tandem_reference::memory::{GuestMemory, Perm};

/// Where messages' buffers may land: one mapped page among unmapped ones.
const MAPPED_PAGE: u64 = 0x1000;

thread_local! {
    static MEMORY: GuestMemory = {
        let mut memory = GuestMemory::new().expect("guest memory");
        memory.map(MAPPED_PAGE, 0x1000, Perm::RW).expect("a page");
        memory
    };
}

fuzz_target!(|data: &[u8]| {
    let buffer = &data[..data.len().min(0x3000)];
    let Ok(message) = Message::parse(buffer) else { return };
    assert!(message.data.end <= buffer.len());
    let system = Rc::new(System::default());
    let objects = ["set", "set:sys", "lm", "fsp-srv", "time:u", "appletOE", "nvdrv", "hid", "vi:u"].map(|name| open_service(name, &system).expect("a Tandem service"));
    let sm = open_named_port("sm:", &system).expect("sm:");
    MEMORY.with(|memory| {
        let mut sessions = Sessions::default();
        for object in objects.into_iter().chain([sm]) {
            let id = sessions.open(object);
            // Twice: the first message may have turned the session into a domain, or closed it.
            for _ in 0..2 {
                if sessions.is_closed(id) {
                    break;
                }
                if let Ok(dispatched) = sessions.dispatch(id, buffer, &message, memory, 0) {
                    if let Some(reply) = dispatched.reply {
                        let mut out = vec![0u8; 0x100];
                        let _ = cmif::write_reply(dispatched.kind, message.message_type, dispatched.is_domain, &reply, &mut out);
                    }
                }
            }
        }
    });
});
